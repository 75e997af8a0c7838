"""Akinator metrics: GameArena's outcome and retrospective metrics (games/arena/metrics.py) over
Akinator's outcomes, the ranked-list metrics of its retrospective probe and the judge's disparity.
Pure functions over records."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.akinator.prompts import QUESTIONER
from pytest_gameeval.games.akinator.rules import OUTCOMES
from pytest_gameeval.games.arena import metrics as arena
from pytest_gameeval.metrics import headline as hl

MEAN_KEYS = arena.RANKED_KEYS + ("disparity",) + hl.KEYS
HIGHER_IS_BETTER = {
    "win": True,
    "lose": False,
    "CE": False,
    "rounds_win": False,
    **arena.RANKED_DIRECTIONS,
    "disparity": False,
    **hl.DIRECTIONS,
}


def score(record: GameRecord) -> dict[str, float]:
    return {**arena.score(record, OUTCOMES), **headline(record)}


def headline(record: GameRecord) -> dict[str, float]:
    """played: the questioner never forfeited a turn and no call failed. quality: a win scores by
    its speed (1 at the first question, 0.5 at the last allowed); a lost played game earns at most
    0.25, the share of its questions that were distinct."""
    if not hl.played(record, [QUESTIONER]):
        return hl.scores_of(record, [QUESTIONER], False, hl.NAN)
    details = record.outcome["details"]
    if record.label == "win":
        return hl.scores_of(
            record, [QUESTIONER], True, hl.speed(details.get("rounds", 1), details.get("max_rounds", 20))
        )
    return hl.scores_of(record, [QUESTIONER], True, hl.FAILURE_CREDIT * hl.distinct_share(record, QUESTIONER))


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    return arena.summarize(records, OUTCOMES)
