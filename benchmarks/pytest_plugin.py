"""Benchmark: wall time of the pytest plugin playing N Ask-Guess games against a latency-bound ideal.

    /work/venv/bin/python benchmarks/pytest_plugin.py --games 64 --latency 0.05 --workers 0 2

Every model call goes through inspect to `gameeval/scripted` with a simulated latency, so the
ideal wall time is set by the latency alone: a game's calls are sequential, so the best any
scheduler can do is max(longest game, total calls / calls in flight) * latency. The gap to the
measured time is the harness's own cost (inspect's per-call work on a CPU-bound machine, pytest
and xdist start-up). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(games: int, latency: float, workers: int, concurrency: int, out: Path) -> dict:
    report = out / f"bench-n{workers}.json"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--gameeval-only",
           "--gameeval-model", "gameeval/scripted/random", "--gameeval-role", "answerer=gameeval/scripted/oracle",
           "--gameeval-games", "askguess", "--gameeval-limit", str(games), "--gameeval-concurrency", str(concurrency),
           "--gameeval-model-arg", f"latency={latency}", "--gameeval-report", str(report), "-n", str(workers)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"pytest failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    data = json.loads(report.read_text())
    calls = [sum(u["calls"] for u in c["usage"].values()) for c in data["cases"]]
    play_seconds = max(c["seconds"] for c in data["cases"])
    in_flight = concurrency * max(1, workers)
    ideal = max(max(calls), sum(calls) / in_flight) * latency
    return {
        "workers": workers,
        "games": len(calls),
        "calls": sum(calls),
        "longest_game_calls": max(calls),
        "wall_seconds": round(wall, 2),
        "slowest_game_seconds": round(play_seconds, 2),
        "latency_bound_ideal_seconds": round(ideal, 2),
        "wall_over_ideal": round(wall / ideal, 2) if ideal else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 2])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = [run(args.games, args.latency, w, args.concurrency, Path(tmp)) for w in args.workers]
    print(json.dumps({"benchmark": "pytest-plugin-askguess", "latency": args.latency, "concurrency": args.concurrency,
                      "cpus": os.cpu_count(), "load_average": os.getloadavg(), "runs": results}, indent=1))


if __name__ == "__main__":
    main()
