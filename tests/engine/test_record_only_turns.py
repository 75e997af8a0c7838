"""The engine's record-only turns: a probe is seen while answered, then leaves every view."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from pytest_gameeval.engine.errors import ParseError
from pytest_gameeval.engine.events import REFEREE_ONLY
from pytest_gameeval.engine.game import Game, Seat, Turn
from pytest_gameeval.engine.options import GameOptions
from pytest_gameeval.engine.runner import play
from pytest_gameeval.players.scripted import ReplayPlayer


def _number(text: str) -> int:
    if not text.strip().isdigit():
        raise ParseError("say a number")
    return int(text)


class ProbedCounting(Game):
    """A toy game: A says a number, is probed privately (possibly twice at once), says another."""

    name = "probed-counting"

    def __init__(self, seats: list[Seat], rng: random.Random, options: dict[str, Any]):
        super().__init__(seats, rng, options)
        self.step = 0
        self.probes: dict[str, Any] = {}

    def system_prompt(self, seat: str) -> str:
        return f"You are {seat}."

    def pending(self) -> list[Turn]:
        if self.step == 1:  # two probes asked at once: their events interleave in the log
            return [Turn(s, "probe", f"PROBE for {s}: how sure are you?", _number, retries=1, record_only=True)
                    for s in ("A", "B") if s not in self.probes]
        return [Turn("A", "move", "MOVE: say a number", _number)]

    def apply(self, turn: Turn, text: str, action: Any) -> None:
        if turn.record_only:
            self.probes[turn.seat] = action
            self.act(turn.seat, "probe answer", answer=action)
            if len(self.probes) == 2:
                self.step += 1
            return
        self.say("A", text)
        self.step += 1
        if self.step == 3:
            self.finish("done")

    def forfeit(self, turn: Turn, kind: str, detail: str) -> None:
        self.apply(turn, "", None) if turn.record_only else self.finish("forfeit")


def _play() -> tuple[Any, dict[str, ReplayPlayer]]:
    players = {
        # A: a move, an unreadable probe answer (re-prompted), a probe answer, a last move
        "A": ReplayPlayer(["1", "very sure", "7", "2"], label="A"),
        "B": ReplayPlayer(["9"], label="B"),
    }
    game = ProbedCounting([Seat("A", "player"), Seat("B", "player")], random.Random(0), GameOptions())
    record = asyncio.run(play(game, players, instance_id="toy", seed=0))
    return record, players


def test_probe_is_seen_while_answered_and_hidden_afterwards():
    record, players = _play()
    assert record.outcome["label"] == "done"
    retry = players["A"].prompts[2]  # the probe's second attempt sees its instruction and re-prompt
    assert retry.turn.action == "probe"
    assert "PROBE for A" in str(retry.messages) and "could not be read" in str(retry.messages)
    last_move = players["A"].prompts[-1]
    assert last_move.turn.action == "move"
    text = str(last_move.messages)
    assert "PROBE" not in text and "very sure" not in text and "could not be read" not in text
    assert "MOVE" in text  # ordinary turns stay in the history


def test_only_each_probe_own_events_are_marked():
    record, _ = _play()
    marked = [e for e in record.events if e.data.get("probe") == "probe"]
    # A: instruction, bad reply, failure, re-prompt, good reply; B: instruction, reply
    assert len(marked) == 7
    assert all(e.to == REFEREE_ONLY for e in marked)
    assert {e.speaker for e in marked if e.kind == "reply"} == {"A", "B"}
    answers = [e.data["answer"] for e in record.events if e.kind == "action"]
    assert sorted(answers) == [7, 9]  # the games' own result events are not hidden probe events
    assert record.failures["A"]["format"] == 1  # a probe's format error still counts for the seat
