"""Verdict error rates: the stated bounds of `report diff` / `gameeval compare` (one look) and of the
sequential gate, checked by simulation.

    python benchmarks/verdict_rates.py [--reps 400] [--seed 0] [--sizes 20 40 80] [--out FILE]
    python benchmarks/verdict_rates.py --markdown benchmarks/results/verdict_rates.json

No games are played: each simulated game has one headline value, and both procedures are the
package's own functions (`verdict.judge_game` as `report diff` calls it, at a = b = alpha/2;
`gate.GameGate` looked at batch by batch as the plugin does, default alpha 0.05, beta 0.1, 4 looks).

- kinds: `binary` (0/1, success rate 0.5 in the baseline) and `graded` (zero-inflated: 60 % exact
  zeros, else Beta(2, 2); mean 0.2; a drop moves mass to 0);
- designs: `paired` (the same cases: the two runs' values share a Gaussian copula with latent
  correlation rho), `replay` (the same cases, every game replayed exactly except a share of the
  new run's games that fall to 0: the deterministic model at temperature 0, a regression that
  shows only in some games), `unpaired` (different seeds: independent samples);
- changes: `none` (same distribution: worse and better must each be <= alpha), `-1T` (a drop of
  exactly the tolerance, the edge of both promises: worse <= alpha and same <= beta), `-1.5T` (a
  drop of 1.5 x the tolerance: same <= beta).

Prints one JSON object (and writes it to --out): per cell the replications, the observed rates and
the promise each must keep. Asserts nothing; tests/analysis/test_verdict_rates.py runs a small
version of it and checks the rates.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import time
import zlib
from typing import Any

import numpy as np
from scipy import stats

from pytest_gameeval.analysis.verdicts.gate import RATE, GameGate, GateMetric
from pytest_gameeval.analysis.verdicts.gate_config import GateConfig
from pytest_gameeval.analysis.verdicts.judge import BETTER, SAME, WORSE, judge_game

ZEROS, SHAPE = 0.6, (2.0, 2.0)  # the graded headline: share of exact zeros, Beta shape of the rest
BASE_RATE = 0.5  # the binary headline's baseline success rate
CHANGES = {"none": 0.0, "-1T": 1.0, "-1.5T": 1.5}  # planted drops of the mean, in tolerances


def _values(kind: str, u: np.ndarray, drop: float) -> np.ndarray:
    """Headline values from uniforms, with the mean lowered by `drop` (quantile transform)."""
    if kind == "binary":
        return (u > 1 - (BASE_RATE - drop)).astype(float)
    mean_nonzero = SHAPE[0] / sum(SHAPE)
    zeros = 1 - (1 - ZEROS) * (1 - drop / ((1 - ZEROS) * mean_nonzero))  # mean (1 - zeros) * 0.5 = base - drop
    rest = np.clip((u - zeros) / (1 - zeros), 0.0, 1.0)
    return np.where(u < zeros, 0.0, stats.beta.ppf(rest, *SHAPE))


def draw(
    kind: str, design: str, n: int, drop: float, rho: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """One pair of runs of n games: (baseline values, new values)."""
    z_old = rng.standard_normal(n)
    old = _values(kind, stats.norm.cdf(z_old), 0.0)
    if design == "replay":
        mean_old = BASE_RATE if kind == "binary" else (1 - ZEROS) * SHAPE[0] / sum(SHAPE)
        hit = rng.random(n) < drop / mean_old  # these games fall to 0: the mean drops by `drop`
        return old, np.where(hit, 0.0, old)
    z_new = rho * z_old + np.sqrt(1 - rho**2) * rng.standard_normal(n) if design == "paired" else rng.standard_normal(n)
    return old, _values(kind, stats.norm.cdf(z_new), drop)


def cases(values: np.ndarray, seed0: int) -> list[dict[str, Any]]:
    return [{"case": f"c{i}", "seed": seed0 + i, "status": "played", "outcome": "x", "scores": {"h": float(v)}}
            for i, v in enumerate(values)]


def one_shot(old: np.ndarray, new: np.ndarray, paired: bool, alpha: float, tolerance: float) -> str:
    """The verdict `gameeval report diff` gives (one look, a = b = alpha / 2)."""
    result = judge_game("sim", cases(old, 0), cases(new, 0 if paired else 10**6), [("h", True, tolerance)],
                        alpha / 2, alpha / 2)
    return result["result"]


def gated(old: np.ndarray, new: np.ndarray, paired: bool, config: GateConfig) -> tuple[str, int]:
    """The gate's verdict, looking batch by batch as the plugin does; and the games it used."""
    base, fresh = cases(old, 0), cases(new, 0 if paired else 10**6)
    gate = GameGate("sim", [GateMetric("h", RATE, True, config.tolerance)], config, len(new), baseline_played=len(base))
    for end in gate.ends:
        gate.look(base, fresh[:end], end, last=end >= len(new))
        if gate.stopped:
            break
    return gate.verdict, gate.games_used


