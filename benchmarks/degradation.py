"""Is a known degradation of a real model caught by the gate, and only it? Prints one JSON object.

    python benchmarks/degradation.py --out bench/degradation [--games taboo] [--reruns 5] \
        [--damage 'REGEX'] [--pytest-args '--gameeval-option ...']

Four kinds of run of the pytest plugin's gate, all on SmolLM2-135M (``gameeval/local``), all
against one baseline report of SmolLM2 as shipped (temperature 0, game seed 0):

1. the baseline itself: ``pytest --gameeval-only --gameeval-games G --gameeval-model gameeval/local``;
2. the degraded model, SmolLM2 sampled at temperature 1.5 (``--gameeval-model-arg
   temperature=1.5``), gated against the baseline: it should FAIL on at least one game;
3. with ``--damage REGEX``: the damaged model, SmolLM2 with the sentences REGEX matches cut from
   every system prompt (``benchmarks/damaged_local.py``, model ``damaged/local``): it should FAIL;
4. ``--reruns`` runs of the unchanged model, the first with the baseline's own seed (a replay),
   the others with other game seeds (``--gameeval-seed 1..``), gated against the baseline: none
   should fail.

Every run uses the gate's defaults (alpha 0.05, 4 looks, the default limit unless ``--limit``),
so the sequential gate decides how many games each needs. For each run: exit code, the gate's
per-game verdicts and reasons as the report's ``gate`` section has them, games played, wall time and
the load average before and after. Resumable: a run whose report exists is read, not re-played.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

MODEL = "gameeval/local"
HERE = Path(__file__).resolve().parent  # damaged_local.py, loaded into each run with -p


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def run(out: Path, name: str, games: str, extra: list[str], limit: int | None, model: str = MODEL) -> dict[str, Any]:
    report = out / f"{name}.json"
    meta = out / f"{name}.timing.json"
    command = [sys.executable, "-m", "pytest", "--gameeval-only", "-q", "-p", "no:cacheprovider", "-p", "damaged_local",
               "--gameeval-games", games, "--gameeval-model", model, f"--gameeval-report={report}", *extra]
    if limit:
        command += ["--gameeval-limit", str(limit)]
    if not (report.exists() and meta.exists()):
        load_before, start = _load(), time.perf_counter()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH", "")]))}
        with open(out / f"{name}.log", "w") as log:
            code = subprocess.run(command, cwd=out, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
        meta.write_text(json.dumps({"exit": code, "wall_seconds": round(time.perf_counter() - start, 1),
                                    "load_before": load_before, "load_after": _load()}))
    timing = json.loads(meta.read_text())
    data = json.loads(report.read_text()) if report.exists() else {}
    gate = data.get("gate") or {}
    summary = (out / f"{name}.log").read_text().strip().splitlines()[-3:] if (out / f"{name}.log").exists() else []
    return {
        "name": name,
        "command": " ".join(command[1:]),
        **timing,
        "gate_verdict": gate.get("verdict"),  # the report's own pass/fail, not just the exit code
        "gate_failed": gate.get("verdict") == "fail" if gate else None,
        "games_played": {g: v.get("cases_played") for g, v in (data.get("games") or {}).items()},
        "gate": gate.get("games", gate),
        "summary_tail": summary,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/degradation", help="directory for reports, records and logs")
    parser.add_argument("--games", default="taboo", help="comma-separated games (default taboo)")
    parser.add_argument("--reruns", type=int, default=5, help="reruns of the unchanged model with seeds 1..N")
    parser.add_argument("--temperature", type=float, default=1.5, help="the degraded model's temperature")
    parser.add_argument("--limit", type=int, default=None, help="--gameeval-limit (default: the plugin's, all rows)")
    parser.add_argument("--baseline-limit", type=int, default=None, help="--gameeval-limit of the baseline run only")
    parser.add_argument("--jobs", type=int, default=1, help="gated runs at a time")
    parser.add_argument("--pytest-args", default="", help="more pytest arguments for every run, as one string")
    parser.add_argument(
        "--damage",
        default="",
        help="also gate SmolLM2 with the sentences this regex matches cut from its system prompts",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the baseline's --gameeval-seed (the first rerun replays it)"
    )
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    baseline = run(out, "baseline", args.games, [*shlex.split(args.pytest_args), "--gameeval-seed", str(args.seed)],
                   args.baseline_limit or args.limit)
    base = [f"--gameeval-baseline={out / 'baseline.json'}"]
    extra = shlex.split(args.pytest_args)
    gated = [("degraded", [*base, *extra, "--gameeval-model-arg", f"temperature={args.temperature}"], MODEL)]
    if args.damage:
        gated.append(("damaged", [*base, *extra, "--gameeval-model-arg", f"cut={args.damage}"], "damaged/local"))
    seeds = [args.seed, *range(args.seed + 1, args.seed + args.reruns)][: args.reruns]
    gated += [(f"rerun-seed{s}", [*base, *extra, "--gameeval-seed", str(s)], MODEL) for s in seeds]
    with ThreadPoolExecutor(args.jobs) as pool:  # the gated runs are independent of each other
        runs = list(pool.map(lambda r: run(out, r[0], args.games, r[1], args.limit, r[2]), gated))
    degraded, damaged = runs[0], (runs[1] if args.damage else None)
    reruns = runs[2 if args.damage else 1:]
    result = {
        "benchmark": "degradation",
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "games": args.games,
        "pytest_args": args.pytest_args,
        "degraded_temperature": args.temperature,
        "caught": degraded["gate_failed"],
        "damage": args.damage,
        "damaged_caught": damaged["gate_failed"] if damaged else None,
        "false_alarms": sum(bool(r["gate_failed"]) for r in reruns),
        "reruns": len(reruns),
        "total_seconds": round(time.perf_counter() - started, 1),
        "runs": [baseline, degraded, *([damaged] if damaged else []), *reruns],
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
