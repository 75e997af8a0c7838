"""Bluffing metrics: GameArena's outcome and retrospective metrics (games/arena/metrics.py) over
Bluffing's outcomes: the truth-level metrics of its belief probe. Pure functions over records."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.arena import metrics as arena
from pytest_gameeval.games.bluffing.prompts import INTERROGATOR
from pytest_gameeval.games.bluffing.rules import OUTCOMES
from pytest_gameeval.metrics import headline as hl

MEAN_KEYS = arena.BELIEF_KEYS + hl.KEYS
HIGHER_IS_BETTER = {
    "win": True,
    "lose": False,
    "no_verdict": False,
    "CE": False,
    **arena.BELIEF_DIRECTIONS,
    **hl.DIRECTIONS,
}


def score(record: GameRecord) -> dict[str, float]:
    return {**arena.score(record, OUTCOMES), **headline(record)}


def headline(record: GameRecord) -> dict[str, float]:
    """played: the interrogator gave a verdict (no `no_verdict`, no forfeit, no failed call).
    quality: 1 for the correct verdict on the claim, 0 for the wrong one."""
    if not hl.played(record, [INTERROGATOR], aborts=("no_verdict",)):
        return hl.scores_of(record, [INTERROGATOR], False, hl.NAN)
    return hl.scores_of(record, [INTERROGATOR], True, float(record.label == "win"))


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    return arena.summarize(records, OUTCOMES)
