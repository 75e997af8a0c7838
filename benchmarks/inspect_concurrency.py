"""Harness cost and concurrency through `inspect eval` (in-process `inspect_ai.eval`).

Ask-Guess self-play with `gameeval/scripted` (scripted replies behind inspect's model path):
- overhead: latency 0 -> CPU milliseconds per model call inside inspect eval;
- concurrency: fixed simulated latency, N games on C connections -> wall time against the
  latency-bound ideal max(longest game's calls, ceil(total calls / C)) x latency;
- scaling: wall time and peak RSS as N grows.
Prints JSON. Usage: python benchmarks/inspect_concurrency.py [--quick]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from inspect_ai import eval as inspect_eval

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run(n_games: int, connections: int, latency: float, max_rounds: int) -> dict:
    from tasks.askguess import askguess  # noqa: E402  (the thin task file users run)

    epochs = math.ceil(n_games / 100)
    limit = min(n_games, 100)
    with tempfile.TemporaryDirectory() as log_dir:
        wall0, cpu0 = time.perf_counter(), time.process_time()
        (log,) = inspect_eval(
            askguess(max_rounds=max_rounds),
            model="gameeval/scripted",
            model_args={"latency": latency, "connections": connections},
            limit=limit, epochs=epochs, max_samples=n_games, max_connections=connections,
            log_dir=log_dir, display="none", log_samples=True, score_display=False,
        )
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        assert log.status == "success", log.error
        calls = [sum(u["calls"] for u in s.metadata["gameeval_record"]["usage"].values()) for s in log.samples]
    total = sum(calls)
    ideal = max(max(calls), math.ceil(total / connections)) * latency
    return {
        "games": len(calls), "connections": connections, "latency_s": latency, "model_calls": total,
        "longest_game_calls": max(calls), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "cpu_ms_per_call": round(1000 * cpu / total, 3),
        "ideal_wall_s": round(ideal, 3), "efficiency": round(ideal / wall, 3) if latency else None,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args()
    os.chdir(ROOT)
    sizes = [10, 100] if args.quick else [10, 100, 1000]
    out = {
        "benchmark": "inspect_concurrency",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpus": os.cpu_count()},
        "game": "askguess self-play, gameeval/scripted (random policies)",
        "overhead_latency0": run(64, 64, 0.0, 10),
        "concurrency_64_games": run(64, 64, 0.1, 10),
        "scaling": [run(n, 64, 0.05, 5) for n in sizes],
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
