"""The default protocol's turn handling (issue 35): a forfeit by an evaluated seat ends the game at
once (outcome `aborted`), a settled turn's failed attempts leave later prompts, a re-prompt of a
deterministic seat is sampled anew (recorded), and protocol=paper keeps the old handling."""

from __future__ import annotations

import asyncio
import math

import pytest
from conftest import FakePlayer

from pytest_gameeval.engine.events import FAILURE, REPLY
from pytest_gameeval.engine.game import ABORTED
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.spec import EVALUATED, FIRST_TRY, HEADLINE
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.players.scripted import scripted_binder

OPPONENTS = {"askguess": "oracle", "spygpt": "oracle"}  # as tests/games/test_headlines.py fixes them


def _play(game: str, evaluated_answer, protocol: str = "default", strength: str = "random"):
    """One game: the evaluated seats answer by `evaluated_answer`, the others by scripted policies."""
    spec = get_spec(game)
    options = spec.parse_options({"protocol": protocol})
    row = spec.select_rows(options)[0]
    scripted = scripted_binder(spec, {"*": OPPONENTS.get(game, strength), "evaluated": strength})
    fakes: dict[str, FakePlayer] = {}

    def bind(seat, role):
        player = scripted(seat, role)
        if role == EVALUATED:
            fakes[seat.name] = FakePlayer(inner=player, change=evaluated_answer)
            return fakes[seat.name]
        return player

    return spec, asyncio.run(play_case(spec, row, 0, options, bind)), fakes


def garbage(ctx, inner: str) -> str:
    return "@@@"  # unreadable by every game's parser (or an echo-free empty move)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_forfeit_of_the_evaluated_seat_ends_the_game_at_once(game):
    spec, record, fakes = _play(game, garbage)
    own_ending = {"taboo": "forfeit", "spygpt": "no_description"}.get(
        game
    )  # a game whose own rule already ends it on a forfeit
    assert record.label == (own_ending or ABORTED), (game, record.label)
    # one evaluated seat was asked exactly one turn: its first attempt and re-prompts, then the end
    asked = [c for f in fakes.values() for c in f.prompts]
    assert [c.attempt for c in asked] == list(range(len(asked))) and len(asked) > 1
    if not own_ending:
        assert record.outcome["details"]["aborted"]["seat"] in fakes
    scores = spec.score(record)
    assert scores["played"] == 0 and scores[HEADLINE] == 0 and scores.get(ABORTED, 0.0) == (0.0 if own_ending else 1.0)
    assert scores[FIRST_TRY] == 0.0
    spec.summarize([record])  # the papers' metrics read an aborted game without failing
    assert "forfeited" in spec.outcome_name(ABORTED)


@pytest.mark.parametrize("game", ["askguess", "akinator", "bluffing"])
def test_protocol_paper_plays_on_after_a_forfeit(game):
    spec, record, fakes = _play(game, garbage, protocol="paper")
    assert record.label != ABORTED
    assert sum(len(f.prompts) for f in fakes.values()) > 3  # more than the one forfeited turn


def test_failed_attempts_leave_later_prompts_but_stay_in_the_record():
    calls = {"n": 0}

    def first_attempt_garbage(ctx, inner):
        calls["n"] += 1
        return "@@@" if ctx.attempt == 0 else None  # each turn: one unreadable reply, then the policy's

    spec, record, fakes = _play("askguess", first_attempt_garbage, strength="oracle")
    (questioner,) = fakes.values()
    retried = [c for c in questioner.prompts if c.attempt == 1]
    later = [c for c in questioner.prompts if c.attempt == 0][1:]
    assert retried and later
    # while a turn is retried its seat sees the host's correction, not its rejected text to copy ...
    assert any("Try again" in m["content"] for m in retried[0].messages)
    assert not any(m["role"] == "assistant" and "@@@" in m["content"] for m in retried[0].messages)
    # ... once it is settled, no later prompt shows them
    for ctx in later:
        text = "\n".join(m["content"] for m in ctx.messages)
        assert "@@@" not in text and "Try again" not in text
    retracted = [e for e in record.events if e.data.get("retracted")]
    assert {e.text for e in retracted if e.kind == REPLY} == {"@@@"}
    assert len([e for e in record.events if e.kind == FAILURE]) == len([e for e in retracted if e.kind == REPLY])
    scores = spec.score(record)
    assert scores["played"] == 1.0 and scores[FIRST_TRY] == 0.0  # every first attempt failed


def test_the_turn_measure_counts_first_attempts_only():
    def every_other_turn(ctx, inner):
        if ctx.attempt == 0 and len([c for c in fakes_seen if c.attempt == 0]) % 2 == 0:
            return "@@@"
        return None

    fakes_seen: list = []

    def spy(ctx, inner):
        fakes_seen.append(ctx)
        return every_other_turn(ctx, inner)

    spec, record, fakes = _play("askguess", spy, strength="oracle")
    first = [c for c in fakes_seen if c.attempt == 0]
    failed_first = sum(1 for i in range(len(first)) if (i + 1) % 2 == 0)
    assert math.isclose(spec.score(record)[FIRST_TRY], (len(first) - failed_first) / len(first))


def test_a_repeat_re_prompt_quotes_the_move_and_lists_the_moves_made():
    from pytest_gameeval.engine.degenerate import DegenerateMove
    from pytest_gameeval.engine.game import RULE_VIOLATION
    from pytest_gameeval.engine.runner import correction

    text = correction(
        RULE_VIOLATION,
        DegenerateMove('your question "Is it alive?" repeats your previous one word for word; make a new move'),
        ["Is it big?", "Is it alive?"],
    )
    assert '"Is it alive?" repeats' in text
    assert 'Your moves so far: "Is it big?"; "Is it alive?"' in text


@pytest.mark.parametrize("protocol", ["default", "paper"])
def test_a_context_overflow_ends_the_game_classified_not_as_a_chat_error(protocol):
    from pytest_gameeval.engine.player import Reply

    def overflow_in_round_2(ctx, inner):
        if ctx.turn.action == "ask" and "Question 2 of" in ctx.messages[-1]["content"]:
            return Reply(
                "", error="LocalContextOverflowError: prompt of 9000 tokens exceeds 8192", context_overflow=True
            )
        return None

    spec, record, fakes = _play("askguess", overflow_in_round_2, protocol=protocol)
    if record.label == "ST":  # the oracle solved it in round 1: nothing to overflow
        pytest.skip("solved in round 1")
    assert record.label == ABORTED and record.outcome["details"]["aborted"]["kind"] == "context"
    (questioner,) = fakes.values()
    assert [c.attempt for c in questioner.prompts if "Question 2" in c.messages[-1]["content"]] == [
        0
    ]  # asked once, not re-asked


@pytest.mark.parametrize("question", ["Is it alive? (A) or (B) (C) (D)",  # quoted whole in the correction
                                      '{"question": "Is it a living thing that you can find in a house?"}'])
def test_a_repeat_stays_a_repeat_when_re_prompted_not_an_echo_of_the_correction(question):
    """The correction quotes the rejected move; the same move sent again is still a repeat (a
    degenerate move), never "repeats the host's instructions" (found on SmolLM2's transcripts)."""
    spec, record, fakes = _play("askguess", lambda ctx, inner: question if ctx.turn.action == "ask" else None)
    failures = [e for e in record.events if e.kind == FAILURE]
    assert failures, "the second question repeats the first"
    for failure in failures:
        assert failure.data.get("reason") == "degenerate" and "word for word" in failure.text, failure.text
