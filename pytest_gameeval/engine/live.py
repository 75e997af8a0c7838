"""The games being played in this process, for progress lines: how far each has got.

The runner registers a game while it plays it (its round, the turns asked so far and when the
current ones were asked); a progress line reads them. Reading is racy by design: a line shows a
snapshot, never blocks a game. A turn whose reply has been awaited for WAITING_SHOWN seconds or
more says so, counting up: a model that does not answer (a server down, a call retried without
end) shows as a growing wait, not as the same line for minutes; a call being retried says why
("429 rate limited, retry 3 of 5"), noted by the model player through `note_retry`."""

from __future__ import annotations

import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable

from pytest_gameeval.engine.game import Game

SHOWN = 4  # games in play a progress line names; the rest are counted
WAITING_SHOWN = 30.0  # seconds a turn's reply is awaited before a progress line says so


@dataclass
class LiveGame:
    case: str
    game: Game
    turns: int = 0
    asked_at: float | None = None  # time.monotonic() when the current turns were asked
    waiting: str | None = None  # why a reply is late: the last retry of a current turn's call
    retries: int = 0  # retries of the current turns' calls

    def asked(self, turns: int) -> None:
        self.turns, self.asked_at, self.waiting, self.retries = turns, time.monotonic(), None, 0

    def where(self, now: float | None = None) -> str:
        at = f"{self.case} round {self.game.round}, turn {self.turns}"
        waited = (now or time.monotonic()) - self.asked_at if self.asked_at is not None else 0.0
        why = f"; {self.waiting}" if self.waiting else ""
        return f"{at} (reply awaited {waited:.0f} s{why})" if waited >= WAITING_SHOWN or why else at


_lock = threading.Lock()
_live: dict[int, LiveGame] = {}
_playing: ContextVar[LiveGame | None] = ContextVar("gameeval_live_game", default=None)  # this task's game


def register(case: str, game: Game) -> LiveGame:
    entry = LiveGame(case, game)
    with _lock:
        _live[id(entry)] = entry
    _playing.set(entry)  # the game's turns (tasks of this one) inherit it
    return entry


def unregister(entry: LiveGame) -> None:
    with _lock:
        _live.pop(id(entry), None)
    if _playing.get() is entry:
        _playing.set(None)


def note_retry(describe: Callable[[int], str]) -> None:
    """A call of the current game is being retried: `describe(retry number)` says why (called from
    inside the model call, whose task belongs to the game)."""
    entry = _playing.get()
    if entry is not None:
        entry.retries += 1
        entry.waiting = describe(entry.retries)


def in_play(game_name: str) -> str:
    """'apple round 3, turn 7; ...' for the games of `game_name` being played, or ''."""
    with _lock:
        entries = [e for e in _live.values() if e.game.name == game_name]
    shown = "; ".join(e.where() for e in entries[:SHOWN])
    return shown + (f"; +{len(entries) - SHOWN} more" if len(entries) > SHOWN else "")
