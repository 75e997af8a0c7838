"""SpyFall rules on scripted replies: wins, thresholds, ties, invalid votes, failures, visibility."""

import asyncio
import json
import re

import pytest
from conftest import play_all_fake

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.events import HOST_MSG
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.voting import OUTCOMES
from pytest_gameeval.players.scripted import cot, scripted_binder

SPEC = get_spec("spyfall")
BALLOT = re.compile(r"^Player \d votes for Player \d")
FIXED = dict(shuffle_seats=False, shuffle_order=False, shuffle_options=False)  # spy = Player 1


def row(pair="ipad-iphone", orientation="fwd"):
    return next(r for r in SPEC.rows(SPEC.parse_options({})) if r.id == f"{pair}-{orientation}")


def play(fn, pair="ipad-iphone", epoch=0, **options):
    return play_all_fake(SPEC, row(pair), epoch, SPEC.parse_options({**FIXED, **options}), fn)


def voting(choose, describe=lambda ctx: cot(f"clue from {ctx.seat.name}")):
    """A policy: `describe(ctx)` on describe turns, `choose(ctx)` -> reply text on vote turns."""
    return lambda ctx: describe(ctx) if ctx.turn.action == "describe" else choose(ctx)


def vote(name, speak="because"):
    return json.dumps({"thought": "t", "speak": speak, "name": name})


def everyone_votes(target):
    return voting(lambda ctx: vote(target(ctx)))


# -- winning -------------------------------------------------------------------------------
def test_villagers_win_when_the_spy_is_voted_out():
    record, _ = play(everyone_votes(lambda ctx: "Player 1" if ctx.seat.name != "Player 1" else "Player 2"))
    assert record.label == "villager_win" and record.outcome["winner"] == "villagers"
    details = record.outcome["details"]
    assert details["spy"] == "Player 1" and details["rounds"] == 1
    assert details["eliminated"] == [{"round": 1, "seat": "Player 1", "role": "spy", "how": "vote"}]
    score = SPEC.score(record)
    assert score["villager_win"] == 1.0 and score["spy_win"] == 0.0
    assert score["spy_living_round"] == 0.0 and score["spy_votes_per_round"] == 5.0
    assert score["evaluated_win"] == 0.0  # the evaluated model played the spy


def last_villager(ctx):
    """Vote for the highest-numbered option that is not the spy (Player 1)."""
    return [o for o in ctx.turn.data["options"] if o != "Player 1"][-1]


def test_spy_wins_when_two_players_remain_by_default():
    record, _ = play(everyone_votes(last_villager))
    assert record.label == "spy_win" and record.outcome["winner"] == "spy"
    details = record.outcome["details"]
    assert details["rounds"] == 4  # 6 -> 5 -> 4 -> 3 -> 2
    assert [e["seat"] for e in details["eliminated"]] == ["Player 6", "Player 5", "Player 4", "Player 3"]
    assert SPEC.score(record)["spy_living_round"] == 4.0


def test_threshold_is_a_task_argument():
    record, _ = play(everyone_votes(last_villager), end_players=3)  # GameEval's code stopped at three
    assert record.label == "spy_win" and record.outcome["details"]["rounds"] == 3
    assert record.outcome["details"]["end_players"] == 3


def test_evaluated_villager_wins_when_villagers_win():
    record, _ = play(
        everyone_votes(lambda ctx: "Player 1" if ctx.seat.name != "Player 1" else "Player 2"), evaluated="villager"
    )
    assert SPEC.score(record)["evaluated_win"] == 1.0


# -- ties ----------------------------------------------------------------------------------
TIE_FIRST = {"Player 1": "Player 2", "Player 2": "Player 1", "Player 3": "Player 1", "Player 4": "Player 2"}


def tie_then(revote_choices):
    def choose(ctx):
        if ctx.turn.data["stage"] == "first":
            return vote(TIE_FIRST[ctx.seat.name])
        return vote(revote_choices[ctx.seat.name])

    return voting(choose)


