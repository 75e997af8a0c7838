"""Comparing two runs metric by metric, and the sequential regression gate.

Every comparison works on per-game numbers that the game itself produced (`spec.score(record)`,
stored per case in the report): an outcome label is a 0/1 value per game (a *rate*), a mean key
is a number per game, NaN where undefined (a *mean*). Nothing here knows a game's rules.

- Rates: difference of proportions with Newcombe's hybrid score interval (built from scipy's
  Wilson intervals) and Fisher's exact test.
- Means: Welch's t interval and test (scipy.stats.ttest_ind with equal_var=False).

"Worse" needs a direction per metric (higher or lower is better). We orient every difference
so that a positive change is an improvement; a metric *regressed* when the whole one-sided
interval of the oriented change lies below -tolerance.

The gate is group-sequential: the new run's cases are played in `looks` batches; after each
batch every gated metric is tested. Error is spent over looks with the quadratic spending
function (look j of K gets alpha * (j^2 - (j-1)^2) / K^2) and combined with a union bound,
so the stated error rates are upper bounds whatever the correlation between looks:

- P(gate fails | no metric is worse than baseline by more than its tolerance) <= alpha
  (alpha is split evenly over the game's gated metrics: a family-wise bound per game);
- P(a metric stops early as "not regressed" | it is worse by more than its tolerance) <= beta.

A metric that reaches neither boundary by the last look is "inconclusive" and does not fail
the gate: the gate fails only when a regression is shown, or when the evidence is missing. A game
with no played game on either side fails (harness errors are not games); a game whose harness
errors left fewer played games than the looks used passes only if every metric was shown
"not regressed" on the games that were played.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

from scipy import stats

from pytest_gameeval.analysis.gate_config import GateConfig

RATE, MEAN = "rate", "mean"
REGRESSED, NOT_REGRESSED, INCONCLUSIVE, OPEN = "regressed", "not regressed", "inconclusive", "open"


# -- two-sample comparisons ----------------------------------------------------------------


def _wilson(k: int, n: int, confidence: float) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def rate_change(k_old: int, n_old: int, k_new: int, n_new: int, confidence: float = 0.95) -> dict[str, Any]:
    """new - old proportion, Newcombe's interval (method 10) and Fisher's two-sided p."""
    if n_old == 0 or n_new == 0:
        return {"kind": RATE, "old": None, "new": None, "change": None, "ci": [None, None], "p": None}
    p_old, p_new = k_old / n_old, k_new / n_new
    lo_old, hi_old = _wilson(k_old, n_old, confidence)
    lo_new, hi_new = _wilson(k_new, n_new, confidence)
    change = p_new - p_old
    low = change - math.sqrt((p_new - lo_new) ** 2 + (hi_old - p_old) ** 2)
    high = change + math.sqrt((hi_new - p_new) ** 2 + (p_old - lo_old) ** 2)
    p = stats.fisher_exact([[k_new, n_new - k_new], [k_old, n_old - k_old]]).pvalue
    return {"kind": RATE, "old": p_old, "new": p_new, "change": change, "ci": [low, high], "p": float(p),
            "n_old": n_old, "n_new": n_new, "k_old": k_old, "k_new": k_new}


def rate_worse_p(k_old: int, n_old: int, k_new: int, n_new: int, higher_is_better: bool) -> float:
    """Fisher's one-sided exact p for "the new rate is worse than the old one"."""
    alternative = "less" if higher_is_better else "greater"
    return float(stats.fisher_exact([[k_new, n_new - k_new], [k_old, n_old - k_old]], alternative=alternative).pvalue)


def mean_change(old: Sequence[float], new: Sequence[float], confidence: float = 0.95) -> dict[str, Any]:
    """new - old mean, Welch's interval and two-sided p (None when it is undefined)."""
    result: dict[str, Any] = {"kind": MEAN, "old": None, "new": None, "change": None, "ci": [None, None], "p": None,
                              "n_old": len(old), "n_new": len(new)}
    if old:
        result["old"] = sum(old) / len(old)
    if new:
        result["new"] = sum(new) / len(new)
    if old and new:
        result["change"] = result["new"] - result["old"]
    # Welch needs two values per side and some spread; a zero-spread sample gives an interval of
    # zero width, which would "prove" anything, so we report no interval rather than a false one.
    if len(old) < 2 or len(new) < 2:
        return result
    if min(old) == max(old) and min(new) == max(new):
        return result
    with warnings.catch_warnings():  # near-constant samples warn about precision; the interval is still right
        warnings.simplefilter("ignore", RuntimeWarning)
        test = stats.ttest_ind(new, old, equal_var=False)
        ci = test.confidence_interval(confidence_level=confidence)
    result["ci"] = [float(ci.low), float(ci.high)]
    result["p"] = float(test.pvalue)
    return result


def compare(kind: str, old: Sequence[float], new: Sequence[float], confidence: float = 0.95) -> dict[str, Any]:
    """Compare per-game values of one metric (0/1 values for a rate)."""
    if kind == RATE:
        return rate_change(int(sum(old)), len(old), int(sum(new)), len(new), confidence)
    return mean_change(list(old), list(new), confidence)


def oriented_bounds(change: dict[str, Any], higher_is_better: bool) -> tuple[float | None, float | None]:
    """The interval of the change turned so that positive means better."""
    low, high = change["ci"]
    if low is None or high is None:
        return None, None
    return (low, high) if higher_is_better else (-high, -low)


