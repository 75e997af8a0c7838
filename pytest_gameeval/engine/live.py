"""The games being played in this process, for progress lines: how far each has got.

The runner registers a game while it plays it (its round and the turns asked so far); a progress
line reads them. Reading is racy by design: a line shows a snapshot, never blocks a game."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from pytest_gameeval.engine.game import Game

SHOWN = 4  # games in play a progress line names; the rest are counted


@dataclass
class LiveGame:
    case: str
    game: Game
    turns: int = 0

    def where(self) -> str:
        return f"{self.case} round {self.game.round}, turn {self.turns}"


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
