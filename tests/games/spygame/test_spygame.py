"""SpyGame rules on scripted replies: guest seat, descriptions, ablations, probe mode, ToM probe."""

import json

import pytest
from conftest import play_all_fake

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.events import SPEECH
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.games.registry import get_spec

SPEC = get_spec("spygame")
FIXED = dict(shuffle_seats=False, shuffle_order=False, shuffle_options=False)  # spy = Player 1 = guest


def row(pair="apple-pear", orientation="fwd"):
    return next(r for r in SPEC.rows(SPEC.parse_options({})) if r.id == f"{pair}-{orientation}")


def describe_ok(ctx):
    return json.dumps({"guess": "fruit", "speak": f"hint number {len(ctx.events)} from {ctx.seat.name}"})


def tom_answer(ctx):
    others = ctx.turn.data["others"]
    answer = {"self_identity": "villager", "players": {p: {"word": "pear", "identity": "villager"} for p in others}}
    if ctx.turn.data["second_order"]:
        answer["they_think"] = {p: {"word": "pear", "identity": "villager"} for p in others}
    return json.dumps(answer)


def policy(vote_for, describe=describe_ok):
    def fn(ctx):
        if ctx.turn.action == "describe":
            return describe(ctx)
        if ctx.turn.action == "tom":
            return tom_answer(ctx)
        return json.dumps({"reasoning": "r", "name": vote_for(ctx)})

    return fn


def catch_spy(ctx):
    return "Player 1" if ctx.seat.name != "Player 1" else "Player 2"


def play(fn, pair="apple-pear", epoch=0, **options):
    return play_all_fake(SPEC, row(pair), epoch, SPEC.parse_options({**FIXED, **options}), fn)


def test_guest_is_the_spy_by_default_and_hosts_are_bound_to_host():
    opts = SPEC.parse_options({})
    game, _ = SPEC.setup(row(), 0, opts)
    assert game.guest == game.spy
    roles = SPEC.seat_model_roles(game)
    assert roles[game.guest] == EVALUATED and sorted(set(roles.values())) == [EVALUATED, "host"]


def test_villager_guest_sits_at_a_random_villager_seat():
    guests = set()
    for epoch in range(20):
        game, _ = SPEC.setup(row(), epoch, SPEC.parse_options({"guest": "villager"}))
        assert game.guest != game.spy and game.seats[game.guest].role == "villager"
        assert SPEC.seat_model_roles(game)[game.guest] == EVALUATED
        guests.add(game.guest)
    assert len(guests) == 4


def test_caught_guest_scores_win_round_voted():
    record, players = play(policy(catch_spy))
    assert record.label == "villager_win"
    score = SPEC.score(record)
    assert score["guest_win"] == 0.0 and score["guest_rounds"] == 0.0 and score["guest_voted"] == 3.0
    assert [c.turn.action for c in players["Player 2"].prompts] == ["describe", "tom", "vote"]


def test_surviving_spy_guest_wins_when_two_remain():
    def last_host(ctx):
        return [o for o in ctx.turn.data["options"] if o != "Player 1"][-1]

    record, _ = play(policy(last_host))
    assert record.label == "spy_win" and record.outcome["details"]["rounds"] == 2
    score = SPEC.score(record)
    assert score["guest_win"] == 1.0 and score["guest_rounds"] == 2.0 and score["guest_voted"] == 0.0


def test_villager_guest_wins_with_the_villagers():
    record, _ = play(policy(catch_spy), guest="villager")
    assert record.outcome["details"]["guest"] == "Player 2"
    score = SPEC.score(record)
    assert score["guest_win"] == 1.0 and score["guest_rounds"] == 1.0


@pytest.mark.parametrize("speak, problem", [
    ("one two three four five six seven eight nine ten eleven", "11 words"),
    ("a crunchy apple a day", "own keyword"),
    ("", "empty"),
])
def test_bad_descriptions_are_reprompted(speak, problem):
    sent = []

    def describe(ctx):
        if ctx.seat.name == "Player 1" and not sent:
            sent.append(1)
            return json.dumps({"guess": "pear", "speak": speak})
        return describe_ok(ctx)

    record, players = play(policy(catch_spy, describe))
    failures = record.failures["Player 1"]
    assert failures["rule"] + failures["format"] == 1
    assert problem in players["Player 1"].prompts[1].messages[-1]["content"]


