"""Harness cost, concurrency and scaling through `inspect eval` (in-process `inspect_ai.eval`).

Ask-Guess self-play with `gameeval/scripted` (scripted replies behind inspect's model path):
- overhead: latency 0 -> CPU milliseconds per model call inside inspect eval;
- concurrency: fixed simulated latency, N games on C connections -> wall time against the
  latency-bound ideal max(longest game's calls, ceil(total calls / C)) x latency;
- scaling: wall time and peak RSS as N grows (all N games in flight at once).

Every configuration runs in a fresh subprocess, so its peak RSS is its own and the slope of peak
RSS over N is the memory per concurrent game.

The process is single-threaded Python for all practical purposes, so its CPU time is a second
floor under the wall time: `cpu_aware_ideal_s` = max(latency-bound ideal, CPU seconds used).
When inspect's per-call CPU times C exceeds the latency, the run is CPU-bound, not latency-bound.
Prints JSON. Usage: python benchmarks/inspect_concurrency.py [--quick] [--sizes 10 100 1000]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run(n_games: int, connections: int, latency: float, max_rounds: int) -> dict:
    """One configuration in this process (called in a subprocess by `measure`)."""
    from inspect_ai import eval as inspect_eval

    from tasks.askguess import askguess  # the thin task file users run

    epochs = math.ceil(n_games / 100)  # the dataset's sample is 100 words; epochs give more games
    limit = min(n_games, 100)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with tempfile.TemporaryDirectory() as log_dir:
        wall0, cpu0 = time.perf_counter(), time.process_time()
        (log,) = inspect_eval(
            askguess(max_rounds=max_rounds),
            model="gameeval/scripted",
            model_args={"latency": latency},
            limit=limit, epochs=epochs, max_samples=n_games, max_connections=connections,
            log_dir=log_dir, display="none", log_samples=True, score_display=False,
        )
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        if log.status != "success":
            raise SystemExit(f"inspect eval ended with status {log.status}: {log.error}")
        calls = [sum(u["calls"] for u in s.metadata["gameeval_record"]["usage"].values()) for s in log.samples]
    total = sum(calls)
    ideal = max(max(calls), math.ceil(total / connections)) * latency
    cpu_aware = max(ideal, cpu)
    return {
        "games": len(calls), "connections": connections, "latency_s": latency, "max_rounds": max_rounds,
        "model_calls": total, "longest_game_calls": max(calls), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "cpu_ms_per_call": round(1000 * cpu / total, 3),
        "ideal_wall_s": round(ideal, 3), "efficiency": round(ideal / wall, 3) if latency else None,
        "cpu_aware_ideal_s": round(cpu_aware, 3), "efficiency_vs_cpu_aware_ideal": round(cpu_aware / wall, 3),
        "rss_before_mb": round(rss0, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def measure(n_games: int, connections: int, latency: float, max_rounds: int) -> dict:
    """`run` in a fresh interpreter: its own peak RSS, no warm caches from an earlier run."""
    cmd = [sys.executable, __file__, "--one", str(n_games), str(connections), str(latency), str(max_rounds)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        return {"games": n_games, "error": (proc.stderr or proc.stdout)[-1500:]}
    return json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--sizes", type=int, nargs="*", default=None, help="scaling sizes (default 10 100 1000)")
    parser.add_argument("--one", nargs=4, default=None, help=argparse.SUPPRESS)  # N C LATENCY ROUNDS
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.one:
        n, c, lat, rounds = args.one
        print(json.dumps(run(int(n), int(c), float(lat), int(rounds))))
        return
    sizes = args.sizes or ([10, 100] if args.quick else [10, 100, 1000])
    out = {
        "benchmark": "inspect_concurrency",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpus": os.cpu_count(), "load_average_at_start": [round(x, 2) for x in os.getloadavg()]},
        "game": "askguess self-play, gameeval/scripted (random policies)",
        "overhead_latency0": measure(64, 64, 0.0, 10),
        "concurrency_64_games": [measure(64, 64, lat, 5) for lat in (0.1, 2.0)],
        "scaling": [measure(n, 64, 0.05, 5) for n in sizes],
    }
    scaling = [r for r in out["scaling"] if "peak_rss_mb" in r]
    if len(scaling) >= 2:  # memory per concurrent game: the slope of peak RSS over N
        a, b = scaling[0], scaling[-1]
        out["memory_mb_per_concurrent_game"] = round(
            (b["peak_rss_mb"] - a["peak_rss_mb"]) / (b["games"] - a["games"]), 3
        )
        # marginal CPU per call: the slope drops inspect eval's fixed start-up and log-writing cost
        out["marginal_cpu_ms_per_call"] = round(
            1000 * (b["cpu_s"] - a["cpu_s"]) / (b["model_calls"] - a["model_calls"]), 3
        )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
