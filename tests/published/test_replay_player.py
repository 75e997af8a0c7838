"""The replay player (players/replay.py): each call of its seat gets the seat's next recorded reply;
a re-prompt, a turn of another kind or a turn past the recording is a divergence that says where
and why (strict), or, lenient, a re-prompt is a failed call the game forfeits by its rule."""

import asyncio

import pytest

from pytest_gameeval.engine.game import Seat, Turn
from pytest_gameeval.engine.player import Player, TurnContext
from pytest_gameeval.players.replay import (
    EXHAUSTED,
    LEFT_OVER,
    NO_RECORDED_REPLY,
    PHASE,
    REPROMPT,
    Recorded,
    ReplayDiverged,
    ReplaySeat,
    left_over,
)


def ctx(action: str, attempt: int = 0) -> TurnContext:
    return TurnContext("spyfall", Seat("player1", "villager"), Turn("player1", action, "", lambda t: t), [], [],
                       attempt)


def act(seat: ReplaySeat, action: str, attempt: int = 0):
    return asyncio.run(seat.act(ctx(action, attempt)))


RECORDING = [Recorded("describe", "d1", "a.log #3"), Recorded("vote", "v1", "a.log #9"), Recorded("describe", None)]


def test_answers_each_call_with_the_next_recorded_reply_and_replays_a_failed_call():
    seat = ReplaySeat(RECORDING, "GPT-4")
    assert isinstance(seat, Player) and seat.label == "GPT-4"
    assert act(seat, "describe").text == "d1" and act(seat, "vote").text == "v1"
    failed = act(seat, "describe")
    assert failed.error and not failed.text
    assert seat.left == [] and left_over({"player1": seat}) is None


def test_a_re_prompt_diverges_with_where_and_why():
    seat = ReplaySeat(RECORDING, "GPT-4")
    act(seat, "describe")
    with pytest.raises(ReplayDiverged) as stop:
        act(seat, "describe", attempt=1)
    assert stop.value.kind == REPROMPT and stop.value.where == "a.log #3" and "rejected" in stop.value.why
    assert stop.value.as_dict()["seat"] == "player1"


def test_a_lenient_replay_answers_a_re_prompt_with_a_failed_call():
    seat = ReplaySeat(RECORDING, "GPT-4", strict=False)
    act(seat, "describe")
    again = act(seat, "describe", attempt=1)
    assert again.error == NO_RECORDED_REPLY and seat.reprompts == 1
    assert act(seat, "vote").text == "v1"  # the recording goes on where it was


def test_a_phase_out_of_order_diverges():
    seat = ReplaySeat(RECORDING, "GPT-4")
    with pytest.raises(ReplayDiverged) as stop:
        act(seat, "vote")
    assert stop.value.kind == PHASE and "describe" in stop.value.why and seat.used == 0


def test_a_turn_past_the_recording_diverges_and_a_left_over_recording_is_named():
    seat = ReplaySeat(RECORDING[:1], "GPT-4")
    act(seat, "describe")
    with pytest.raises(ReplayDiverged) as stop:
        act(seat, "vote")
    assert stop.value.kind == EXHAUSTED
    unused = ReplaySeat(RECORDING, "GPT-3.5")
    act(unused, "describe")
    diverged = left_over({"player1": seat, "player2": unused})
    assert diverged.kind == LEFT_OVER and diverged.seat == "player2" and "2 recorded replies" in diverged.why
