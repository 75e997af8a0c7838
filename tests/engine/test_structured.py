"""Structured decoding: one reply format per turn gives the format line, the schema and the reading;
the runner unwraps plain-text turns; records, reports and the diff say which decoding was used."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import FakePlayer
from inspect_ai.model import get_model

from pytest_gameeval.analysis.report.file import incomparable, write_json_atomic
from pytest_gameeval.cli.report import main
from pytest_gameeval.engine.errors import EngineError, GameEvalError, ParseError
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Reply
from pytest_gameeval.engine.replies import Field, ReplyFormat, text_reply
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.inspect_ext.decoding import model_player, resolve_structured
from pytest_gameeval.players.model import ModelPlayer, response_schema
from pytest_gameeval.players.scripted import ReplayPlayer

VOTE = ReplyFormat(
    "vote",
    (Field("thought", "<your private reasoning>", 80), Field("name", "<the player>", enum=("Player 2", "Player 3"))),
)


def test_one_format_gives_the_line_the_schema_and_the_reading():
    assert (
        VOTE.format_line()
        == 'Reply with one JSON object: {"thought": "<your private reasoning>", "name": "<the player>"}.'
    )
    schema = VOTE.json_schema()
    assert schema["required"] == ["thought", "name"] and schema["additionalProperties"] is False
    assert schema["properties"]["thought"] == {"type": "string", "minLength": 1, "maxLength": 80}
    assert schema["properties"]["name"] == {"type": "string", "enum": ["Player 2", "Player 3"]}
    assert VOTE.read('ok {"thought": " hm ", "name": "Player 9", "extra": "x"}') == {
        "thought": "hm",
        "name": "Player 9",
        "extra": "x",
    }
    with pytest.raises(ParseError, match="lacks the field"):
        VOTE.read('{"thought": "hm"}')
    # inspect accepts the schema as is
    assert response_schema(VOTE).json_schema.properties["name"].enum == ["Player 2", "Player 3"]


def test_a_plain_text_turn_is_one_field_under_structured_decoding():
    q = text_reply("question", "<your question>", 100)
    assert q.unwrap('{"question": " Is it red? "}') == "Is it red?"
    for bad in ("Is it red?", '{"question": ""}', '{"other": "x"}'):
        with pytest.raises(ParseError):
            q.unwrap(bad)
    with pytest.raises(ValueError):
        ReplyFormat("x", (Field("a", "<a>"), Field("b", "<b>")), text=True)


def test_auto_is_on_for_the_embedded_model_only():
    assert resolve_structured("auto", "gameeval/local") is True
    assert resolve_structured("auto", "openai/gpt-4o-mini") is False
    assert resolve_structured("auto", "gameeval/scripted") is False
    assert resolve_structured("on", "openai/gpt-4o-mini") is True
    assert resolve_structured("off", "gameeval/local") is False
    for name in GAMES:
        with pytest.raises(GameEvalError, match="structured"):
            get_spec(name).parse_options({"structured": "maybe"})


def test_runner_unwraps_structured_text_replies_and_the_record_says_so():
    spec = get_spec("askguess")
    opts = spec.parse_options({"max_rounds": 2})
    row = next(r for r in spec.rows(opts) if r.id == "apple")
    players = {
        "questioner": FakePlayer(
            inner=ReplayPlayer(
                ['{"question": "Is it a fruit?"}', "Is it red?", '{"question": "Is it an apple?"}'], "q"
            ),
            structured=True,
        ),
        "answerer": ReplayPlayer(["Yes.", "gameover"], "a"),
    }
    record = asyncio.run(play_case(spec, row, 0, opts, lambda seat, role: players[seat.role]))
    # the bare text in round 2 is a format error under structured decoding; the JSON field is the question
    assert record.label == "ST" and record.failures["Questioner"]["format"] == 1
    assert [s["structured"] for s in record.seats] == [True, False] and record.structured == "mixed"
    assert [e.text for e in record.events if e.kind == "speech"][:2] == ["Is it a fruit?", "Yes."]


def test_a_player_must_declare_the_contract_it_is_recorded_by():
    """`structured`, `reference` and `self_play` are part of `Player`: a player lacking them is one
    clear error before the game starts, never silently recorded as unstructured."""

    class Bare:  # a label and act(), nothing declared
        label = "bare"

        async def act(self, ctx):
            return Reply("Is it a fruit?")

    spec = get_spec("askguess")
    opts = spec.parse_options({"max_rounds": 1})
    row = next(r for r in spec.rows(opts) if r.id == "apple")
    with pytest.raises(
        EngineError, match=r"^seat \w+: Bare is not a Player: subclass pytest_gameeval\.engine\.player\.Player"
    ):
        asyncio.run(play_case(spec, row, 0, opts, lambda seat, role: Bare()))


def test_model_player_sends_the_turn_schema_only_when_structured():
    from pytest_gameeval.engine.game import Seat, Turn
    from pytest_gameeval.engine.player import TurnContext

    turn = Turn("Player 1", "vote", "vote", VOTE.read, reply=VOTE)
    ctx = TurnContext("spyfall", Seat("Player 1", "spy"), turn, [], [])
    model = get_model("gameeval/scripted")
    assert ModelPlayer(model)._config(ctx).response_schema is None
    assert model_player(model, "on")._config(ctx).response_schema.name == "vote"
    assert model_player(model, "auto").structured is False


def _report(structured: str | None) -> dict:
    game = {
        "version": "1",
        "options": {"structured": "auto"},
        "dataset": {"sha256": "x"},
        "metrics": {},
        "rate_keys": [],
        "mean_keys": [],
        "directions": {},
        "usage": {},
    }
    if structured:
        game["structured"] = structured
    return {"schema": "pytest-gameeval/report", "schema_version": 1, "package": {}, "models": {"evaluated": "m"},
            "settings": {}, "games": {"g": game},
            "cases": [{"id": f"g[c{i}]", "game": "g", "case": f"c{i}", "status": "played", "scores": {}}
                      for i in range(2)]}  # two played games: the fewest a verdict needs


def test_diff_refuses_runs_that_differ_in_structured_decoding(tmp_path, capsys):
    from pytest_gameeval.cli import main as cli

    on, off, old = tmp_path / "on.json", tmp_path / "off.json", tmp_path / "old.json"
    write_json_atomic(on, _report("on"))
    write_json_atomic(off, _report("off"))
    write_json_atomic(old, _report(None))  # a report from before the option: no structured decoding
    assert incomparable(_report("off"), _report(None)) == []
    assert cli(["report", "diff", str(off), str(on)]) == 2
    err = capsys.readouterr().err.strip()
    assert "structured decoding differs (old: off, new: on" in err and "\n" not in err
    assert cli(["report", "diff", str(old), str(on)]) == 2
    capsys.readouterr()
    assert main(["diff", str(off), str(on), "--allow-structured-mismatch"]) == 0
    assert "g off -> on" in capsys.readouterr().out


def test_scripted_provider_answers_a_structured_request_in_shape(tmp_path):
    from inspect_ai import eval as inspect_eval

    from pytest_gameeval.inspect_ext.task import game_task

    log = inspect_eval(game_task("askguess", limit=1, max_rounds=3, structured="on"), model="gameeval/scripted",
                       log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success"
    record = log.samples[0].metadata["gameeval_record"]
    assert all(s["structured"] for s in record["seats"])
    replies = [e for e in record["events"] if e["kind"] == "reply"]
    assert replies and all(json.loads(e["text"]) and e["data"]["structured"] for e in replies)
    assert sum(n for seat in record["failures"].values() for n in seat.values()) == 0
    assert log.samples[0].scores and next(iter(log.samples[0].scores.values())).metadata["structured"] == "on"


def in_its_field(ctx, text: str) -> str | None:
    """A plain-text turn's reply in the format's one field, as a constrained model would send it."""
    fmt = ctx.turn.reply
    return json.dumps({fmt.fields[0].name: text}) if fmt is not None and fmt.text else None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_turn_of_every_game_declares_its_reply_format(game):
    from pytest_gameeval.players.scripted import scripted_binder

    spec = get_spec(game)
    options = spec.parse_options({"retrospective": True} if "retrospective" in spec.all_options() else {})
    players: list[FakePlayer] = []
    bind = scripted_binder(spec, {"*": "random"})

    def checking(seat, role):  # the scripted policy's replies, as a structured seat sends them
        players.append(FakePlayer(inner=bind(seat, role), change=in_its_field, structured=True))
        return players[-1]

    for row in spec.select_rows(options)[:2]:
        record = asyncio.run(play_case(spec, row, 0, options, checking))
        assert record.structured == "on"
        # the scripted players' plain text, carried in the schema's field, reads as before: no new format error
        assert record.failure_totals().get("format", 0) == 0
    seen = [ctx.turn for player in players for ctx in player.prompts]
    assert seen and all(t.reply is not None for t in seen), {t.action for t in seen if t.reply is None}
    for turn in seen:
        schema = turn.reply.json_schema()
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for prop in schema["properties"].values():  # every string is bounded: no rambling to max_tokens
            assert prop.get("enum") or prop.get("maxLength") or prop.get("type") == "object"


def test_the_embedded_model_sends_length_caps_with_the_schema():
    """inspect drops maxLength/minLength for OpenAI-compatible servers unless the provider keeps them."""
    from inspect_ai.model import GenerateConfig

    from pytest_gameeval.backends.local_provider import LocalModelAPI
    from pytest_gameeval.games.tofukingdom import prompts

    api = object.__new__(LocalModelAPI)  # no server needed to build the request
    api.server_spec = type("S", (), {"seed": 0})()
    api.cache_prompt = True
    api.default_temperature = 0.0
    api.model_name = "local"
    api.service_model_name = lambda: "smol"  # type: ignore[method-assign]
    api.model_family = lambda: "smol"  # type: ignore[method-assign]
    sent = LocalModelAPI.completion_params(
        api, GenerateConfig(response_schema=response_schema(prompts.answer(("Player 1",)))), False
    )
    # sent as llama.cpp's llguidance grammar (compact JSON), not as response_format (issue 25)
    assert "response_format" not in sent
    grammar = sent["extra_body"]["grammar"]
    assert grammar.startswith("%llguidance {}\nstart: %json ")
    schema = json.loads(grammar.split("%json ", 1)[1])
    assert schema["properties"]["thought"] == {"type": "string", "minLength": 1, "maxLength": 100}
    assert schema["x-guidance"]["whitespace_flexible"] is False


def test_the_gate_knows_a_run_s_decoding_before_playing():
    from pytest_gameeval.run.plan import expected_decoding
    from pytest_gameeval.run.settings import Settings

    spec = get_spec("askguess")
    auto = spec.parse_options({})
    assert expected_decoding(spec, auto, Settings(model="gameeval/local")) == "on"
    assert (
        expected_decoding(spec, auto, Settings(model="gameeval/local", roles={"answerer": "openai/gpt-4o"})) == "mixed"
    )
    assert expected_decoding(spec, spec.parse_options({"structured": "off"}), Settings(model="gameeval/local")) == "off"


@pytest.mark.parametrize("given,expected", [(True, "on"), (False, "off"), ("off", "off")])
def test_structured_on_off_survive_inspects_yaml_booleans(given, expected):
    """`inspect eval ... -T structured=off` hands the task False (YAML); it means off, not an error."""
    assert get_spec("askguess").parse_options({"structured": given}).structured == expected