def cell(kind: str, design: str, procedure: str, n: int, change: str, args: argparse.Namespace) -> dict[str, Any]:
    config = GateConfig(alpha=args.alpha, beta=args.beta, tolerance=args.tolerance, looks=args.looks)
    drop = CHANGES[change] * args.tolerance
    rng = np.random.default_rng([args.seed, n, zlib.crc32(f"{kind} {design} {procedure} {change}".encode())])
    counts = {WORSE: 0, BETTER: 0, SAME: 0}
    games = []
    for _ in range(args.reps):
        old, new = draw(kind, design, n, drop, args.rho, rng)
        if procedure == "one-shot":
            verdict = one_shot(old, new, design != "unpaired", args.alpha, args.tolerance)
        else:
            verdict, used = gated(old, new, design != "unpaired", config)
            games.append(used)
        if verdict in counts:
            counts[verdict] += 1
    alpha = args.alpha / 2 if procedure == "one-shot" else args.alpha
    beta = args.alpha / 2 if procedure == "one-shot" else args.beta
    rates = {k: round(v / args.reps, 4) for k, v in counts.items()}
    # no change: neither worse nor better; at the tolerance both "worse" (not beyond it) and "same"
    # (not inside it) are errors; beyond it, "same" is
    promises = {"none": {WORSE: alpha, BETTER: alpha}, "-1T": {WORSE: alpha, SAME: beta}, "-1.5T": {SAME: beta}}[change]
    out = {"kind": kind, "design": design, "procedure": procedure, "games": n, "change": change, "reps": args.reps,
           "rates": rates, "promises": promises, "within": all(rates[k] <= p for k, p in promises.items())}
    if games:
        out["mean_games_used"] = round(float(np.mean(games)), 1)
    return out


def table(args: argparse.Namespace) -> list[dict[str, Any]]:
    return [cell(kind, design, procedure, n, change, args)
            for procedure in args.procedures for kind in args.kinds for design in args.designs
            for n in args.sizes for change in args.changes]


def markdown(result: dict[str, Any]) -> list[str]:
    """The table docs/statistics.md shows: one row per procedure, headline, design and size; each
    rate with its promise; "same" under no change is the power to say so (no promise)."""
    cells = {(r["procedure"], r["kind"], r["design"], r["games"], r["change"]): r for r in result["results"]}
    lines = ["| procedure | headline | design | games | no change: worse, better | at −T: worse, same | at −1.5T: same "
             "| no change: same (power) |", "|---|---|---|---:|---|---|---|---:|"]

    def rate(key: tuple, verdict: str) -> str:
        r = cells.get(key)
        if r is None:
            return "–"
        promise = r["promises"].get(verdict)
        flag = "" if promise is None or r["rates"][verdict] <= promise else " **over**"
        return f"{r['rates'][verdict]:.3f}" + (f" (≤ {promise:g}){flag}" if promise is not None else "")

    for procedure, kind, design, n in dict.fromkeys(k[:4] for k in cells):
        key = (procedure, kind, design, n)
        lines.append(
            f"| {procedure} | {kind} | {design} | {n} | {rate((*key, 'none'), WORSE)}, {rate((*key, 'none'), BETTER)} "
            f"| {rate((*key, '-1T'), WORSE)}, {rate((*key, '-1T'), SAME)} | {rate((*key, '-1.5T'), SAME)} "
            f"| {rate((*key, 'none'), SAME)} |"
        )
    return lines


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=400, help="simulated run pairs per cell")
    p.add_argument("--sizes", type=int, nargs="+", default=[20, 40, 80], help="games per run")
    p.add_argument("--kinds", nargs="+", default=["binary", "graded"])
    p.add_argument("--designs", nargs="+", default=["paired", "replay", "unpaired"])
    p.add_argument("--procedures", nargs="+", default=["one-shot", "gate"])
    p.add_argument("--changes", nargs="+", default=list(CHANGES), choices=list(CHANGES))
    p.add_argument("--rho", type=float, default=0.7, help="latent within-pair correlation of the paired design")
    p.add_argument("--alpha", type=float, default=GateConfig.alpha)
    p.add_argument("--beta", type=float, default=GateConfig.beta)
    p.add_argument("--tolerance", type=float, default=GateConfig.tolerance)
    p.add_argument("--looks", type=int, default=GateConfig.looks)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="also write the JSON here (e.g. benchmarks/results/verdict_rates.json)")
    p.add_argument(
        "--markdown", metavar="JSON", default=None, help="print the markdown table of a saved result and stop"
    )
    return p


def main() -> None:
    args = parser().parse_args()
    if args.markdown:
        with open(args.markdown) as f:
            print("\n".join(markdown(json.load(f))))
        return
    start = time.perf_counter()
    rows = table(args)
    result = {
        "benchmark": "verdict_rates",
        "date": datetime.date.today().isoformat(),
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
        "all_within": all(r["within"] for r in rows),
        "results": rows,
        "seconds": round(time.perf_counter() - start, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
