"""Each tested metric's verdict for a pair of runs: the statistics the gate, `report diff` and
`gameeval compare` share, so the three never disagree. The game's one verdict from these is
analysis/verdicts/game.decide's (`judge` calls it).

Input: the per-case entries of two runs of one game (each `{"case", "seed", "status", "outcome",
"scores"}`, as the report stores them). Output: per tested metric the change new - old with its
interval and p, and its verdict:

- better / worse: the change is beyond +-tolerance in that direction at the level asked
  (the interval of the change lies wholly beyond the tolerance, and the test rejects "no change");
- same: the whole "same" interval (`ci_same`) lies within +-tolerance (two one-sided tests,
  TOST). For values in [0, 1] (every headline) it is a distribution-free bound (analysis/verdicts/bounds.py)
  that allows for differences not seen yet: n games played alike are "same" only from
  bounds.min_games_same(tolerance, beta) on (36 at tolerance 0.1 and beta 0.025, `report diff`'s
  default), never after 2 or 3;
- undecided: neither; too few games: fewer than two played games on a side;
- and for the game (game_verdict.decide): missing, when one side has no played game of it.

Paired where both runs played the same cases with the same seeds (case id and game seed match;
pair what pairs: each baseline case twins one new case, and the games without a twin are left
out when at least half of the new run's games have one): then the difference is taken case by
case, which removes the variation between cases:

- 0/1 values: exact McNemar test (scipy's binomtest over the discordant pairs) and Newcombe's
  score interval for a paired difference of proportions (method 10, from scipy's Wilson
  intervals, with Newcombe's continuity-corrected correlation);
- other values: paired t test and interval (scipy's ttest_rel); when every difference is the same
  the t interval is undefined, so only the sign test's p is given.

Otherwise independent: Fisher's exact test (0/1 values) or Welch's t test (others); the interval
of values in [0, 1] combines each run's Gaffke bounds by square-and-add (MOVER, the construction of
Newcombe's hybrid interval), others have Welch's (gate.rate_change / gate.mean_change give the
classic Newcombe and Welch intervals).

Mutually exclusive outcome labels are never tested one by one (when one goes up another must
go down, so one-sided tests of each fail any change in both directions): they are shown as a
breakdown and tested together, once, as evidence that never decides a verdict: Bowker's test of
symmetry over the paired label table, or a chi-square test of the old x new label counts.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

from pytest_gameeval.analysis.verdicts import bounds
from pytest_gameeval.analysis.verdicts.bounds import np, stats  # numpy and scipy load at first use

# the verdicts' names: what tests, benchmarks and tables import from here
from pytest_gameeval.analysis.verdicts.game import (
    BETTER,
    FAILING,
    MIN_GAMES,
    MISSING,
    SAME,
    TOO_FEW,
    UNDECIDED,
    VERDICTS,
    WORSE,
    GameVerdict,
    decide,
)

RATE, MEAN = "rate", "mean"
__all__ = [
    "BETTER",
    "FAILING",
    "MEAN",
    "MISSING",
    "MIN_GAMES",
    "RATE",
    "SAME",
    "TOO_FEW",
    "UNDECIDED",
    "VERDICTS",
    "WORSE",
    "compare_metric",
    "is_paired",
    "judge",
    "judge_game",
    "judge_metric",
    "mean_change",
    "outcome_breakdown",
    "paired_mean",
    "paired_rate",
    "pairs_of",
    "played",
    "rate_change",
    "same_interval",
]


# -- two-sample comparisons ----------------------------------------------------------------


def _wilson(k: int, n: int, confidence: float) -> tuple[float, float]:
    from pytest_gameeval.metrics.stats import rate  # here: it imports scipy

    low, high = rate(k, n, confidence)["ci"]
    return low, high


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



# -- pairing -------------------------------------------------------------------------------


def _key(case: dict[str, Any]) -> tuple[str, Any]:
    return (case.get("case") or case.get("id"), case.get("seed"))


def played(cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in cases if c.get("status") == "played" and isinstance(c.get("scores"), dict)]


def pairs_of(
    old: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Played cases of both runs with the same case id and the same game seed, in the new run's
    order; each baseline case is the twin of one new case at most (two new cases with the same
    key take two baseline cases, or the second stays unpaired)."""
    twins: dict[tuple[str, Any], list[dict[str, Any]]] = {}
    for c in played(old):
        if c.get("seed") is not None:
            twins.setdefault(_key(c), []).append(c)
    return [(twins[_key(c)].pop(0), c) for c in played(new) if twins.get(_key(c))]


