"""Reliability and security figures over every registered game (issue 9), as JSON.

Runs the same checks as the tests (tests/reliability/test_reliability_faults.py, test_fuzz_games.py,
test_isolation.py, test_impersonation.py, test_secrets.py, test_resume.py), at a chosen size, and
counts: faults injected, games completed with a classified outcome, fuzz cases run, leaks found.

Usage: python benchmarks/reliability.py [--seeds N] [--fuzz N] [--inspect-limit N] [--resume]
  --seeds N          engine-level games per game type with 10% injected faults, and isolation /
                     impersonation seeds (default 10)
  --fuzz N           hypothesis examples per game (default 30)
  --inspect-limit N  samples per task through inspect with gameeval/scripted fault_rate=0.1
                     (default 2; 0 skips)
  --resume           also kill -9 and resume an inspect eval and a plugin run (about a minute)
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(ROOT / "tests" / "reliability"),
    str(ROOT / "tests"),
]  # the checks live in the tests; the benchmark counts them

import test_fuzz_games  # noqa: E402
import test_impersonation  # noqa: E402
import test_isolation  # noqa: E402
import test_reliability_faults as faults  # noqa: E402
import test_secrets  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pytest_gameeval.engine.game import CHAT_ERROR  # noqa: E402
from pytest_gameeval.games.registry import GAMES, get_spec  # noqa: E402


def engine_faults(seeds: int) -> dict:
    out = {"games": 0, "classified": 0, "calls": 0, "chat_errors_injected": 0, "truncations_injected": 0,
           "chat_errors_recorded": 0, "harness_crashes": 0}
    for game in sorted(GAMES):
        counts = {"calls": 0, "chat": 0, "truncated": 0}
        for seed in range(seeds):
            out["games"] += 1
            try:
                record = faults.play_with_faults(game, seed, 0.10, counts)
            except Exception:  # a crash is what we count, not what we hide
                out["harness_crashes"] += 1
                continue
            out["classified"] += record.label in get_spec(game).outcome_labels
            out["chat_errors_recorded"] += record.failure_totals()[CHAT_ERROR]
        out["calls"] += counts["calls"]
        out["chat_errors_injected"] += counts["chat"]
        out["truncations_injected"] += counts["truncated"]
    return out


def inspect_faults(limit: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        logs, figures = faults.inspect_faults(tmp, limit=limit, fault_rate=0.10)
        figures["tasks"] = len(logs)
        figures["tasks_succeeded"] = sum(log.status == "success" for log in logs)
        figures["samples_expected"] = limit * len(GAMES)
        figures["samples_completed"] = sum(log.results.completed_samples for log in logs if log.results)
        return figures


def fuzz(examples: int) -> dict:
    runs = {"cases": 0, "failures": []}
    def fuzz_one(game: str):
        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(replies=st.lists(test_fuzz_games.fragments, min_size=1, max_size=8), seed=st.integers(0, 10**6))
        def one(replies, seed):
            runs["cases"] += 1
            test_fuzz_games._check(game, test_fuzz_games._fuzz_game(game, replies, seed))

        return one

    for game in sorted(GAMES):
        one = fuzz_one(game)
        try:
            one()
        except Exception as e:  # hypothesis re-raises the shrunk failing case
            runs["failures"].append(f"{game}: {type(e).__name__}: {str(e)[:200]}")
    return runs


def leaks(seeds: int) -> dict:
    isolation, impersonation, prompts, fakes = [], [], 0, 0
    for game in sorted(GAMES):
        for seed in range(seeds):
            for style in ("chat", "flat"):
                found, scanned = test_isolation.isolation_leaks(game, seed, style)
                isolation += found
                prompts += scanned
            problems, injected = test_impersonation.impersonation_check(game, seed)
            impersonation += problems
            fakes += injected
    with tempfile.TemporaryDirectory() as tmp:
        secrets = secret_leaks(Path(tmp))
    return {"prompts_scanned": prompts, "isolation_leaks": isolation, "impersonations_slipped_in": fakes,
            "impersonation_effects": impersonation, "secret_leaks": secrets}


def secret_leaks(tmp: Path) -> list[str]:
    import os

    from inspect_ai import eval as inspect_eval

    saved = {k: os.environ.get(k) for k in test_secrets.PLANTED_ENV}
    os.environ.update(test_secrets.PLANTED_ENV)
    try:
        with contextlib.chdir(ROOT), contextlib.redirect_stdout(io.StringIO()):
            inspect_eval("tasks/askguess.py", model="gameeval/scripted", model_args={"api_key": test_secrets.FAKE_KEY},
                         task_args={"max_rounds": 3}, limit=1, log_dir=str(tmp / "logs"), display="none")
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    return test_secrets.leaks_in(tmp)


def resume() -> dict:
    import test_resume

    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        return {"inspect_eval_retry": test_resume.kill_and_retry_inspect(Path(a) / "logs"),
                "plugin_cached_rerun": test_resume.kill_and_rerun_plugin(Path(b))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--fuzz", type=int, default=30)
    parser.add_argument("--inspect-limit", type=int, default=2)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    engine = engine_faults(args.seeds)
    through_inspect = inspect_faults(args.inspect_limit) if args.inspect_limit else None
    fuzzed = fuzz(args.fuzz)
    found = leaks(min(args.seeds, 5))
    figures = {
        "benchmark": "reliability",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count()},
        "games": sorted(GAMES),
        "summary": {
            "faults_injected": engine["chat_errors_injected"]
            + engine["truncations_injected"]
            + (through_inspect["faults_seen"] if through_inspect else 0),
            "games_completed": engine["classified"] + (through_inspect["samples_completed"] if through_inspect else 0),
            "games_lost": engine["games"]
            - engine["classified"]
            + (through_inspect["samples_expected"] - through_inspect["samples_completed"] if through_inspect else 0),
            "fuzz_cases_run": fuzzed["cases"],
            "fuzz_failures": len(fuzzed["failures"]),
            "leaks_found": len(found["isolation_leaks"])
            + len(found["impersonation_effects"])
            + len(found["secret_leaks"]),
        },
        "engine_faults_10pct": engine,
        "inspect_faults_10pct": through_inspect,
        "fuzz": fuzzed,
        "leaks": found,
        "resume": resume() if args.resume else None,
        "seconds": None,
    }
    figures["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
