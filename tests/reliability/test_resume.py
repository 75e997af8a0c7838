"""Resume after kill -9 (issue 9, item 3). Both tests kill a real subprocess, so they are slow
(about 30 s each on 2 busy cores) and marked `slow`; CI runs the rest of the reliability suite.

- inspect: `inspect eval` killed mid-way; `inspect eval-retry LOG` reuses the samples already in
  the log and plays only the missing ones; the retried log holds every sample exactly once.
- pytest plugin: a killed run leaves no report (written atomically at session end), only its journal
  of finished games; `--gameeval-resume` replays none of those
  (tests/frontends/pytest_plugin/test_resume_plugin.py). Also,
  with `--gameeval-cache`, re-running the same
  command replays the calls already made from inspect's cache and makes only the missing ones; the
  report counts every case once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
pytestmark = pytest.mark.slow


def _wait(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def _flushed_samples(log_dir: Path) -> int:
    for log in log_dir.glob("*.eval"):
        try:
            with zipfile.ZipFile(log) as z:
                return sum(n.startswith("samples/") for n in z.namelist())
        except (zipfile.BadZipFile, OSError):
            return 0
    return 0


def kill_and_retry_inspect(log_dir: Path, limit: int = 8) -> dict:
    """Kill an inspect eval after two samples are in its log, eval-retry it; the figures."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    cmd = [str(BIN / "inspect"), "eval", "tasks/askguess.py", "--model", "gameeval/scripted", "-M", "latency=0.2",
           "--model-role", "answerer=gameeval/scripted/oracle", "-T", "max_rounds=5", "--limit", str(limit),
           "--max-samples", "2", "--log-buffer", "1", "--log-dir", str(log_dir), "--display", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _wait(lambda: _flushed_samples(log_dir) >= 2, 180), "no sample reached the log"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    (killed,) = list_eval_logs(str(log_dir))
    before = read_eval_log(killed)
    assert before.status == "started"  # killed: never finished
    done_before = {s.id: s.started_at for s in before.samples}
    retry_started = time.time()
    subprocess.run([str(BIN / "inspect"), "eval-retry", killed.name, "--log-dir", str(log_dir), "--display", "none"],
                   cwd=ROOT, check=True, capture_output=True, timeout=600)
    (retried,) = [read_eval_log(info) for info in list_eval_logs(str(log_dir)) if info.name != killed.name]
    ids = [s.id for s in retried.samples]
    reused = [s.id for s in retried.samples if done_before.get(s.id) == s.started_at]
    return {"status": retried.status, "samples": len(ids), "unique": len(set(ids)), "expected": limit,
            "done_before_kill": len(done_before), "reused": len(reused),
            "replayed_after_kill": len(ids) - len(reused), "retry_seconds": round(time.time() - retry_started, 1)}


def test_inspect_eval_retry_completes_only_the_missing_samples(tmp_path):
    figures = kill_and_retry_inspect(tmp_path / "logs")
    assert figures["status"] == "success"
    assert figures["samples"] == figures["unique"] == figures["expected"]  # every game exactly once
    assert figures["reused"] == figures["done_before_kill"] >= 2  # finished games were not replayed
    assert figures["replayed_after_kill"] == figures["expected"] - figures["done_before_kill"]


def kill_and_rerun_plugin(workdir: Path, limit: int = 8, kill_after: float = 10.0) -> dict:
    env = {**os.environ, "INSPECT_CACHE_DIR": str(workdir / "cache")}
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--gameeval-only",
        "--gameeval-games",
        "askguess",
        "--gameeval-model",
        "gameeval/scripted/oracle",
        "--gameeval-model-arg",
        "latency=0.3",
        "--gameeval-limit",
        str(limit),
        "--gameeval-concurrency",
        "2",
        "--gameeval-option",
        "max_rounds=5",
        "--gameeval-report",
        "out/report.json",
        "--gameeval-cache",
    ]
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cache = workdir / "cache"
    try:
        assert _wait(lambda: cache.exists() and sum(1 for p in cache.rglob("*") if p.is_file()) >= 10, 180)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    left = sorted(str(p.relative_to(workdir)) for p in workdir.rglob("*")
                  if p.is_file() and cache not in p.parents and ".journal-" not in p.name
                  and not p.name.endswith(".json.lock"))  # the journal and the dead run's lock are by design
    cached = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    rerun = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=600)
    report = json.loads((workdir / "out" / "report.json").read_text())
    ids = [c["id"] for c in report["cases"]]
    after = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    calls = sum(u["calls"] for u in report["games"]["askguess"]["usage"].values())
    return {"exit": rerun.returncode, "files_left_by_kill": left, "cases": len(ids), "unique": len(set(ids)),
            "expected": limit, "calls_cached_before_kill": len(cached),
            "cached_calls_rewritten": sum(after.get(p) != t for p, t in cached.items()),
            "calls_in_report": calls, "cache_entries_after": len(after)}


def test_plugin_rerun_with_cache_after_kill(tmp_path):
    figures = kill_and_rerun_plugin(tmp_path)
    assert figures["files_left_by_kill"] == []  # no partial report
    assert figures["exit"] == 0
    assert figures["cases"] == figures["unique"] == figures["expected"]
    assert figures["calls_cached_before_kill"] >= 10
    assert figures["cached_calls_rewritten"] == 0  # answered from the cache, not called again
