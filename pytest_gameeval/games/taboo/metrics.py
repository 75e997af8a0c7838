"""Taboo metrics: GameArena's outcome and retrospective metrics (games/arena/metrics.py) over
Taboo's outcomes (`guessed` and `survived` are wins) and the ranked-list metrics of its
retrospective probe. Pure functions over records."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.arena import metrics as arena
from pytest_gameeval.games.taboo.rules import OUTCOMES, WINS

MEAN_KEYS = arena.RANKED_KEYS
HIGHER_IS_BETTER = {"win": True, "guessed": True, "survived": True, "said_word": False, "wrong_guess": False,
                    "forfeit": False, "CE": False, **arena.RANKED_DIRECTIONS}


def score(record: GameRecord) -> dict[str, float]:
    return arena.score(record, OUTCOMES, WINS)


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    return arena.summarize(records, OUTCOMES, WINS)
