"""Statistics shared by every game's metrics: intervals from scipy, never hand-rolled."""

from __future__ import annotations

import math
from typing import Any, Sequence

from scipy import stats

CONFIDENCE = 0.95


def rate(k: int, n: int, confidence: float = CONFIDENCE) -> dict[str, Any]:
    """A proportion with its Wilson score interval."""
    if n == 0:
        return {"value": None, "ci": [None, None], "k": 0, "n": 0, "method": "wilson"}
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    return {"value": k / n, "ci": [float(ci.low), float(ci.high)], "k": k, "n": n, "method": "wilson"}


def mean(values: Sequence[float], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """A mean with its Student-t interval (degenerate intervals for n < 2 or zero spread)."""
    n = len(values)
    if n == 0:
        return {"value": None, "ci": [None, None], "n": 0, "method": "t"}
    m = sum(values) / n
    if n < 2:
        return {"value": m, "ci": [None, None], "n": 1, "method": "t"}
    sem = stats.sem(values)
    if sem == 0 or math.isnan(sem):
        return {"value": m, "ci": [m, m], "n": n, "method": "t"}
    low, high = stats.t.interval(confidence, n - 1, loc=m, scale=sem)
    return {"value": m, "ci": [float(low), float(high)], "n": n, "method": "t"}


def outcome_rates(labels: Sequence[str], classes: Sequence[str]) -> dict[str, dict[str, Any]]:
    n = len(labels)
    return {c: rate(sum(1 for x in labels if x == c), n) for c in classes}
