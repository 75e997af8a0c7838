"""The contamination probe's test: is a model's headline on published cases higher than on their
fresh twins by more than δ, within ±δ of it, or neither yet (docs/fresh-cases.md)?

The unit is the twin, not the game: a case played over several epochs counts once, by its mean,
because replays of one case share its difficulty (counting them as independent games would make
the interval too narrow). The two sides hold other cases, so the test is unpaired: Welch's t
(scipy) on the twins' means, and one interval of published − fresh at level 1 − 2·alpha, which
decides both conclusions at one-sided error alpha each:

- memorisation signal: the interval lies above +δ (the one-sided test of "gap ≤ δ" rejects);
- no sign of memorisation beyond δ: the interval lies inside ±δ (Schuirmann's two one-sided
  tests, TOST, both reject at alpha);
- undecided: neither, with an estimate of how many twins a side would likely decide it.

Both error rates are simulated in benchmarks/probe_rates.py and tests/fresh/test_probe_rates.py.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Sequence

from pytest_gameeval.analysis.verdicts.bounds import np, stats  # numpy and scipy load at first use

SIGNAL, NO_SIGN, UNDECIDED = "memorisation signal", "no sign of memorisation", "undecided"
MIN_TWINS = 2  # Welch's t needs two values a side
# past this many twins a side, "more twins" is no useful advice: the gap sits at about ±δ
MAX_ADVISED = 100_000
POWER = 0.8  # "would likely decide it": the chance the advised number of twins is meant to give


def twin_means(cases: Sequence[dict[str, Any]], metric: str) -> list[float]:
    """Each played case's mean `metric` over its epochs (a case id is `ID#EPOCH` in the probe's logs)."""
    by_twin: dict[str, list[float]] = defaultdict(list)
    for c in cases:
        value = (c.get("scores") or {}).get(metric) if c.get("status") == "played" else None
        if isinstance(value, (int, float)) and math.isfinite(value):
            by_twin[str(c.get("case") or c.get("id")).rsplit("#", 1)[0]].append(float(value))
    return [sum(v) / len(v) for _, v in sorted(by_twin.items())]


def welch(published: Sequence[float], fresh: Sequence[float]) -> tuple[float, float, float]:
    """(published − fresh, its standard error, Welch-Satterthwaite degrees of freedom): the terms of
    scipy's `ttest_ind(equal_var=False)`, computed once so that the three one-sided tests and the
    interval share them (tests/fresh/test_probe_rates.py checks them against scipy's)."""
    pub, fr = np.asarray(published, float), np.asarray(fresh, float)
    vp, vf = pub.var(ddof=1) / len(pub), fr.var(ddof=1) / len(fr)
    se = math.sqrt(vp + vf)
    df = (vp + vf) ** 2 / (vp**2 / (len(pub) - 1) + vf**2 / (len(fr) - 1))
    return float(pub.mean() - fr.mean()), se, float(df)


def twins_to_decide(gap: float, variance: float, alpha: float, delta: float) -> int | None:
    """Twins a side at which a probe would decide with chance POWER if the gap and per-twin spread
    seen were the true ones: beyond +δ (a gap above δ) or inside ±δ (a gap within it), by the normal
    approximation n = 2·s²·((z_(1-alpha) + z_POWER) / margin)². None when the gap sits at about ±δ
    or below −δ (fresh easier: more twins then show a mismatch, not a verdict)."""
    margin = delta - abs(gap) if abs(gap) < delta else gap - delta
    if margin <= 0 or variance <= 0:
        return None
    n = math.ceil(2 * variance * ((stats.norm.ppf(1 - alpha) + stats.norm.ppf(POWER)) / margin) ** 2)
    return n if n <= MAX_ADVISED else None


def probe(published: Sequence[float], fresh: Sequence[float], *, alpha: float, delta: float) -> dict[str, Any]:
    """The verdict of one game's twins' means: published − fresh, its 1 − 2·alpha interval, the
    p of each one-sided test and, when undecided, the twins a side that would likely decide it."""
    out: dict[str, Any] = {"n_published": len(published), "n_fresh": len(fresh), "alpha": alpha, "delta": delta,
                           "test": "Welch's t on each twin's mean; TOST at alpha for no sign",
                           "confidence": 1 - 2 * alpha}
    if min(len(published), len(fresh)) < MIN_TWINS:
        return {**out, "verdict": UNDECIDED, "reason": "too few twins played on a side"}
    pub, fr = np.asarray(published, float), np.asarray(fresh, float)
    gap = float(pub.mean() - fr.mean())
    out.update(published=float(pub.mean()), fresh=float(fr.mean()), gap=gap)
    variance = float((pub.var(ddof=1) + fr.var(ddof=1)) / 2)
    if variance == 0:  # every twin scored alike on both sides: Welch's t is undefined, no interval
        return {**out, "verdict": UNDECIDED, "reason": "every twin scored alike on both sides: no spread to test"}
    _, se, df = welch(pub, fr)
    t_crit = float(stats.t.ppf(1 - alpha, df))
    p_signal = float(stats.t.sf((gap - delta) / se, df))  # H0: gap <= +δ
    p_tost = max(float(stats.t.sf((gap + delta) / se, df)), float(stats.t.cdf((gap - delta) / se, df)))
    out.update(ci=[gap - t_crit * se, gap + t_crit * se], p_signal=p_signal, p_equivalence=p_tost, df=df)
    if p_signal < alpha:
        return {**out, "verdict": SIGNAL}
    if p_tost < alpha:
        return {**out, "verdict": NO_SIGN}
    return {**out, "verdict": UNDECIDED, "twins_needed": twins_to_decide(gap, variance, alpha, delta),
            "fresh_easier": bool(gap + t_crit * se < -delta)}
