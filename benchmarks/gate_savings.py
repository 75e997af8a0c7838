"""Gate savings: the sequential regression gate against a fixed-n test, on simulated outcomes.

    python benchmarks/gate_savings.py [--reps 300] [--baseline-games 200] [--games 200] [--seed 0]

No games are played: each game's outcome is a Bernoulli draw (a success rate such as Ask-Guess's
ST, higher is better). The baseline has rate p0; the new run has p0 - delta for planted
differences delta (none, small, large). Both procedures use pytest_gameeval.analysis.verdicts.gate itself:

- sequential: `GameGate` with K looks (the plugin's default 4), alpha and beta spent over looks,
  stopping as soon as the metric is decided;
- fixed-n: the same `GameGate` with one look, i.e. the same test at the same alpha on all N games
  (and, to find the fixed n that matches the sequential gate's error rates, on fewer games).

So the two differ only in stopping early. Reported per scenario: mean and quantiles of games
played, the fraction of runs that failed the gate (the false-alarm rate where delta <= tolerance,
the power where delta > tolerance), and for the sequential gate how often it stopped early.
Prints JSON; asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import statistics
import time

from pytest_gameeval.analysis.verdicts.gate import RATE, GameGate, GateMetric
from pytest_gameeval.run.settings import GateConfig


def cases(values: list[float], seed0: int) -> list[dict]:
    """Simulated games in the report's form; the two runs get different seeds: independent samples."""
    return [{"case": f"c{i}", "seed": seed0 + i, "status": "played", "outcome": "ST" if v else "other",
             "scores": {"ST": v}} for i, v in enumerate(values)]


def run_gate(baseline: list[float], new: list[float], config: GateConfig, tolerance: float) -> tuple[bool, int]:
    """Play `new` look by look as the plugin does; returns (failed, games used)."""
    gate = GameGate("sim", [GateMetric("ST", RATE, True, tolerance)], config, len(new), baseline_played=len(baseline))
    base_cases, new_cases = cases(baseline, 0), cases(new, 10**6)
    for end in gate.ends:
        gate.look(base_cases, new_cases[:end], end, last=end >= len(new))
        if gate.stopped:
            break
    return gate.failed, gate.games_used


def scenario(delta: float, args: argparse.Namespace, rng: random.Random) -> dict:
    sequential = GateConfig(alpha=args.alpha, beta=args.beta, tolerance=args.tolerance, looks=args.looks)
    fixed = GateConfig(alpha=args.alpha, beta=args.beta, tolerance=args.tolerance, looks=1)
    p_new = args.p0 - delta
    seq_fail, seq_games, fix_fail = [], [], []
    smaller = {n: [] for n in args.fixed_sizes if n < args.games}  # fixed-n tests on fewer games
    for _ in range(args.reps):
        # one draw of both runs, judged by both procedures: a paired comparison
        base = [float(rng.random() < args.p0) for _ in range(args.baseline_games)]
        new = [float(rng.random() < p_new) for _ in range(args.games)]
        failed, used = run_gate(base, new, sequential, args.tolerance)
        seq_fail.append(failed)
        seq_games.append(used)
        fix_fail.append(run_gate(base, new, fixed, args.tolerance)[0])
        for n, fails in smaller.items():
            fails.append(run_gate(base, new[:n], fixed, args.tolerance)[0])
    quartiles = statistics.quantiles(seq_games, n=4) if len(seq_games) > 1 else [seq_games[0]] * 3
    regression = delta > args.tolerance
    return {
        "planted_drop": delta,
        "p_baseline": args.p0,
        "p_new": round(p_new, 4),
        "is_regression_beyond_tolerance": regression,
        "sequential": {
            "mean_games": round(statistics.fmean(seq_games), 1),
            "games_quartiles": [round(q, 1) for q in quartiles],
            "stopped_early_fraction": round(sum(g < args.games for g in seq_games) / args.reps, 3),
            "fail_rate": round(sum(seq_fail) / args.reps, 3),
        },
        "fixed_n": {"games": args.games, "fail_rate": round(sum(fix_fail) / args.reps, 3)},
        # the fixed-n test on fewer games: how many it would need to match the sequential gate's rates
        "fixed_n_smaller": [{"games": n, "fail_rate": round(sum(f) / args.reps, 3)} for n, f in smaller.items()],
        "games_saved_fraction": round(1 - statistics.fmean(seq_games) / args.games, 3),
        "reading": "fail_rate is the power" if regression else "fail_rate is the false-alarm rate (bound: alpha)",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300, help="simulated run pairs per scenario")
    parser.add_argument("--baseline-games", type=int, default=200)
    parser.add_argument("--games", type=int, default=200, help="games available to the new run (N)")
    parser.add_argument("--p0", type=float, default=0.5, help="baseline success rate")
    parser.add_argument("--drops", type=float, nargs="+", default=[0.0, 0.05, 0.15, 0.3],
                        help="planted drops of the rate: none, within tolerance, small regression, large regression")
    parser.add_argument("--fixed-sizes", type=int, nargs="*", default=[50, 100, 150],
                        help="also run the fixed-n test on only this many new games")
    parser.add_argument("--alpha", type=float, default=GateConfig.alpha)
    parser.add_argument("--beta", type=float, default=GateConfig.beta)
    parser.add_argument("--tolerance", type=float, default=GateConfig.tolerance)
    parser.add_argument("--looks", type=int, default=GateConfig.looks)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    results = [scenario(d, args, rng) for d in args.drops]
    print(json.dumps({
        "benchmark": "gate_savings",
        "date": datetime.date.today().isoformat(),
        "settings": {k: v for k, v in vars(args).items()},
        "results": results,
        "seconds": round(time.perf_counter() - start, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }, indent=2))


if __name__ == "__main__":
    main()
