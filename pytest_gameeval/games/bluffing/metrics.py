"""Bluffing metrics: GameArena's outcome and retrospective metrics (games/arena/metrics.py) over
Bluffing's outcomes: the truth-level metrics of its belief probe. Pure functions over records."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.arena import metrics as arena
from pytest_gameeval.games.bluffing.rules import OUTCOMES

MEAN_KEYS = arena.BELIEF_KEYS
HIGHER_IS_BETTER = {"win": True, "lose": False, "no_verdict": False, "CE": False, **arena.BELIEF_DIRECTIONS}


def score(record: GameRecord) -> dict[str, float]:
    return arena.score(record, OUTCOMES)


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    return arena.summarize(records, OUTCOMES)
