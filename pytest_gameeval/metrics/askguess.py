"""Ask-Guess metrics (GameEval §3.1): outcome rates, rounds of successful games, per word."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.metrics.cluster import clustered_mean
from pytest_gameeval.metrics.stats import mean, outcome_rates

OUTCOMES = ("ST", "EE", "RLE", "AME", "CE")


def score(record: GameRecord) -> dict[str, float]:
    values: dict[str, float] = {label: float(record.label == label) for label in OUTCOMES}
    values["rounds"] = float(record.outcome["details"]["rounds"])
    values["rounds_st"] = values["rounds"] if record.label == "ST" else float("nan")  # mean over ST games only
    values["missed_guesses"] = float(record.outcome["details"]["missed_guesses"])
    return values


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    labels = [r.label for r in records]
    per_word: dict[str, list[str]] = defaultdict(list)
    for r in records:
        per_word[r.outcome["details"]["word"]].append(r.label)
    return {
        "games": len(records),
        "rates": outcome_rates(labels, OUTCOMES),
        "mean_rounds_st": mean([r.outcome["details"]["rounds"] for r in records if r.label == "ST"]),
        "missed_guesses_per_game": mean([r.outcome["details"]["missed_guesses"] for r in records]),
        # games of one word (several epochs) are not independent: resample words, not games
        "st_clustered_by_word": clustered_mean([float(r.label == "ST") for r in records], [r.outcome["details"]["word"] for r in records]),
        "per_word": {w: {c: ls.count(c) for c in OUTCOMES if ls.count(c)} | {"n": len(ls)} for w, ls in sorted(per_word.items())},
    }