def test_tie_goes_to_a_revote_among_the_tied():
    revote = {"Player 1": "Player 2", "Player 2": "Player 1", "Player 3": "Player 1", "Player 4": "Player 1"}
    record, players = play(tie_then(revote), players=4)
    assert record.label == "villager_win"
    ballots = record.outcome["details"]["ballots"]
    revotes = [b for b in ballots if b["stage"] == "revote"]
    assert len(revotes) == 4
    assert {b["voter"]: b["options"] for b in revotes} == {
        "Player 1": ["Player 2"],
        "Player 2": ["Player 1"],
        "Player 3": ["Player 1", "Player 2"],
        "Player 4": ["Player 1", "Player 2"],
    }
    assert record.outcome["details"]["eliminated"][0]["how"] == "vote"
    revote_prompt = [c for c in players["Player 3"].prompts if c.turn.action == "vote"][-1]
    assert "['Player 1', 'Player 2']" in revote_prompt.turn.instruction


def test_voting_outside_the_tie_in_a_revote_is_a_rule_violation():
    revote = {"Player 1": "Player 2", "Player 2": "Player 1", "Player 3": "Player 4", "Player 4": "Player 1"}
    record, _ = play(tie_then(revote), players=4)
    assert record.failures["Player 3"]["rule"] == 3 and record.failures["Player 3"]["forfeit"] == 1
    abstained = [b for b in record.outcome["details"]["ballots"] if b["abstained"]]
    assert [(b["voter"], b["stage"]) for b in abstained] == [("Player 3", "revote")]


def test_second_tie_is_drawn_with_the_seeded_random_source():
    revote = {"Player 1": "Player 2", "Player 2": "Player 1", "Player 3": "Player 2", "Player 4": "Player 1"}
    outcomes = {}
    for epoch in range(12):
        record, _ = play(tie_then(revote), players=4, epoch=epoch)
        first = record.outcome["details"]["eliminated"][0]
        assert first["how"] == "lot" and first["seat"] in ("Player 1", "Player 2")
        outcomes[epoch] = first["seat"]
        again, _ = play(tie_then(revote), players=4, epoch=epoch)
        assert again.outcome["details"]["eliminated"][0]["seat"] == first["seat"]  # same seed, same draw
    assert set(outcomes.values()) == {"Player 1", "Player 2"}


def test_without_revote_a_tie_goes_straight_to_the_draw():
    record, _ = play(tie_then({}), players=4, revote=False)
    assert not [b for b in record.outcome["details"]["ballots"] if b["stage"] == "revote"]
    assert record.outcome["details"]["eliminated"][0]["how"] == "lot"


# -- invalid votes and failures ------------------------------------------------------------
def spy_caught_after(bad_replies_for_p2):
    """Player 2 first sends the given bad replies, then votes for the spy like everyone else."""
    sent = []

    def choose(ctx):
        if ctx.seat.name == "Player 2" and len(sent) < len(bad_replies_for_p2):
            sent.append(1)
            return bad_replies_for_p2[len(sent) - 1]
        return vote("Player 1" if ctx.seat.name != "Player 1" else "Player 2")

    return voting(choose)


def test_self_vote_is_reprompted_then_counted():
    record, players = play(spy_caught_after([vote("Player 2")]))
    assert record.failures["Player 2"]["rule"] == 1 and record.failures["Player 2"]["forfeit"] == 0
    assert record.label == "villager_win"
    reprompt = players["Player 2"].prompts[-1].messages[-1]["content"]
    assert "breaks a rule: you cannot vote for yourself" in reprompt
    assert all("breaks a rule" not in m["content"] for c in players["Player 3"].prompts for m in c.messages)


@pytest.mark.parametrize(
    "bad, kind",
    [
        (vote("Player 2"), "rule"),
        (vote("Player 42"), "rule"),
        ("I vote Player 1!", "format"),
        ('{"speak": "x"}', "format"),
    ],
)
def test_three_invalid_votes_become_an_abstention(bad, kind):
    record, _ = play(spy_caught_after([bad] * 3))
    assert record.failures["Player 2"][kind] == 3 and record.failures["Player 2"]["forfeit"] == 1
    ballots = record.outcome["details"]["ballots"]
    assert [b["voter"] for b in ballots if b["abstained"]] == ["Player 2"]
    assert record.label == "villager_win"  # the other four votes still carry
    assert SPEC.score(record)["abstentions"] == 1.0


