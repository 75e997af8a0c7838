"""Harness overhead of the engine alone: scripted players, no inspect, no model.

Prints JSON: CPU time per turn and per game for every registered game (target: at most
0.5 ms per turn). Usage: python benchmarks/engine_overhead.py [--games N] [--only GAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import time

from pytest_gameeval.engine.events import REPLY
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.play import play_case, scripted_binder


def measure(game: str, n_games: int) -> dict:
    spec = get_spec(game)
    options = spec.parse_options({})
    rows = spec.select_rows(options)
    strengths = {"*": "random"}
    turns = 0
    cpu = 0.0
    labels: dict[str, int] = {}
    for i in range(n_games):
        row = rows[i % len(rows)]
        start = time.process_time()
        record = asyncio.run(play_case(spec, row, i // len(rows), options, scripted_binder(spec, strengths, seed=i)))
        cpu += time.process_time() - start
        turns += sum(1 for e in record.events if e.kind == REPLY)
        labels[record.label] = labels.get(record.label, 0) + 1
    return {
        "games": n_games,
        "turns": turns,
        "cpu_ms_per_turn": round(1000 * cpu / max(turns, 1), 4),
        "cpu_ms_per_game": round(1000 * cpu / n_games, 3),
        "outcomes": labels,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="games per game type")
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    results = {}
    for game in args.only or list(GAMES):
        try:
            results[game] = measure(game, args.games)
        except Exception as e:  # a game without scripted policies yet: say so, don't hide it
            results[game] = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps({
        "benchmark": "engine_overhead",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "target_cpu_ms_per_turn": 0.5,
        "note": "asyncio.run per game is included in the cost (as a front end pays it)",
        "results": results,
    }, indent=2))


if __name__ == "__main__":
    main()
