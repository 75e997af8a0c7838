"""The contamination probe's error rates (`gameeval contamination`, analysis/rankings/probe_test.py),
checked by simulation: a false "memorisation signal" and a false "no sign of memorisation".

    python benchmarks/probe_rates.py [--reps 2000] [--sizes 26 45 71 140] [--out FILE]
    python benchmarks/probe_rates.py --markdown benchmarks/results/probe_rates.json

No games are played: each twin has one headline value (its mean over epochs), drawn on each side,
and the verdict is the package's own `probe`. The fresh side is drawn from a headline's
distribution; the published side from the same one, with a planted gap (published − fresh):

- kinds: `binary` (0/1, success rate 0.3), `graded` (Beta(1.13, 1.49): mean 0.43, SD 0.26, the
  fair scripted Ask-Guess player's played_quality per twin), `zero-inflated` (60 % exact zeros,
  else Beta(2, 2): mean 0.2, a weak model);
- gaps: `0` (a fair player: neither a signal nor, beyond alpha, anything but "no sign" or
  undecided), `+δ` and `−δ` (the edges: a signal at +δ and "no sign" at ±δ each at most alpha),
  `knowing` (+0.45: the knowing scripted Ask-Guess player's gap at seed 0, docs/fresh-cases.md;
  "no sign" at most alpha). A gap is planted as knowledge is: a share of the published twins is solved outright
  (set to 1) — or, below zero, failed outright (set to 0) — so the values stay in [0, 1].

Prints one JSON object (and writes it to --out): per cell the observed rates of each verdict and
the promise each must keep. Asserts nothing; tests/fresh/test_probe_rates.py runs a small version.
"""

from __future__ import annotations

import argparse
import datetime
import json
import zlib
from typing import Any

import numpy as np

from pytest_gameeval.analysis.rankings.probe_test import NO_SIGN, SIGNAL, UNDECIDED, probe

KINDS = {"binary": 0.3, "graded": 1.13 / (1.13 + 1.49), "zero-inflated": 0.2}  # kind -> mean per twin
KNOWING = 0.45  # the knowing scripted questioner's gap on Ask-Guess, seed 0 (docs/fresh-cases.md: +0.45)


def values(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "binary":
        return (rng.random(n) < KINDS[kind]).astype(float)
    if kind == "graded":
        return rng.beta(1.13, 1.49, n)
    return np.where(rng.random(n) < 0.6, 0.0, rng.beta(2.0, 2.0, n))


def plant(published: np.ndarray, gap: float, mean: float, rng: np.random.Generator) -> np.ndarray:
    """The published twins with a gap of `gap` in expectation: a share solved outright (gap > 0) or
    failed outright (gap < 0)."""
    if gap == 0:
        return published
    share = gap / (1 - mean) if gap > 0 else -gap / mean
    hit = rng.random(len(published)) < share
    return np.where(hit, 1.0 if gap > 0 else 0.0, published)


def gaps(delta: float) -> dict[str, float]:
    return {"0": 0.0, "+δ": delta, "−δ": -delta, "knowing": KNOWING}


def promises(gap: str, alpha: float) -> dict[str, float]:
    """What each planted gap must keep: a signal needs a true gap beyond +δ; "no sign" a true one within ±δ."""
    return {"0": {SIGNAL: alpha}, "+δ": {SIGNAL: alpha, NO_SIGN: alpha}, "−δ": {SIGNAL: alpha, NO_SIGN: alpha},
            "knowing": {NO_SIGN: alpha}}[gap]


def cell(kind: str, n: int, gap: str, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng([args.seed, n, zlib.crc32(f"{kind} {gap}".encode())])
    counts = {SIGNAL: 0, NO_SIGN: 0, UNDECIDED: 0}
    for _ in range(args.reps):
        fresh, published = values(kind, n, rng), values(kind, n, rng)
        published = plant(published, gaps(args.delta)[gap], KINDS[kind], rng)
        counts[probe(published, fresh, alpha=args.alpha, delta=args.delta)["verdict"]] += 1
    rates = {k: round(v / args.reps, 4) for k, v in counts.items()}
    keep = promises(gap, args.alpha)
    return {"kind": kind, "twins": n, "gap": gap, "reps": args.reps, "rates": rates, "promises": keep,
            "within": all(rates[k] <= p for k, p in keep.items())}


def table(args: argparse.Namespace) -> list[dict[str, Any]]:
    return [cell(kind, n, gap, args) for kind in args.kinds for n in args.sizes for gap in gaps(args.delta)]


def over(row: dict[str, Any], verdict: str, promise: float) -> bool:
    """A rate beyond its promise by more than chance: a one-sided binomial test at 0.001 (at a gap
    of exactly ±δ the true rate is alpha itself, so half the cells there read a little above it)."""
    from scipy import stats

    k = round(row["rates"][verdict] * row["reps"])
    return bool(stats.binomtest(k, row["reps"], promise, alternative="greater").pvalue < 0.001)


def markdown(result: dict[str, Any]) -> list[str]:
    """docs/fresh-cases.md's table: per kind and twins, each gap's signal and no-sign rates, each with
    its promise ("**over**" where a binomial test says it is broken)."""
    lines = ["| headline per twin | twins a side | gap 0: signal, no sign (power) | +δ: signal, no sign | "
             "−δ: no sign | knowing (+0.45): no sign, signal (power) |", "|---|---:|---|---|---|---|"]
    cells = {(r["kind"], r["twins"], r["gap"]): r for r in result["results"]}
    for kind, n in dict.fromkeys(k[:2] for k in cells):
        def rate(gap: str, verdict: str) -> str:
            r = cells[(kind, n, gap)]
            promise = r["promises"].get(verdict)
            flag = " **over**" if promise is not None and over(r, verdict, promise) else ""
            return f"{r['rates'][verdict]:.3f}" + (f" (≤ {promise:g}){flag}" if promise is not None else "")
        lines.append(f"| {kind} | {n} | {rate('0', SIGNAL)}, {rate('0', NO_SIGN)} | {rate('+δ', SIGNAL)}, "
                     f"{rate('+δ', NO_SIGN)} | {rate('−δ', NO_SIGN)} | {rate('knowing', NO_SIGN)}, "
                     f"{rate('knowing', SIGNAL)} |")
    return lines


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sizes", type=int, nargs="+", default=[26, 45, 71, 140])
    p.add_argument("--kinds", nargs="+", default=list(KINDS))
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--delta", type=float, default=0.1)
    p.add_argument("--out", default=None)
    p.add_argument("--markdown", default=None, help="print the docs' table of a saved result and stop")
    return p


def main() -> None:
    args = parser().parse_args()
    if args.markdown:
        print("\n".join(markdown(json.loads(open(args.markdown, encoding="utf-8").read()))))
        return
    result = {"date": datetime.date.today().isoformat(), "alpha": args.alpha, "delta": args.delta, "reps": args.reps,
              "results": table(args)}
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
