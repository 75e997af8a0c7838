"""`gameeval rank-correlate OURS EXTERNAL`: Kendall's tau and RBO between two rankings as JSON on stdout
(metrics/rank_correlation.py)."""

from __future__ import annotations

import json
import sys

from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.metrics.rank_correlation import DEFAULT_P, DEFAULT_PERMUTATIONS, compare, load_ranking


def main(argv: list[str]) -> int:
    parser = CommandParser(
        prog="gameeval rank-correlate",
        description="Kendall's tau (one-sided) and RBO (with a permutation p-value) between our model ranking and an "
                    "external one.",
    )
    parser.add_argument("ours", help="JSON: our ranking (list, best first) or scores {model: value}")
    parser.add_argument("external", help="JSON: the external leaderboard, same formats")
    parser.add_argument("--p", type=float, default=DEFAULT_P, help="RBO persistence (default 0.9)")
    parser.add_argument(
        "--permutations", type=int, default=DEFAULT_PERMUTATIONS, help="permutations for the RBO p-value (default 2000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the permutation test")
    parser.add_argument("--ours-lower-is-better", action="store_true", help="our scores: lower is better")
    parser.add_argument("--external-lower-is-better", action="store_true", help="external scores: lower is better")
    args = parser.parse_args(argv)
    ours = load_ranking(args.ours, False if args.ours_lower_is_better else None)
    external = load_ranking(args.external, False if args.external_lower_is_better else None)
    if args.permutations > 100_000:
        raise GameEvalError("permutations: at most 100000 (each is one RBO computation)")
    json.dump(compare(ours, external, args.p, args.permutations, args.seed), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
