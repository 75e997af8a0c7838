"""Akinator metrics: GameArena's outcome and retrospective metrics (games/arena/metrics.py) over
Akinator's outcomes, the ranked-list metrics of its retrospective probe and the judge's disparity.
Pure functions over records."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.arena import metrics as arena
from pytest_gameeval.games.akinator.rules import OUTCOMES

MEAN_KEYS = arena.RANKED_KEYS + ("disparity",)
HIGHER_IS_BETTER = {"win": True, "lose": False, "CE": False, "rounds_win": False, **arena.RANKED_DIRECTIONS, "disparity": False}


def score(record: GameRecord) -> dict[str, float]:
    return arena.score(record, OUTCOMES)


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    return arena.summarize(records, OUTCOMES)
