"""Distribution-free bounds on the mean of a bounded value: what a verdict of "same" rests on.

A t or Wald interval measures only the spread it has seen. When most paired differences are
exactly 0 (a deterministic model replays its games, so identical first pairs are the normal case)
it shrinks to nothing, although a regression that hits one game in ten is missed by 3 games with
probability 0.9^3 = 0.73. An honest bound on the mean of values known to lie in [lo, hi] allows
for what has not been seen yet. Gaffke's bound (Gaffke 2005; Learned-Miller & Thomas 2019, who
found its coverage exact in every case they tried, and checked here by
benchmarks/verdict_rates.py): the upper 1 - a bound is the 1 - a quantile of
sum_i w_i y_i over the n values plus one more value at the bound `hi`, with weights
w ~ Dirichlet(1, ..., 1) (n + 1 of them), i.e. a Bayesian bootstrap with one extra observation
at the worst value. The lower bound is the mirror image (the upper bound of -y).

When every value equals v the weighted sum is v + (hi - v) * w, w ~ Beta(1, n), so the bound is
exact and closed: v + (hi - v) * (1 - a^(1/n)) -- the Clopper-Pearson bound of 0 events in n.
Hence, with values in [-1, 1] (a paired difference of [0, 1] values) all equal to 0, the
interval fits inside +-T only when 1 - a^(1/n) < T: n > ln(a) / ln(1 - T) (`min_games_same`). No
valid method can do better: a regression of -1 in a share T of the games gives n zero
differences with probability (1 - T)^n.

Otherwise the quantile is estimated from a fixed set of draws per n (seeded by n, so the same
data always gives the same bound and swapping the runs mirrors it exactly).
"""

from __future__ import annotations

import importlib
import math
from functools import lru_cache
from typing import Any, Sequence


class _AtFirstUse:
    """A module imported when one of its names is first used, not when this module is: the pytest
    plugin imports the verdicts before its first game, and scipy alone costs ~0.5 s of that start-up
    (docs/performance.md, issue 62); a run needs it only for its report."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)


np: Any = _AtFirstUse("numpy")
stats: Any = _AtFirstUse("scipy.stats")

DRAWS = 10_000  # Monte Carlo draws of the weights (fewer for very large n, to bound memory)


@lru_cache(maxsize=64)
def _weights(n: int) -> np.ndarray:
    draws = max(2_000, min(DRAWS, 2_000_000 // (n + 1)))
    return stats.dirichlet.rvs(np.ones(n + 1), size=draws, random_state=np.random.default_rng(n))


def _bound(values: Sequence[float], hi: float, a: float) -> float:
    """Gaffke's upper 1 - a bound on the mean of values that never exceed `hi`."""
    y = np.asarray(values, float)
    n = len(y)
    if n == 0 or a <= 0:
        return hi
    if np.ptp(y) == 0:
        return float(min(hi, y[0] + (hi - y[0]) * stats.beta.ppf(1 - a, 1, n)))
    sums = _weights(n) @ np.append(np.sort(y), hi)
    return float(min(hi, np.quantile(sums, 1 - a, method="higher")))


def upper(values: Sequence[float], hi: float, a: float) -> float:
    """Gaffke's upper 1 - a bound on the mean of values that never exceed `hi`."""
    return _bound(values, hi, a)


def lower(values: Sequence[float], lo: float, a: float) -> float:
    """Gaffke's lower 1 - a bound on the mean of values that are never below `lo`."""
    return -_bound([-v for v in values], -lo, a)


def mean_interval(values: Sequence[float], lo: float, hi: float, a: float) -> tuple[float, float]:
    """The mean of values in [lo, hi]: each end a one-sided bound at error a."""
    return lower(values, lo, a), upper(values, hi, a)


def difference_interval(
    old: Sequence[float], new: Sequence[float], lo: float, hi: float, a: float
) -> tuple[float, float]:
    """mean(new) - mean(old) of two independent samples in [lo, hi], from each sample's bounds at
    error a combined by square-and-add (MOVER: Newcombe's method 10 with Wilson's intervals is the
    same construction; Zou & Donner 2008). A bound of a sample all at `lo` is its Clopper-Pearson
    one, so two runs of games all alike need as many games as a paired run."""
    m_old, m_new = float(np.mean(old)), float(np.mean(new))
    lo_old, hi_old = mean_interval(old, lo, hi, a)
    lo_new, hi_new = mean_interval(new, lo, hi, a)
    change = m_new - m_old
    return (change - float(np.hypot(m_new - lo_new, hi_old - m_old)),
            change + float(np.hypot(hi_new - m_new, m_old - lo_old)))


def min_games_same(tolerance: float, a: float, width: float = 1.0) -> int:
    """The fewest paired games, all alike, whose difference interval (values in
    [-width, width], each end at error a) lies inside +-tolerance; no fewer can ever be "same"."""
    if tolerance >= width:
        return 1
    return math.floor(math.log(a) / math.log(1 - tolerance / width)) + 1
