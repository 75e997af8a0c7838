"""Agreement between our model ranking and an external leaderboard.

- Kendall's tau-b over the models both rankings contain (scipy.stats.kendalltau), with the
  one-sided p-value for positive agreement (alternative="greater"; exact for small n without
  ties). Beside it, GameArena's (App. D) normal approximation z = tau / sqrt(2 / (n(n-1))) and
  its one-tailed p, so the paper's significance marks can be reproduced; for n < 10 it is
  much smaller than the exact p (tau 0.6, n 5: 0.029 against 0.117).
- Rank-biased overlap, RBO (Webber, Moffat & Zobel 2010), extrapolated form for finite lists of
  possibly different lengths and items (their eq. 32); persistence p = 0.9 by default (top-
  weighted: the first 10 ranks carry about 86% of the weight). Its p-value is a permutation
  test: the external ranking's order is shuffled `permutations` times (seeded) and
  p = (1 + #{RBO_perm >= RBO_observed}) / (permutations + 1).

Input files (JSON), either a ranking or scores:
  ["model-a", "model-b", ...]                         best first
  {"model-a": 0.71, "model-b": 0.64}                  scores, higher is better
  {"ranking": [...]} or {"scores": {...}, "higher_is_better": false}
Tied scores keep the file's order in the RBO ranking (Kendall's tau-b accounts for ties).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from scipy import stats

from pytest_gameeval.engine.errors import GameEvalError

DEFAULT_P = 0.9
DEFAULT_PERMUTATIONS = 2000


class Ranking:
    """Models best first, with a numeric score per model (higher = better)."""

    def __init__(self, order: list[str], scores: dict[str, float]):
        self.order = order
        self.scores = scores


def ranking_from_json(data: Any, source: str = "ranking", higher_is_better: bool | None = None) -> Ranking:
    if isinstance(data, dict) and ("ranking" in data or "scores" in data):
        if higher_is_better is None:
            higher_is_better = data.get("higher_is_better", True)
        data = data.get("ranking", data.get("scores"))
    higher_is_better = True if higher_is_better is None else higher_is_better
    if isinstance(data, list):
        if not data or not all(isinstance(x, str) for x in data):
            raise GameEvalError(f"{source}: a ranking must be a non-empty list of model names")
        if len(set(data)) != len(data):
            raise GameEvalError(f"{source}: a model appears twice in the ranking")
        return Ranking(list(data), {m: float(len(data) - i) for i, m in enumerate(data)})
    if isinstance(data, dict) and data:
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in data.values()):
            raise GameEvalError(f"{source}: scores must be numbers")
        sign = 1.0 if higher_is_better else -1.0
        scores = {m: sign * float(v) for m, v in data.items()}
        order = sorted(scores, key=lambda m: -scores[m])  # stable: ties keep the file's order
        return Ranking(order, scores)
    raise GameEvalError(f"{source}: expected a list of models (best first) or an object of scores")


def load_ranking(path: str | Path, higher_is_better: bool | None = None) -> Ranking:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise GameEvalError(f"{path}: cannot read ({e.strerror or e})") from None
    except json.JSONDecodeError as e:
        raise GameEvalError(f"{path}:{e.lineno}: malformed JSON ({e.msg})") from None
    return ranking_from_json(data, str(path), higher_is_better)


def kendall(ours: Ranking, external: Ranking) -> dict[str, Any]:
    common = [m for m in ours.order if m in external.scores]
    if len(common) < 2:
        return {
            "tau": None,
            "p_one_sided": None,
            "n": len(common),
            "alternative": "greater",
            **paper_z_test(None, len(common)),
        }
    x = [ours.scores[m] for m in common]
    y = [external.scores[m] for m in common]
    result = stats.kendalltau(x, y, alternative="greater")
    tau = None if np.isnan(result.statistic) else float(result.statistic)
    p = None if np.isnan(result.pvalue) else float(result.pvalue)
    return {"tau": tau, "p_one_sided": p, "n": len(common), "alternative": "greater", **paper_z_test(tau, len(common))}


def paper_z_test(tau: float | None, n: int) -> dict[str, float | None]:
    """GameArena App. D: z = tau / sqrt(2 / (n(n-1))), one-tailed p from the standard normal."""
    if tau is None or n < 2:
        return {"z_paper": None, "p_one_sided_z_paper": None}
    z = tau / float(np.sqrt(2 / (n * (n - 1))))
    return {"z_paper": z, "p_one_sided_z_paper": float(stats.norm.sf(z))}


def rbo(s: Sequence[str], t: Sequence[str], p: float = DEFAULT_P) -> float:
    """Extrapolated rank-biased overlap of two rankings without duplicates (Webber et al. eq. 32)."""
    if not 0 < p < 1:
        raise GameEvalError(f"RBO persistence p={p} must lie strictly between 0 and 1")
    short, long_ = (list(s), list(t)) if len(s) <= len(t) else (list(t), list(s))
    n_s, n_l = len(short), len(long_)
    if n_s == 0:
        return 0.0
    seen_s: set[str] = set()
    seen_l: set[str] = set()
    overlap = 0  # X_d: items common to both prefixes of depth d (short list capped at n_s)
    x = [0] * (n_l + 1)
    for d in range(1, n_l + 1):
        item_l = long_[d - 1]
        seen_l.add(item_l)
        if item_l in seen_s:
            overlap += 1
        if d <= n_s:
            item_s = short[d - 1]
            seen_s.add(item_s)
            if item_s in seen_l:  # includes item_l, so a shared item at depth d counts once
                overlap += 1
        x[d] = overlap
    weighted = sum(x[d] / d * p**d for d in range(1, n_l + 1))
    # beyond the short list's end its unseen items are assumed to agree at the observed rate
    tail = sum(x[n_s] * (d - n_s) / (n_s * d) * p**d for d in range(n_s + 1, n_l + 1))
    extrapolated = ((x[n_l] - x[n_s]) / n_l + x[n_s] / n_s) * p**n_l
    return (1 - p) / p * (weighted + tail) + extrapolated


def rbo_test(ours: Sequence[str], external: Sequence[str], p: float = DEFAULT_P,
             permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0) -> dict[str, Any]:
    """RBO with a permutation-test p-value (the external order shuffled, seeded)."""
    if permutations < 1:
        raise GameEvalError("permutations must be at least 1")
    observed = rbo(ours, external, p)
    rng = np.random.default_rng(seed)
    ext = list(external)
    at_least = 0
    for _ in range(permutations):
        shuffled = [ext[i] for i in rng.permutation(len(ext))]
        if rbo(ours, shuffled, p) >= observed - 1e-12:
            at_least += 1
    return {"value": observed, "p": p, "permutations": permutations, "seed": seed,
            "p_value": (1 + at_least) / (permutations + 1)}


def compare(ours: Ranking, external: Ranking, p: float = DEFAULT_P,
            permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0) -> dict[str, Any]:
    return {
        "n_ours": len(ours.order),
        "n_external": len(external.order),
        "common": [m for m in ours.order if m in external.scores],
        "only_ours": [m for m in ours.order if m not in external.scores],
        "only_external": [m for m in external.order if m not in ours.scores],
        "kendall": kendall(ours, external),
        "rbo": rbo_test(ours.order, external.order, p, permutations, seed),
    }