def test_repeating_another_players_description_is_a_rule_violation():
    def describe(ctx):
        if ctx.seat.name == "Player 2" and ctx.attempt == 0:
            return json.dumps({"guess": "pear", "speak": "Round and sweet."})
        if ctx.seat.name == "Player 1":
            return json.dumps({"guess": "pear", "speak": "round and sweet"})
        return describe_ok(ctx)

    record, players = play(policy(catch_spy, describe))
    assert record.failures["Player 2"]["rule"] == 1
    assert "already said" in players["Player 2"].prompts[1].messages[-1]["content"]


def test_max_words_is_a_task_argument():
    def describe(ctx):
        return json.dumps({"guess": "pear", "speak": " ".join(["word"] * 12) + f" {ctx.seat.name}"})

    record, _ = play(policy(catch_spy, describe), max_words=0)
    assert record.failures["Player 1"]["rule"] == 0


def test_word_guessing_ablation():
    def describe(ctx):
        return json.dumps({"speak": f"hint from {ctx.seat.name}"})

    record, players = play(policy(catch_spy, describe))
    assert record.failures["Player 2"]["format"] == 3  # "guess" is required by default ...
    # ... once a description was heard: the game's first speaker (Player 1) has nothing to guess from
    assert record.failures["Player 1"]["format"] == 0
    assert '"guess"' not in players["Player 1"].prompts[0].messages[-1]["content"]
    record, players = play(policy(catch_spy, describe), word_guessing=False)
    assert record.failures["Player 1"]["format"] == 0
    assert '"guess"' not in players["Player 1"].prompts[0].messages[-1]["content"]
    # the ablation is the guest's (Player 1) only: the hosts still guess (paper Table 5)
    assert record.failures["Player 2"]["format"] >= 3
    assert '"guess"' in players["Player 2"].prompts[0].messages[-1]["content"]


def test_reasoning_ablation():
    def fn(ctx):
        if ctx.turn.action == "vote":
            return json.dumps({"name": catch_spy(ctx)})
        return policy(catch_spy)(ctx)

    record, _ = play(fn)
    assert record.failures["Player 2"]["format"] >= 3  # "reasoning" is required by default
    assert all(b["abstained"] for b in record.outcome["details"]["ballots"])
    def guest_without_reasoning(ctx):  # the hosts reason, the guest (Player 1) does not
        return fn(ctx) if ctx.seat.name == "Player 1" else policy(catch_spy)(ctx)

    record, players = play(guest_without_reasoning, reasoning=False)
    assert record.failures["Player 1"]["format"] == 0 and record.label == "villager_win"
    vote_prompt = next(c for c in players["Player 1"].prompts if c.turn.action == "vote")
    assert "reasoning" not in vote_prompt.turn.instruction
    # the ablation is the guest's only: a host is still asked to reason
    host_prompt = next(c for c in players["Player 2"].prompts if c.turn.action == "vote")
    assert "reasoning" in host_prompt.turn.instruction


def test_tom_probe_is_private_and_then_removed_from_every_view():
    record, players = play(policy(catch_spy))
    tom = record.outcome["details"]["tom"]
    assert set(tom) == {"Player 1", "Player 2", "Player 3", "Player 4"}
    assert "they_think" in tom["Player 1"] and "they_think" not in tom["Player 2"]
    for name, p in players.items():
        probe = next(c for c in p.prompts if c.turn.action == "tom")
        assert "private question from the host" in probe.messages[-1]["content"]
        vote = next(c for c in p.prompts if c.turn.action == "vote")
        text = "\n".join(m["content"] for m in vote.messages)
        assert "private question" not in text and "self_identity" not in text
    hidden = [e for e in record.events if e.data.get("probe") == "tom"]
    assert len(hidden) == 8 and all(e.to == () for e in hidden)  # 4 instructions + 4 replies