def is_paired(old: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]) -> bool:
    """Pair what pairs: paired when at least MIN_GAMES and at least half of the new run's played
    games have a twin among the baseline's played games (a harness error on a few cases of either
    run leaves the rest paired); the games without a twin are then left out of the paired test
    (`unpaired` says how many)."""
    n_pairs = len(pairs_of(old, new))
    return n_pairs >= MIN_GAMES and 2 * n_pairs >= len(played(new))


# -- one metric ----------------------------------------------------------------------------


def _value(case: dict[str, Any], metric: str) -> float | None:
    x = case["scores"].get(metric)
    if isinstance(x, bool):
        x = float(x)
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else None


def _binary(values: Sequence[float]) -> bool:
    return all(v in (0.0, 1.0) for v in values)


def paired_rate(old: Sequence[float], new: Sequence[float], confidence: float) -> dict[str, Any]:
    """Paired 0/1 values: exact McNemar p and Newcombe's paired interval (method 10)."""
    n = len(old)
    a = sum(1 for o, x in zip(old, new) if o and x)
    b = sum(1 for o, x in zip(old, new) if not o and x)  # new won, old lost
    c = sum(1 for o, x in zip(old, new) if o and not x)
    d = n - a - b - c
    p_old, p_new = (a + c) / n, (a + b) / n
    change = p_new - p_old
    p = float(stats.binomtest(b, b + c, 0.5).pvalue) if b + c else 1.0
    lo_new, hi_new = _wilson(a + b, n, confidence)
    lo_old, hi_old = _wilson(a + c, n, confidence)
    denominator = (a + b) * (c + d) * (a + c) * (b + d)
    # Newcombe's continuity-corrected correlation: uncorrected, a table with no discordant pair
    # has phi = 1 and the interval collapses to [0, 0] (two games played alike "proved" no change)
    numerator = a * d - b * c
    numerator = numerator - n / 2 if numerator > n / 2 else min(numerator, 0)
    phi = numerator / math.sqrt(denominator) if denominator > 0 else 0.0
    dl_new, du_new, dl_old, du_old = p_new - lo_new, hi_new - p_new, p_old - lo_old, hi_old - p_old
    low = change - math.sqrt(max(0.0, dl_new**2 - 2 * phi * dl_new * du_old + du_old**2))
    high = change + math.sqrt(max(0.0, du_new**2 - 2 * phi * du_new * dl_old + dl_old**2))
    return {"kind": RATE, "old": p_old, "new": p_new, "change": change, "ci": [max(-1.0, low), min(1.0, high)], "p": p,
            "n_old": n, "n_new": n, "paired": True, "discordant": {"new_better": b, "old_better": c},
            "test": f"exact McNemar ({b} games only the new run won, {c} only the old), Newcombe's paired interval"}


def paired_mean(old: Sequence[float], new: Sequence[float], confidence: float) -> dict[str, Any]:
    """Paired numbers: paired t test and interval; the sign test when the differences do not vary."""
    n = len(old)
    diffs = np.asarray(new, float) - np.asarray(old, float)
    diffs[np.abs(diffs) < 1e-12] = 0.0  # 0.3 - 0.1 vs 0.5 - 0.3: the same difference
    result: dict[str, Any] = {"kind": MEAN, "old": float(np.mean(old)), "new": float(np.mean(new)),
                              "change": float(diffs.mean()), "ci": [None, None], "p": None, "n_old": n, "n_new": n,
                              "paired": True}
    if np.ptp(diffs) <= 1e-9 * max(1.0, float(np.abs(diffs).max())):  # equal but for float noise
        up, down = int((diffs > 0).sum()), int((diffs < 0).sum())
        result["p"] = float(stats.binomtest(up, up + down, 0.5).pvalue) if up + down else 1.0
        if not up + down and all(0.0 <= v <= 1.0 for v in (*old, *new)):
            # every game played alike: the t interval is [0, 0] whatever n is. A bounded difference
            # (|d| <= 1) averages at most the share of games that differ, whose Wilson upper bound
            # at 0 of n differing is an honest interval that narrows only as games accumulate
            _, upper = _wilson(0, n, confidence)
            result["ci"] = [-upper, upper]
            result["test"] = f"sign test; all {n} paired games alike (interval: Wilson bound on the share that differ)"
        else:
            result["test"] = f"sign test (every one of the {n} paired differences is {diffs[0]:+.3g}; no interval)"
        return result
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        test = stats.ttest_rel(new, old)
        ci = test.confidence_interval(confidence_level=confidence)
    result.update(ci=[float(ci.low), float(ci.high)], p=float(test.pvalue), test="paired t")
    return result


