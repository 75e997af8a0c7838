"""SpyGPT metrics (Liang et al. 2023): per mode, the judge's average score of the target and of
the distractors, with Student-t intervals.

Aggressive mode wants the target high and the distractors low; conservative mode the opposite.
The unit is one game (one description): a game's distractor score is the mean of its parsed
distractor ratings, so the three ratings of one description are not counted as independent.
Unparsed judge replies are counted and left out of every mean (never scored as a number).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.spygpt.rules import DESCRIBER, MODES, OUTCOMES
from pytest_gameeval.metrics import headline as hl
from pytest_gameeval.metrics.stats import mean, outcome_rates, rate

NAN = float("nan")

# the direction of improvement of each gated score key (True: higher is better)
HIGHER_IS_BETTER = {
    "aggressive_target": True, "aggressive_distractor": False, "aggressive_margin": True,
    "conservative_target": False, "conservative_distractor": True, "conservative_margin": False,
    "no_description": False, **hl.DIRECTIONS,
}


def distractor_mean(details: dict[str, Any]) -> float:
    parsed = [v for v in details["distractor_scores"].values() if v is not None]
    return sum(parsed) / len(parsed) if parsed else NAN


def target_score(details: dict[str, Any]) -> float:
    v = details["target_score"]
    return NAN if v is None else float(v)


def self_judged(record: GameRecord) -> bool:
    """True when the judge seats were played by the describer's own model."""
    describer = next(s["model"] for s in record.seats if s["role"] == "describer")
    return any(s["model"] == describer for s in record.seats if s["role"] == "judge")


def score(record: GameRecord) -> dict[str, float]:
    d = record.outcome["details"]
    values = {label: float(record.label == label) for label in OUTCOMES}
    t, dm = target_score(d), distractor_mean(d)
    for mode in MODES:
        mine = d["mode"] == mode
        values[f"{mode}_target"] = t if mine else NAN
        values[f"{mode}_distractor"] = dm if mine else NAN
        values[f"{mode}_margin"] = (t - dm) if mine else NAN  # NaN propagates when either is missing
    values["unparsed_judgements"] = float(d["unparsed"])
    values["description_words"] = float(d["description_words"]) if d["description_words"] is not None else NAN
    values.update(headline(record))
    return values


def headline(record: GameRecord) -> dict[str, float]:
    """played: the describer gave a valid description (no `no_description`, no forfeit).
    quality: the judges' target-vs-distractor margin (ratings 1-5, so -4..4) scaled to [0, 1],
    turned by the mode's goal: aggressive wants the target rated above the distractors
    ((margin + 4) / 8), conservative below them ((4 - margin) / 8). NaN when no judge's rating
    parsed (the judges' failure says nothing about the describer)."""
    if not hl.played(record, [DESCRIBER], aborts=("no_description",)):
        return hl.scores_of(record, [DESCRIBER], False, hl.NAN)
    d = record.outcome["details"]
    margin = target_score(d) - distractor_mean(d)
    if not math.isfinite(margin):
        return hl.scores_of(record, [DESCRIBER], True, hl.NAN)
    return hl.scores_of(record, [DESCRIBER], True, (margin + 4) / 8 if d["mode"] == "aggressive" else (4 - margin) / 8)


def _finite(values: list[float]) -> list[float]:
    return [v for v in values if not math.isnan(v)]


def summarize_mode(records: list[GameRecord]) -> dict[str, Any]:
    judged = [r for r in records if r.label == "judged"]
    targets = _finite([target_score(r.outcome["details"]) for r in judged])
    distractors = _finite([distractor_mean(r.outcome["details"]) for r in judged])
    margins = _finite([target_score(r.outcome["details"]) - distractor_mean(r.outcome["details"]) for r in judged])
    judgements = sum(1 + len(r.outcome["details"]["distractors"]) for r in judged)
    unparsed = sum(r.outcome["details"]["unparsed"] for r in judged)
    return {
        "games": len(records),
        "outcomes": outcome_rates([r.label for r in records], OUTCOMES),
        "target_score": mean(targets),
        "distractor_score": mean(distractors),
        "target_minus_distractor": mean(margins),
        "unparsed_judgements": rate(unparsed, judgements),
        "self_judged_games": sum(1 for r in records if self_judged(r)),
    }


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    by_mode: dict[str, list[GameRecord]] = defaultdict(list)
    for r in records:
        by_mode[r.outcome["details"]["mode"]].append(r)
    return {
        "games": len(records),
        "modes": {mode: summarize_mode(rs) for mode, rs in sorted(by_mode.items())},
        "wanted": {"aggressive": "target high, distractors low", "conservative": "target low, distractors high"},
    }