def test_tom_can_be_switched_off():
    record, players = play(policy(catch_spy), tom=False)
    assert record.outcome["details"]["tom"] is None
    assert all(c.turn.action != "tom" for p in players.values() for c in p.prompts)


def test_unreadable_tom_answer_is_counted_not_crashing():
    def fn(ctx):
        if ctx.turn.action == "tom" and ctx.seat.name == "Player 1":
            return "I think I am the spy"
        return policy(catch_spy)(ctx)

    record, _ = play(fn)
    assert record.failures["Player 1"]["format"] == 3
    assert record.outcome["details"]["tom"]["Player 1"] is None
    score = SPEC.score(record)
    assert score["tom_self_identity"] != score["tom_self_identity"]  # NaN: no answer to score


def test_probe_mode_publishes_content_free_descriptions():
    record, players = play(policy(catch_spy), probe=True)
    assert all(c.turn.action != "describe" for p in players.values() for c in p.prompts)
    speeches = [e for e in record.events if e.kind == SPEECH and e.data.get("description")]
    assert speeches and all(e.text == "..." for e in speeches)
    vote = next(c for c in players["Player 2"].prompts if c.turn.action == "vote")
    assert 'Player 1: "..."' in "\n".join(m["content"] for m in vote.messages)
    assert record.outcome["details"]["probe"] is True


@pytest.mark.parametrize("naming, first", [(1, "Player 1"), (2, "Aaron One"), (3, "Jack")])
def test_naming_methods_reach_the_prompts(naming, first):
    def vote_first(ctx):
        return ctx.turn.data["options"][0]

    record, players = play(policy(vote_first), naming=naming)
    assert first in players
    assert f"You are {first}" in players[first].prompts[0].messages[0]["content"]


def test_rows_cover_the_domains_in_both_orientations():
    rows = SPEC.rows(SPEC.parse_options({}))
    pairs = {r.data["pair_id"] for r in rows}
    assert len(pairs) >= 50 and len(rows) == 2 * len(pairs)
    assert {r.data["domain"] for r in rows} >= {"food", "people", "objects", "places", "animals", "brands", "concepts"}
    assert rows[0].id.endswith("-fwd") and rows[1].id.endswith("-rev")
    assert (rows[0].data["spy_word"], rows[0].data["villager_word"]) == (
        rows[1].data["villager_word"],
        rows[1].data["spy_word"],
    )
    food = SPEC.rows(SPEC.parse_options({"domains": "food"}))
    assert food and all(r.data["domain"] == "food" for r in food)
    with pytest.raises(GameEvalError):
        SPEC.rows(SPEC.parse_options({"domains": "planets"}))
    with pytest.raises(GameEvalError):
        SPEC.parse_options({"guest": "host"})
    with pytest.raises(GameEvalError):
        SPEC.setup(row(), 0, SPEC.parse_options({"max_words": -1}))


def test_paper_round_counts_the_round_of_elimination_and_can_exceed_two():
    """The paper's Round (1.99 to 2.18 with 4 players) against ours (at most 2 with 4 players)."""
    def everyone_votes_apart(ctx):  # four players, four different votes: a tie every round
        options = ctx.turn.data["options"]
        return options[["Player 1", "Player 2", "Player 3", "Player 4"].index(ctx.seat.name) % len(options)]

    record, _ = play(policy(everyone_votes_apart), protocol="paper", revote=False, max_rounds=4)
    assert record.label == "spy_win" and record.outcome["details"]["rounds"] == 4
    values = SPEC.score(record)
    assert values["guest_round_paper"] == 4.0 and values["guest_rounds"] == 4.0
    caught, _ = play(policy(catch_spy), protocol="paper")  # voted out in round 1
    assert SPEC.score(caught)["guest_round_paper"] == 1.0 and SPEC.score(caught)["guest_rounds"] == 0.0
    assert SPEC.summarize([record, caught])["round_paper"]["value"] == 2.5