def _samples(metric: str, old_cases: Sequence[dict[str, Any]], new_cases: Sequence[dict[str, Any]],
             paired: bool) -> tuple[list[float], list[float]]:
    """The values compared: twin by twin when paired (a pair with a value missing on one side is
    left out), else every played game's value."""
    if paired:
        pairs = [(_value(o, metric), _value(n, metric)) for o, n in pairs_of(old_cases, new_cases)]
        kept = [(o, n) for o, n in pairs if o is not None and n is not None]
        return [o for o, _ in kept], [n for _, n in kept]
    return ([v for c in played(old_cases) if (v := _value(c, metric)) is not None],
            [v for c in played(new_cases) if (v := _value(c, metric)) is not None])


def compare_metric(metric: str, old_cases: Sequence[dict[str, Any]], new_cases: Sequence[dict[str, Any]],
                   confidence: float, paired: bool) -> dict[str, Any]:
    """The change new - old of one score key, with its interval and two-sided p."""
    old, new = _samples(metric, old_cases, new_cases, paired)
    if paired:
        if len(old) < MIN_GAMES:
            return {"old": None, "new": None, "change": None, "ci": [None, None], "p": None, "n_old": len(old),
                    "n_new": len(old), "paired": True, "test": None}
        result = paired_rate(old, new, confidence) if _binary(old + new) else paired_mean(old, new, confidence)
        result["unpaired"] = {"old": len(played(old_cases)) - len(old), "new": len(played(new_cases)) - len(new)}
        return result
    if _binary(old + new) and old and new:
        result = rate_change(int(sum(old)), len(old), int(sum(new)), len(new), confidence)
        result["test"] = "Fisher's exact test"
    else:
        result = mean_change(old, new, confidence)
        result["test"] = "Welch's t"
    if old and new and _bounded(old + new):
        # Newcombe's Wilson-based interval overshoots its one-sided error at the tolerance's edge
        # (exactly, 0.5 -> 0.4 at 40 games a side: P(worse) 0.0265 for a promised 0.025); each
        # run's exact-type bounds, square-and-add, give 0.0153 there
        result["ci"] = list(bounds.difference_interval(old, new, 0.0, 1.0, (1 - confidence) / 2))
        result["test"] += ", Gaffke's bounds of each run, square-and-add"
    result["paired"] = False
    return result


def _bounded(values: Sequence[float]) -> bool:
    return all(0.0 <= v <= 1.0 for v in values)


def same_interval(old: Sequence[float], new: Sequence[float], paired: bool, beta: float) -> tuple[list[float], str]:
    """The interval "same" is judged on for values in [0, 1] (every headline), each end missing
    with at most `beta`: Gaffke's distribution-free bound (analysis/verdicts/bounds.py), which allows for
    differences not seen yet and so never shrinks to nothing when most games were played alike.
    With n paired games all alike it fits inside +-T only from bounds.min_games_same(T, beta) on."""
    if paired:
        low, high = bounds.mean_interval([n - o for o, n in zip(old, new)], -1.0, 1.0, beta)
        return [low, high], "Gaffke's bound on the paired differences"
    low, high = bounds.difference_interval(old, new, 0.0, 1.0, beta)
    return [low, high], "Gaffke's bounds on each run's mean, square-and-add"


def _oriented(low: float | None, high: float | None, higher_is_better: bool) -> tuple[float | None, float | None]:
    if low is None or high is None:
        return None, None
    return (low, high) if higher_is_better else (-high, -low)


