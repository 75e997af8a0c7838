"""Bradley–Terry ratings from pairwise results, by maximum likelihood, with bootstrap CIs.

Model: P(i beats j) = 1 / (1 + exp(-(s_i - s_j))). Strengths s are fitted by maximising the
log-likelihood with scipy.optimize (L-BFGS-B, analytic gradient), plus a weak Gaussian prior
(ridge `prior` * sum s^2) so that a model that won (or lost) every comparison still gets a
finite rating; ratings are centred to mean 0. Confidence intervals: scipy.stats.bootstrap
(percentile method) over *games*, since one game can yield several comparisons
(TofuKingdom: the winning camp's model beats each losing camp's model).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np
from scipy import optimize, stats

Comparison = tuple[str, str]  # (winner, loser)
DEFAULT_PRIOR = 0.01


def _wins_matrix(games: Sequence[Sequence[Comparison]], index: dict[str, int]) -> np.ndarray:
    wins = np.zeros((len(index), len(index)))
    for game in games:
        for winner, loser in game:
            if winner != loser:
                wins[index[winner], index[loser]] += 1
    return wins


def _fit(wins: np.ndarray, prior: float) -> np.ndarray:
    n = wins.shape[0]

    def objective(s: np.ndarray) -> tuple[float, np.ndarray]:
        diff = s[:, None] - s[None, :]  # s_i - s_j
        # -log sigmoid(d) = log(1 + exp(-d)), computed stably
        nll = float(np.sum(wins * np.logaddexp(0.0, -diff))) + prior * float(s @ s)
        p_loss = 1.0 / (1.0 + np.exp(diff))  # 1 - sigmoid(d)
        g = wins * p_loss
        grad = -g.sum(axis=1) + g.sum(axis=0) + 2 * prior * s
        return nll, grad

    result = optimize.minimize(objective, np.zeros(n), jac=True, method="L-BFGS-B")
    s = result.x
    return s - s.mean()


def bradley_terry(
    games: Sequence[Sequence[Comparison]],
    models: Sequence[str] | None = None,
    *,
    prior: float = DEFAULT_PRIOR,
    n_resamples: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Ratings (log-strengths, mean 0) with bootstrap intervals, from games of comparisons."""
    names = sorted(set(models or []) | {m for g in games for c in g for m in c})
    index = {m: i for i, m in enumerate(names)}
    games = [list(g) for g in games]
    if not names:
        return {"method": "bradley-terry", "ratings": {}, "games": 0, "comparisons": 0}
    point = _fit(_wins_matrix(games, index), prior)
    ci_low = ci_high = [None] * len(names)
    informative = [g for g in games if g]
    if len(informative) >= 2 and len(names) >= 2 and n_resamples > 0:

        def statistic(idx: np.ndarray) -> np.ndarray:
            return _fit(_wins_matrix([informative[int(i)] for i in idx], index), prior)

        with warnings.catch_warnings():  # identical resamples (e.g. one-sided results) are expected
            warnings.simplefilter("ignore", stats.DegenerateDataWarning)
            res = stats.bootstrap(
                (np.arange(len(informative)),), statistic, vectorized=False, paired=False,
                n_resamples=n_resamples, confidence_level=confidence, method="percentile",
                rng=np.random.default_rng(seed),
            )
        ci_low = [float(x) for x in np.atleast_1d(res.confidence_interval.low)]
        ci_high = [float(x) for x in np.atleast_1d(res.confidence_interval.high)]
    ratings = {
        m: {
            "rating": float(point[i]),
            "ci": [ci_low[i], ci_high[i]],
            # the chance of beating a model of average (zero) rating
            "p_beat_average": 1.0 / (1.0 + math.exp(-float(point[i]))),
        }
        for m, i in index.items()
    }
    result = {
        "method": "bradley-terry (maximum likelihood, ridge prior, percentile bootstrap over games)",
        "prior": prior, "n_resamples": n_resamples, "confidence": confidence, "seed": seed,
        "games": len(games), "comparisons": sum(len(g) for g in games),
        "ranking": sorted(names, key=lambda m: -ratings[m]["rating"]),
        "ratings": ratings,
    }
    result["tiers"] = tiers(result)
    return result


def tiers(ratings: dict[str, Any]) -> list[list[str]]:
    """Models grouped into tiers that the intervals can tell apart, best tier first.

    Walking down the ratings, a model opens a new tier only when its whole interval lies below
    the interval of every model in the current tier; otherwise it is tied with them (chained
    overlaps stay tied: the intervals cannot order them). Without intervals (too few games) or
    with equal ratings nothing is ordered. A ranking printed from tiers never claims more than
    the bootstrap shows."""
    entries = ratings.get("ratings", {})
    names = sorted(entries, key=lambda m: (-entries[m]["rating"], m))
    out: list[list[str]] = []
    floor = None  # lowest lower bound in the current tier
    for m in names:
        low, high = entries[m]["ci"]
        separated = out and floor is not None and high is not None and high < floor
        if not out or separated:
            out.append([m])
            floor = low
        else:
            out[-1].append(m)
            floor = None if low is None or floor is None else min(floor, low)
    return out


def ranking_text(groups: list[list[str]]) -> str:
    """"a > b = c": '>' only between tiers the intervals separate, '=' inside a tier."""
    return " > ".join(" = ".join(group) for group in groups)


def win_probability(ratings: dict[str, Any], a: str, b: str) -> float:
    """P(a beats b) under fitted ratings."""
    d = ratings["ratings"][a]["rating"] - ratings["ratings"][b]["rating"]
    return 1.0 / (1.0 + math.exp(-d))