def test_vote_for_an_eliminated_player_is_a_rule_violation():
    def choose(ctx):
        outs = [e for e in ctx.events if e.kind == HOST_MSG and " is voted out" in e.text]
        if ctx.seat.name == "Player 2" and len(outs) == 1 and "Player 6" in outs[0].text and ctx.attempt == 0:
            return vote("Player 6")
        return vote(last_villager(ctx))

    record, players = play(voting(choose))
    assert record.failures["Player 2"]["rule"] == 1
    assert any("Player 6 is out of the game" in m["content"] for c in players["Player 2"].prompts for m in c.messages)


def test_saying_your_own_word_is_reprompted():
    said = []

    def describe(ctx):
        if ctx.seat.name == "Player 1" and not said:
            said.append(1)
            return cot("My ipad is shiny.")
        return cot("It is a gadget.")

    record, players = play(
        voting(lambda ctx: vote("Player 1" if ctx.seat.name != "Player 1" else "Player 2"), describe)
    )
    assert record.failures["Player 1"]["rule"] == 1
    others_saw = " ".join(
        m["content"] for name, p in players.items() if name != "Player 1" for c in p.prompts for m in c.messages
    )
    assert "ipad" not in others_saw.lower()


def test_chat_errors_never_end_the_game_without_a_winner():
    def fn(ctx):
        if ctx.seat.name == "Player 2":
            return None  # every call of Player 2 fails
        return voting(lambda c: vote("Player 1" if c.seat.name != "Player 1" else "Player 3"))(ctx)

    record, _ = play(fn)
    assert record.label == "villager_win"
    assert record.failures["Player 2"]["chat"] == 2 and record.failures["Player 2"]["forfeit"] == 2
    assert any(d["seat"] == "Player 2" and d["text"] is None for d in record.outcome["details"]["descriptions"])


@pytest.mark.parametrize("epoch", range(4))
def test_garbage_from_everyone_still_ends_with_a_winner(epoch):
    record, _ = play(lambda ctx: "no idea", epoch=epoch)
    assert record.label in OUTCOMES
    details = record.outcome["details"]
    assert details["rounds"] <= 4
    assert all(e["how"] == "lot" for e in details["eliminated"])


def test_every_paper_game_ends_with_a_winner_on_random_players():
    opts = SPEC.parse_options({"source": "paper"})
    rows = SPEC.select_rows(opts)
    assert len(rows) == 22
    for r in rows:
        record = asyncio.run(play_case(SPEC, r, 0, opts, scripted_binder(SPEC, {"*": "random"})))
        assert record.label in OUTCOMES and record.outcome["winner"] in ("spy", "villagers")


# -- what each seat sees -------------------------------------------------------------------
def test_secret_ballots_are_not_seen_before_voting():
    record, players = play(everyone_votes(last_villager))
    for p in players.values():
        for ctx in p.prompts:
            if ctx.turn.action == "vote":
                last_round_start = max(
                    i for i, e in enumerate(ctx.events) if e.kind == HOST_MSG and e.text.startswith("Round ")
                )
                assert not any(BALLOT.search(e.text) for e in ctx.events[last_round_start:])


def test_public_votes_are_seen_by_later_voters():
    record, players = play(everyone_votes(last_villager), voting="public")
    first_vote = next(c for c in players["Player 1"].prompts if c.turn.action == "vote")
    assert not any(BALLOT.search(e.text) for e in first_vote.events)
    third = next(c for c in players["Player 3"].prompts if c.turn.action == "vote")
    seen = [e.text for e in third.events if BALLOT.search(e.text)]
    assert seen == ["Player 1 votes for Player 6.", "Player 2 votes for Player 6."]


def test_vote_reasons_are_public_and_attributed():
    record, players = play(everyone_votes(last_villager))
    later = players["Player 1"].prompts[-1].messages
    text = "\n".join(m["content"] for m in later)
    assert 'Player 2: "because' in text