def judge_metric(metric: str, old_cases: Sequence[dict[str, Any]], new_cases: Sequence[dict[str, Any]], *,
                 higher_is_better: bool, tolerance: float, alpha: float, beta: float, paired: bool) -> dict[str, Any]:
    """One metric's verdict. `alpha`: the one-sided error of calling it better or worse (tested
    with the two-sided 1 - 2 alpha interval and p < 2 alpha); `beta`: the one-sided error of each
    of the two tests that call it the same (TOST on `same_interval`, each end at error beta;
    beta = 0: "same" is not asked for)."""
    result = compare_metric(metric, old_cases, new_cases, 1 - 2 * alpha, paired)
    result.update(metric=metric, direction="higher" if higher_is_better else "lower", tolerance=tolerance)
    if min(result.get("n_old") or 0, result.get("n_new") or 0) < MIN_GAMES:
        result["verdict"] = TOO_FEW
        return result
    change, p = result["change"], result["p"]
    oriented_change = change if higher_is_better else -change
    low, high = _oriented(*result["ci"], higher_is_better)
    significant = p is not None and p < 2 * alpha
    if significant and (high < -tolerance if high is not None else oriented_change < -tolerance):
        result["verdict"] = WORSE
    elif significant and (low > tolerance if low is not None else oriented_change > tolerance):
        result["verdict"] = BETTER
    else:
        result["verdict"] = UNDECIDED
        if beta > 0:
            old, new = _samples(metric, old_cases, new_cases, paired)
            if _bounded(old + new):
                result["ci_same"], result["same_test"] = same_interval(old, new, paired, beta)
            else:  # no known range, so no distribution-free bound: the t interval at level 1 - 2 beta
                result["ci_same"] = compare_metric(metric, old_cases, new_cases, 1 - 2 * beta, paired)["ci"]
                result["same_test"] = "t interval (values outside [0, 1])"
            s_low, s_high = _oriented(*result["ci_same"], higher_is_better)
            if s_low is not None and -tolerance < s_low and s_high < tolerance:
                result["verdict"] = SAME
    return result


# -- the outcome breakdown, tested together ------------------------------------------------


def outcome_breakdown(
    old_cases: Sequence[dict[str, Any]], new_cases: Sequence[dict[str, Any]], paired: bool
) -> dict[str, Any]:
    """Counts of each outcome label on both sides and one test over the whole distribution
    (evidence only: it never decides a verdict)."""
    if paired:  # the same games on both sides: count the pairs only
        twins = pairs_of(old_cases, new_cases)
        old, new = [o for o, _ in twins], [n for _, n in twins]
    else:
        old, new = played(old_cases), played(new_cases)
    labels = sorted({c.get("outcome") for c in old + new if c.get("outcome") is not None})
    counts = {
        label: {"old": sum(c.get("outcome") == label for c in old), "new": sum(c.get("outcome") == label for c in new)}
        for label in labels
    }
    out: dict[str, Any] = {"counts": counts, "test": None, "p": None}
    if len(labels) < 2:
        out["test"] = "one outcome only: nothing to test"
        return out
    if paired:
        pairs = [(o.get("outcome"), n.get("outcome")) for o, n in pairs_of(old_cases, new_cases)]
        statistic, df = 0.0, 0
        for i, x in enumerate(labels):
            for y in labels[i + 1:]:
                xy, yx = pairs.count((x, y)), pairs.count((y, x))
                if xy + yx:
                    statistic += (xy - yx) ** 2 / (xy + yx)
                    df += 1
        out["test"] = "Bowker's test of symmetry over the paired outcome table"
        out["p"] = float(stats.chi2.sf(statistic, df)) if df else 1.0
        out["df"] = df
        return out
    observed = np.array([[counts[label]["old"] for label in labels], [counts[label]["new"] for label in labels]])
    if min(observed.sum(axis=1)) == 0:
        return out
    chi2 = stats.chi2_contingency(observed)
    out.update(test="chi-square test of the old x new outcome counts", p=float(chi2.pvalue), df=int(chi2.dof))
    return out


# -- one game, one look (report diff and gameeval compare; the gate runs it look by look) ---------


def judge(game: str, old_cases: Sequence[dict[str, Any]], new_cases: Sequence[dict[str, Any]],
          metrics: Sequence[tuple[str, bool, float]], alpha: float, beta: float) -> GameVerdict:
    """One game's verdict from all its cases at once (game_verdict.decide on each metric's test).
    `metrics`: (name, higher is better, tolerance), the headline first; `alpha` and `beta` are
    split evenly over them."""
    paired = is_paired(old_cases, new_cases)
    results = {name: judge_metric(name, old_cases, new_cases, higher_is_better=higher, tolerance=tol,
                                  alpha=alpha / max(1, len(metrics)), beta=beta / max(1, len(metrics)), paired=paired)
               for name, higher, tol in metrics}
    return decide(game, results, played_old=len(played(old_cases)), played_new=len(played(new_cases)), paired=paired,
                  outcomes=outcome_breakdown(old_cases, new_cases, paired))


def judge_game(game: str, old_cases: Sequence[dict[str, Any]], new_cases: Sequence[dict[str, Any]],
               metrics: Sequence[tuple[str, bool, float]], alpha: float, beta: float) -> dict[str, Any]:
    """`judge`'s verdict in the form reports store it."""
    return judge(game, old_cases, new_cases, metrics, alpha, beta).as_dict()
