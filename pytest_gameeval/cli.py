"""The `gameeval` command."""

from __future__ import annotations

import argparse
import sys

from pytest_gameeval import __version__
from pytest_gameeval.engine.errors import GameEvalError


def _serve_local(argv: list[str]) -> int:
    from pytest_gameeval.local_server import serve_local_main

    return serve_local_main(argv)


COMMANDS = {
    "serve-local": (_serve_local, "serve the embedded model over an OpenAI-compatible API on 127.0.0.1"),
    "report": (lambda argv: __import__("pytest_gameeval.report", fromlist=["main"]).main(argv), "gameeval report diff OLD NEW [--format markdown|json]: per-metric change with intervals; exit 1 if a metric regressed"),
    "rank-correlate": (lambda argv: __import__("pytest_gameeval.metrics.rank_correlation", fromlist=["main"]).main(argv), "Kendall's tau (one-sided p) and RBO (permutation p) between our model ranking and an external leaderboard"),
    "play": (lambda argv: __import__("pytest_gameeval.human", fromlist=["main"]).main(argv), "play akinator|taboo|bluffing yourself as the user seat against --model; the session is saved as a game record"),
    "tournament": (lambda argv: __import__("pytest_gameeval.tournament", fromlist=["main"]).main(argv), "run every model pairing of spyfall/tofukingdom through inspect (resumable); matrices, points, Bradley-Terry ratings as JSON and PNG"),
    "age-topics": (lambda argv: __import__("pytest_gameeval.age_experiments", fromlist=["main"]).main(argv), "AGE: each model against a fixed adversary per topic list; JSON table and heatmap PNG"),
    "validity": (lambda argv: __import__("pytest_gameeval.validity", fromlist=["main"]).main(argv), "strong vs weak scripted players per game: sequential Fisher/Welch tests, games needed, as JSON"),
    "merge-logs": (lambda argv: __import__("pytest_gameeval.inspect_ext.merge_logs", fromlist=["main"]).main(argv), "merge-logs OUT LOG...: one inspect log (metrics over every game; eval-retry works) from one evaluation run as several processes on parts of the dataset"),
    "bias-report": (lambda argv: __import__("pytest_gameeval.metrics.spygame", fromlist=["main"]).main(argv), "vote bias by name, speaking and option position with chi-square tests, from SpyGame probe-mode logs or records"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="gameeval", description="pytest-gameeval commands")
    parser.add_argument("--version", action="version", version=f"gameeval (pytest-gameeval) {__version__}")
    parser.add_argument("command", choices=sorted(COMMANDS), help="; ".join(f"{k}: {v[1]}" for k, v in COMMANDS.items()))
    args, rest = parser.parse_known_args(argv[:1])
    try:
        return COMMANDS[args.command][0](argv[1:] + rest)
    except GameEvalError as e:
        print(f"gameeval: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
