"""The games being played in this process, for progress lines: how far each has got.

The runner registers a game while it plays it (its round, the turns asked so far and when the
current ones were asked); a progress line reads them. Reading is racy by design: a line shows a
snapshot, never blocks a game. A turn whose reply has been awaited for WAITING_SHOWN seconds or
more says so, counting up: a model that does not answer (a server down, a call retried without
end) shows as a growing wait, not as the same line for minutes."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from pytest_gameeval.engine.game import Game

SHOWN = 4  # games in play a progress line names; the rest are counted
WAITING_SHOWN = 30.0  # seconds a turn's reply is awaited before a progress line says so


@dataclass
class LiveGame:
    case: str
    game: Game
    turns: int = 0
    asked_at: float | None = None  # time.monotonic() when the current turns were asked

    def asked(self, turns: int) -> None:
        self.turns, self.asked_at = turns, time.monotonic()

    def where(self, now: float | None = None) -> str:
        at = f"{self.case} round {self.game.round}, turn {self.turns}"
        waited = (now or time.monotonic()) - self.asked_at if self.asked_at is not None else 0.0
        return f"{at} (reply awaited {waited:.0f} s)" if waited >= WAITING_SHOWN else at


_lock = threading.Lock()
_live: dict[int, LiveGame] = {}


def register(case: str, game: Game) -> LiveGame:
    entry = LiveGame(case, game)
    with _lock:
        _live[id(entry)] = entry
    return entry


def unregister(entry: LiveGame) -> None:
    with _lock:
        _live.pop(id(entry), None)


def in_play(game_name: str) -> str:
    """'apple round 3, turn 7; ...' for the games of `game_name` being played, or ''."""
    with _lock:
        entries = [e for e in _live.values() if e.game.name == game_name]
    shown = "; ".join(e.where() for e in entries[:SHOWN])
    return shown + (f"; +{len(entries) - SHOWN} more" if len(entries) > SHOWN else "")
