"""Taboo metrics: GameArena's outcome and retrospective metrics (games/arena/metrics.py) over
Taboo's outcomes (`guessed` and `survived` are wins) and the ranked-list metrics of its
retrospective probe. Pure functions over records."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.arena import metrics as arena
from pytest_gameeval.games.taboo.prompts import GUESSER
from pytest_gameeval.games.taboo.rules import OUTCOMES, WINS
from pytest_gameeval.metrics import headline as hl

MEAN_KEYS = arena.RANKED_KEYS + hl.KEYS
HIGHER_IS_BETTER = {"win": True, "guessed": True, "survived": True, "said_word": False, "wrong_guess": False,
                    "forfeit": False, "CE": False, **arena.RANKED_DIRECTIONS, **hl.DIRECTIONS}


def score(record: GameRecord) -> dict[str, float]:
    return {**arena.score(record, OUTCOMES, WINS), **headline(record)}


def headline(record: GameRecord) -> dict[str, float]:
    """played: the guesser never forfeited a turn and no call failed (a `forfeit` ending is not
    played). quality: guessing the word scores by speed (1 in round 1, 0.5 in the last); surviving
    every round without saying it (a defence, not an identification) 0.5; saying the word or a
    wrong guess earns at most 0.25, the share of the rounds survived before it."""
    if not hl.played(record, [GUESSER], aborts=("forfeit",)):
        return hl.scores_of(record, [GUESSER], False, hl.NAN)
    details = record.outcome["details"]
    max_rounds = details.get("max_rounds") or record.options.get("max_rounds", 5)
    if record.label == "guessed":
        return hl.scores_of(record, [GUESSER], True, hl.speed(details["rounds"], max_rounds))
    if record.label == "survived":
        return hl.scores_of(record, [GUESSER], True, 0.5)
    return hl.scores_of(record, [GUESSER], True, hl.FAILURE_CREDIT * (details["rounds"] - 1) / max_rounds)


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    return arena.summarize(records, OUTCOMES, WINS)
