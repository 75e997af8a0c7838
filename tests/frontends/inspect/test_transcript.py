"""What a reader of `inspect view` gets: a setup card, turns as spans named after seat and role,
the story in place, the reply format once, a headline metric, named interval bounds, a short
explanation and string seeds. Scripted players through inspect's real model path, offline."""

from __future__ import annotations

import asyncio
import re

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalSample, read_eval_log

from pytest_gameeval.engine.events import Event
from pytest_gameeval.engine.game import Game, Turn
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.games.spyfall.prompts import DESCRIBE_FORMAT
from pytest_gameeval.inspect_ext.scorer import mean_metric_name
from pytest_gameeval.inspect_ext.task import game_task
from pytest_gameeval.players.scripted import scripted_binder


def run(task, model: str, tmp_path, **kwargs) -> list[EvalLog]:
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none", **kwargs)
    return [read_eval_log(log.location, resolve_attachments=True) for log in logs]


def tree(sample: EvalSample) -> tuple[dict[str, str], dict[str | None, list]]:
    """(span id -> span name, parent span id -> its events in order)."""
    names, children = {}, {}
    for e in sample.events:
        if e.event == "span_end":
            continue
        parent = e.parent_id if e.event == "span_begin" else e.span_id
        if e.event == "span_begin":
            names[e.id] = e.name
        children.setdefault(parent, []).append(e)
    return names, children


def infos(events) -> list[tuple[str, str]]:
    return [(e.source, str(e.data)) for e in events if e.event == "info"]


@pytest.fixture(scope="module")
def spyfall_log(tmp_path_factory) -> EvalLog:
    # three rounds at most: the random players rarely find the spy in round 1
    (log,) = run(game_task("spyfall", pairs="ipad-iphone", both_orientations=False, players=5),
                 "gameeval/scripted", tmp_path_factory.mktemp("spyfall"), epochs=3)
    assert log.status == "success"
    return log


def test_setup_card_first_names_every_seat_its_role_model_and_secret(spyfall_log):
    sample = spyfall_log.samples[0]
    record = sample.metadata["gameeval_record"]
    source, card = infos(sample.events)[0]
    assert source.startswith("Setup")
    assert str(record["seed"]) in card
    for seat in record["seats"]:
        row = next(line for line in card.splitlines() if line.startswith(f"| {seat['name']} |"))
        assert seat["role"] in row and seat["model"] in row and seat["private"]["word"] in row
    spy = next(s for s in record["seats"] if s["role"] == "spy")
    assert "**evaluated**" in next(line for line in card.splitlines() if line.startswith(f"| {spy['name']} |"))


def test_every_model_call_sits_in_a_span_named_after_its_seat_and_role(spyfall_log):
    for sample in spyfall_log.samples:
        names, _ = tree(sample)
        seats = {s["name"]: s["role"] for s in sample.metadata["gameeval_record"]["seats"]}
        calls = [e for e in sample.events if e.event == "model"]
        assert calls
        for call in calls:
            name = names[call.span_id]
            seat, role, action = re.fullmatch(r"(.+) \((\w+)\): (describe|vote)", name).groups()
            assert seats[seat] == role  # the sidebar names seat, role and the turn's action
            # the call's own prompt is that seat's: its system prompt names it
            assert f"You are {seat}," in str(call.input[0].content)


def test_speech_thoughts_and_host_lines_are_in_place(spyfall_log):
    sample = spyfall_log.samples[0]
    names, children = tree(sample)
    for span_id, name in names.items():
        seat = name.split(" (")[0]
        lines = infos(children.get(span_id, []))
        for source, _ in lines:
            # a turn span holds only its seat's exchange: the host's words to it, its thought, its speech
            assert (
                source in (f"Host → {seat}", f"{seat} says")
                or source.startswith((f"{seat} thinks (private", f"Host records for {seat}", f"Failure: {seat}'s"))
                or not re.fullmatch(r"Player \d \(\w+\): \w+", name)
            ), (name, source)
    said = [e for e in sample.events if e.event == "info" and e.source.endswith(" says")]
    private = [e for e in sample.events if e.event == "info" and "thinks (private" in e.source]
    assert said and private and all("scripted" in str(e.data) for e in private)


def test_each_round_opens_in_its_own_span(spyfall_log):
    for sample in spyfall_log.samples:
        names, children = tree(sample)
        rounds = {sid: n for sid, n in names.items() if n.startswith("Round ")}
        for sid, name in rounds.items():
            k = name.split()[1]
            first = infos(children[sid])[0]
            assert first == ("Host", first[1]) and first[1].startswith(f"Round {k}."), (name, first)
        openings = [d for _, d in infos(sample.events) if re.match(r"Round \d+\. Players still", d)]
        assert len(openings) == len(rounds)


@pytest.fixture(scope="module")
def spyfall_paper_log(tmp_path_factory) -> EvalLog:
    # protocol=paper writes the reply format into every turn's instruction (the default: once, in
    # the system prompt)
    (log,) = run(game_task("spyfall", protocol="paper", pairs="ipad-iphone", end_players=4),
                 "gameeval/scripted", tmp_path_factory.mktemp("spyfall_paper"), epochs=2)
    assert log.status == "success"
    return log


def test_the_reply_format_is_written_out_once_per_sample(spyfall_paper_log):
    for sample in spyfall_paper_log.samples:
        texts = [d for s, d in infos(sample.events) if s.startswith("Host → ")]
        describe = [t for t in texts if "describe your word" in t]
        assert sum(DESCRIBE_FORMAT in t for t in describe) == 1
        assert len(describe) > 1 and all(t.endswith("*(reply format as given above)*") for t in describe[1:])
        assert all(re.match(r"Round \d+: it is your turn", t) for t in describe)  # the first sentence stays