def judge(kind: str, old: Sequence[float], new: Sequence[float], higher_is_better: bool | None,
          tolerance: float, alpha: float, beta: float | None = None) -> dict[str, Any]:
    """One test of one metric: regressed / not regressed (only when beta is given) / open.

    Regressed: the one-sided (1 - alpha) upper bound of the oriented change is below -tolerance
    (and, for rates, Fisher's one-sided exact test also rejects at alpha).
    Not regressed: the one-sided (1 - beta) lower bound is above -tolerance.
    """
    result = compare(kind, old, new, confidence=1 - 2 * alpha)
    result["verdict"] = OPEN
    if higher_is_better is None:
        return result
    _, upper = oriented_bounds(result, higher_is_better)
    if upper is not None and upper < -tolerance:
        exact_ok = True
        if kind == RATE:
            p1 = rate_worse_p(result["k_old"], result["n_old"], result["k_new"], result["n_new"], higher_is_better)
            result["p_worse"] = p1
            exact_ok = p1 < alpha
        if exact_ok:
            result["verdict"] = REGRESSED
            return result
    if beta is not None:
        futility = compare(kind, old, new, confidence=1 - 2 * beta)
        lower, _ = oriented_bounds(futility, higher_is_better)
        if lower is not None and lower > -tolerance:
            result["verdict"] = NOT_REGRESSED
    return result


# -- the sequential gate ---------------------------------------------------------------------


def spent(total: float, look: int, looks: int) -> float:
    """Error spent at look `look` (1-based) of `looks`: quadratic spending, sums to `total`."""
    return total * (look**2 - (look - 1) ** 2) / looks**2


def look_ends(n_cases: int, looks: int) -> list[int]:
    """Cumulative case counts after each look (at most `looks`, at least one case each)."""
    looks = max(1, min(looks, n_cases))
    return sorted({math.ceil(n_cases * j / looks) for j in range(1, looks + 1)})


@dataclass
class GateMetric:
    name: str
    kind: str  # RATE or MEAN
    higher_is_better: bool
    tolerance: float


@dataclass
class GameGate:
    """The state of one game's sequential test."""

    game: str
    metrics: list[GateMetric]
    config: GateConfig
    n_cases: int
    looks_done: int = 0
    games_used: int = 0  # cases the looks used, harness errors included
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    games_played: int = 0  # of those, games that were played to a classified outcome
    baseline_played: int | None = None  # played games of this game in the baseline

    @property
    def ends(self) -> list[int]:
        return look_ends(self.n_cases, self.config.looks)

    @property
    def stopped(self) -> bool:
        if not self.verdicts:
            return False
        states = [v["verdict"] for v in self.verdicts.values()]
        return REGRESSED in states or all(s in (NOT_REGRESSED, INCONCLUSIVE) for s in states)

    @property
    def harness_errors(self) -> int:
        return self.games_used - self.games_played

    @property
    def reason(self) -> str:
        """Why the game fails ("" when it passes), on one line."""
        regressed = [m for m, v in self.verdicts.items() if v["verdict"] == REGRESSED]
        if regressed:
            return "regressed: " + ", ".join(regressed)
        if self.baseline_played == 0:
            return "the baseline has no played game of it"
        if self.games_played == 0:
            return f"no game was played ({self.harness_errors} harness errors)"
        decided = self.verdicts and all(v["verdict"] == NOT_REGRESSED for v in self.verdicts.values())
        if self.harness_errors and not decided:
            return (f"only {self.games_played} of {self.games_used} games were played ({self.harness_errors} harness errors): "
                    "too few to show no regression")
        return ""

    @property
    def failed(self) -> bool:
        return bool(self.reason)

    def look(self, baseline: dict[str, list[float]], new: dict[str, list[float]], games_used: int, last: bool,
             games_played: int | None = None) -> None:
        """Test every undecided metric after one more batch; `new` holds all values so far.
        `games_used` counts every case so far, `games_played` those played (default: all)."""
        self.looks_done += 1
        looks = len(self.ends)
        last = last or self.looks_done >= looks
        self.games_used = games_used
        self.games_played = games_used if games_played is None else games_played
        per_metric_alpha = self.config.alpha / max(1, len(self.metrics))
        per_metric_beta = self.config.beta / max(1, len(self.metrics))
        a = spent(per_metric_alpha, self.looks_done, looks)
        b = spent(per_metric_beta, self.looks_done, looks)
        for m in self.metrics:
            previous = self.verdicts.get(m.name)
            if previous and previous["verdict"] in (REGRESSED, NOT_REGRESSED):
                continue
            result = judge(m.kind, baseline.get(m.name, []), new.get(m.name, []), m.higher_is_better, m.tolerance, a, b)
            if result["verdict"] == OPEN and last:
                result["verdict"] = INCONCLUSIVE
            # games: what this verdict rests on (a metric decided at an earlier look keeps that look's count)
            result.update(look=self.looks_done, games=games_used, games_played=self.games_played,
                          alpha_spent=a, beta_spent=b, tolerance=m.tolerance,
                          direction="higher" if m.higher_is_better else "lower")
            self.verdicts[m.name] = result

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "verdict": "fail" if self.failed else "pass",
            "reason": self.reason,
            "games_used": self.games_used,
            "games_played": self.games_played,
            "harness_errors": self.harness_errors,
            "cases_available": self.n_cases,
            "looks_done": self.looks_done,
            "looks_planned": len(self.ends),
            "alpha": self.config.alpha,
            "beta": self.config.beta,
            "metrics": self.verdicts,
        }