def test_same_seed_replays_the_same_game():
    opts = SPEC.parse_options({})
    a = asyncio.run(play_case(SPEC, row(), 3, opts, scripted_binder(SPEC, {"*": "random"})))
    b = asyncio.run(play_case(SPEC, row(), 3, opts, scripted_binder(SPEC, {"*": "random"})))
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]
    assert a.seed == b.seed


# -- spec: rows, options, roles ------------------------------------------------------------
def test_rows_are_pairs_in_both_orientations():
    rows = SPEC.rows(SPEC.parse_options({}))
    assert rows[0].id == "ipad-iphone-fwd" and rows[1].id == "ipad-iphone-rev"
    assert (rows[0].data["spy_word"], rows[0].data["villager_word"]) == ("ipad", "iphone")
    assert (rows[1].data["spy_word"], rows[1].data["villager_word"]) == ("iphone", "ipad")
    assert len(rows) == 2 * len({r.data["pair_id"] for r in rows})
    one_way = SPEC.rows(SPEC.parse_options({"both_orientations": "false"}))
    assert all(r.id.endswith("-fwd") for r in one_way) and len(one_way) * 2 == len(rows)


def test_the_papers_eleven_pairs_come_first_spy_word_first():
    rows = SPEC.rows(SPEC.parse_options({"source": "paper", "both_orientations": False}))
    spies = [(r.data["spy_word"].lower(), r.data["villager_word"].lower()) for r in rows]
    assert spies == [
        ("ipad", "iphone"), ("guitar", "lute"), ("bmw", "benz"), ("eyebrow", "beard"), ("grape", "raisins"),
        ("sea lion", "seal"), ("spider-man", "batman"), ("nike", "adidas"), ("milk", "soy milk"),
        ("motorcycle", "electromobile"), ("tiger", "lion"),
    ]
    assert len(SPEC.rows(SPEC.parse_options({"source": "ours"}))) >= 2 * 40


def test_pairs_filter_and_unknown_pair():
    opts = SPEC.parse_options({"pairs": "tiger-lion,nike-adidas"})
    assert [r.id for r in SPEC.select_rows(opts)] == [
        "nike-adidas-fwd",
        "nike-adidas-rev",
        "tiger-lion-fwd",
        "tiger-lion-rev",
    ]
    with pytest.raises(GameEvalError, match="unknown pair"):
        SPEC.rows(SPEC.parse_options({"pairs": "nope"}))


@pytest.mark.parametrize(
    "args", [{"evaluated": "judge"}, {"voting": "loud"}, {"naming": 7}, {"colour": 1}, {"players": "many"}]
)
def test_bad_task_arguments_are_one_clear_error(args):
    with pytest.raises(GameEvalError):
        SPEC.parse_options(args)


@pytest.mark.parametrize("content, problem", [
    ('{"id": "a", "spy": "x", "villager": "y"}\n{oops\n', ":2: malformed JSON"),
    ('{"id": "a", "spy": "x"}\n', "missing key 'villager'"),
    ('{"id": "a", "spy": "x", "villager": "y"}\n{"id": "a", "spy": "z", "villager": "w"}\n', "duplicate id"),
    ('{"id": "a", "spy": "x", "villager": "X"}\n', "two different"),
])
def test_malformed_data_is_one_clear_error(tmp_path, monkeypatch, content, problem):
    (tmp_path / "spyfall").mkdir()
    (tmp_path / "spyfall" / "pairs.jsonl").write_text(content)
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    with pytest.raises(GameEvalError, match=problem):
        SPEC.rows(SPEC.parse_options({}))


def test_seat_model_roles_follow_the_evaluated_side():
    for evaluated, other in (("spy", "villager"), ("villager", "spy")):
        opts = SPEC.parse_options({"evaluated": evaluated})
        game, _ = SPEC.setup(row(), 0, opts)
        roles = SPEC.seat_model_roles(game)
        for name, seat in game.seats.items():
            assert roles[name] == (EVALUATED if seat.role == evaluated else other)
    assert SPEC.higher_is_better["evaluated_win"] is True


def test_case_ids_name_pair_and_orientation():
    opts = SPEC.parse_options({})
    assert SPEC.case_id(row("ipad-iphone", "rev"), opts, 0) == "ipad-iphone-rev-t0"
