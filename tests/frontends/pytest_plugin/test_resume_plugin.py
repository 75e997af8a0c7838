"""Resume a killed `pytest --gameeval-model` run: only the missing games are played again."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pytest_gameeval.analysis.report.file import read_report

ARGS = [
    "--gameeval-only", "-p", "no:cacheprovider", "--gameeval-model", "gameeval/scripted/oracle",
    "--gameeval-games", "askguess", "--gameeval-limit", "4", "--gameeval-option", "max_rounds=3",
    "--gameeval-concurrency", "1", "--gameeval-model-arg", "latency=0.3", "--gameeval-report", "out/report.json",
]


def pytest_cmd(*extra):
    return [sys.executable, "-m", "pytest", *ARGS, *extra]


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_kill_then_resume_plays_only_the_missing_games(tmp_path):
    (tmp_path / "conftest.py").write_text("")
    journal = tmp_path / "out" / "report.json.journal-main.jsonl"
    proc = subprocess.Popen(pytest_cmd(), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (journal.exists() and journal.read_text().count("\n") >= 1):
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    finished = [json.loads(line)["case"] for line in journal.read_text().splitlines()]
    assert 1 <= len(finished) < 4
    assert not (tmp_path / "out" / "report.json").exists()  # nothing half-written

    done = subprocess.run(pytest_cmd("--gameeval-resume"), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    report = read_report(tmp_path / "out" / "report.json")
    ids = [c["id"] for c in report["cases"]]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 4  # every game exactly once
    resumed = [c["id"] for c in report["cases"] if c.get("reason", "").startswith("resumed")]
    assert sorted(resumed) == sorted(finished)
    n = len(finished)  # the summary says how many finished games it reused
    assert (
        f"resumed: reused {n} finished {'game' if n == 1 else 'games'} from the journal of an interrupted run, played "
        f"{4 - n} of 4"
        in done.stdout
    )
    assert report["run"]["reused_from_journal"] == n
    assert all(c["status"] == "played" for c in report["cases"])
    assert not list((tmp_path / "out").glob("*.journal-*"))  # the complete report clears the journal


@pytest.mark.slow  # two plugin runs of real games (~16 s on 2 busy cores)
def test_without_resume_a_new_run_starts_fresh(tmp_path):
    (tmp_path / "conftest.py").write_text("")
    out = tmp_path / "out"
    out.mkdir()
    stale = out / "report.json.journal-main.jsonl"
    stale.write_text('{"case": "askguess[hard-apple-t0]", "options": {}, "record": {}, "scores": {}}\n')
    done = subprocess.run(pytest_cmd(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    report = read_report(out / "report.json")
    assert not any(c.get("reason", "").startswith("resumed") for c in report["cases"])
    assert not stale.exists()