def test_the_default_protocol_gives_the_reply_format_in_the_system_prompt_only(spyfall_log):
    for sample in spyfall_log.samples:
        texts = [d for s, d in infos(sample.events) if s.startswith("Host → ")]
        assert texts and not any("JSON" in t or "reply format" in t for t in texts)
        assert '"speak": "<your description>"' in sample.messages[0].text


def test_score_explanation_is_short_and_readable_and_the_seed_a_string(spyfall_log):
    for sample in spyfall_log.samples:
        score = sample.scores["gameeval_spyfall"]
        record = sample.metadata["gameeval_record"]
        assert score.metadata["seed"] == str(record["seed"])
        assert len(score.explanation) < 800 and "{" not in score.explanation
        details = record["outcome"]["details"]
        assert details["spy"] in score.explanation and details["spy_word"] in score.explanation
        assert get_spec("spyfall").outcome_name(record["outcome"]["label"]) in score.explanation
        lots = [e for e in details["eliminated"] if e["how"] == "lot"]
        assert ("drawn lots" in score.explanation) == bool(lots)


def test_messages_tab_holds_the_evaluated_seats_conversation(spyfall_log):
    sample = spyfall_log.samples[0]
    spy = next(s["name"] for s in sample.metadata["gameeval_record"]["seats"] if s["role"] == "spy")
    assert sample.messages[0].role == "system" and f"You are {spy}," in sample.messages[0].text
    assert any(m.role == "assistant" for m in sample.messages)


def test_every_task_has_a_headline_score_and_named_interval_bounds(tmp_path):
    logs = run([game_task(game, limit=1) for game in GAMES], "gameeval/scripted", tmp_path)
    assert len(logs) == len(GAMES)
    for log in logs:
        spec = get_spec(log.eval.task)
        assert log.status == "success", log.error
        mean = mean_metric_name(spec, spec.headline)  # "mean": over the games that define the key
        assert log.results.headline.score == spec.headline and log.results.headline.metric == mean
        assert f"score: {mean} {spec.headline}" in log.eval.tags  # the log list's tag naming the SCORE column
        # the headline leads inspect's summary (after the scorer's own entry) and each sample's score panel
        assert [s.name for s in log.results.scores][:2] == [f"gameeval_{spec.name}", spec.headline]
        assert next(iter(log.samples[0].scores[f"gameeval_{spec.name}"].value)) == spec.headline
        headline = next(s for s in log.results.scores if s.name == spec.headline)
        assert headline.metrics[mean].value == headline.metrics[mean].value  # not NaN
        assert {"low95", "high95"} <= set(headline.metrics)  # the headline's interval (t; one game: none)
        for score in log.results.scores:
            if score.name in spec.rate_keys:  # outcome labels and 0/1 keys such as evaluated_win
                assert {"low95", "high95"} <= set(score.metrics)
                assert score.metrics["low95"].value <= score.metrics["mean"].value <= score.metrics["high95"].value


class Recorder:
    """A front end's view of the runner hooks, to check order and placement."""

    def __init__(self) -> None:
        self.log: list[tuple] = []
        self.round = None
        self.turn_seat = None

    async def game_started(self, game: Game, seed: int) -> None:
        self.log.append(("start", seed))

    async def round_started(self, game: Game) -> None:
        self.round = game.round

    async def round_ended(self, game: Game) -> None:
        self.round = None

    def turn(self, game: Game, turn: Turn):
        recorder = self

        class Span:
            async def __aenter__(self):
                recorder.turn_seat = turn.seat

            async def __aexit__(self, *exc):
                recorder.turn_seat = None

        return Span()

    def event(self, game: Game, event: Event) -> None:
        self.log.append(("event", event, self.round, self.turn_seat))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_runner_shows_every_event_once_in_order_in_its_round(name):
    spec = get_spec(name)
    options = spec.parse_options({})
    row = spec.select_rows(options)[0]
    recorder = Recorder()
    record = asyncio.run(play_case(spec, row, 0, options, scripted_binder(spec, {"*": "random"}), observer=recorder))
    shown = [entry[1] for entry in recorder.log if entry[0] == "event"]
    assert recorder.log[0] == ("start", record.seed)
    assert shown == record.events  # each event once, in the record's order
    for _, event, round_, seat in (e for e in recorder.log if e[0] == "event"):
        assert round_ is not None and event.round <= round_  # never before its own round starts
        if seat is not None:  # inside a turn span: only that seat's exchange
            assert event.speaker == seat or event.to == (seat,) or event.data.get("probe"), (seat, event)


def test_a_setup_judgement_is_on_the_setup_card_not_in_round_one(tmp_path):
    """Taboo's drawn system prompt variant read as round 1's first entry ("HOST JUDGEMENT: system
    prompt variant 2 for the Guesser"); it is part of the setup."""
    (log,) = run(game_task("taboo", limit=1), "gameeval/scripted", tmp_path)
    sample = log.samples[0]
    variant = sample.metadata["gameeval_record"]["outcome"]["details"]["variant"]
    source, card = infos(sample.events)[0]
    assert source.startswith("Setup") and f"system prompt variant {variant} for the Guesser" in card
    later = [d for _, d in infos(sample.events)[1:]]
    assert not any("system prompt variant" in d for d in later)
    names, _ = tree(sample)
    assert any(n.endswith(": clue") for n in names.values()) and any(n.endswith(": reply") for n in names.values())
