"""Intervals for rates and means when several games share a word (or pair): resample whole
clusters, not games, so the games of one word are not counted as independent evidence.

The statistic is the pooled ratio sum(values) / sum(games) over the resampled clusters, and
scipy's bootstrap (BCa, paired over clusters) gives the interval, seeded so reports repeat.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Hashable, Sequence

import numpy as np
from scipy import stats

from pytest_gameeval.metrics.stats import CONFIDENCE

RESAMPLES = 2000  # enough for a 95% interval; a few milliseconds on clusters of this size


def clustered_mean(values: Sequence[float], clusters: Sequence[Hashable], confidence: float = CONFIDENCE,
                   seed: int = 0) -> dict[str, Any]:
    """Mean of per-game values (0/1 for a rate) with a cluster bootstrap interval."""
    if len(values) != len(clusters):
        raise ValueError("one cluster per value")
    totals: dict[Hashable, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for v, c in zip(values, clusters):
        totals[c][0] += float(v)
        totals[c][1] += 1.0
    n = len(values)
    out = {"n": n, "clusters": len(totals), "method": "cluster_bootstrap"}
    if n == 0:
        return out | {"value": None, "ci": [None, None]}
    sums = np.array([t[0] for t in totals.values()])
    counts = np.array([t[1] for t in totals.values()])
    value = float(sums.sum() / counts.sum())
    if len(totals) < 2:  # one word says nothing about the next word
        return out | {"value": value, "ci": [None, None]}
    if np.allclose(sums / counts, value):  # every cluster agrees: nothing to resample
        return out | {"value": value, "ci": [value, value]}
    res = stats.bootstrap((sums, counts), lambda s, c, axis=-1: s.sum(axis=axis) / c.sum(axis=axis), paired=True,
                          vectorized=True, n_resamples=RESAMPLES, confidence_level=confidence,
                          method="percentile", random_state=np.random.default_rng(seed))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return out | {"value": value, "ci": [low, high]}
