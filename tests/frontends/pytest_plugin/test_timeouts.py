"""pytest-timeout's --timeout on game items (issue 53): a run cut by it stops as interrupted with
one line saying where the finished games are kept and how to resume (exit 2, no thread stack
dumps), and the same command with --gameeval-resume plays only the rest and writes the report."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from pytest_gameeval.analysis.report.file import read_report

RUN = ["--gameeval-only", "-p", "no:randomly", "-p", "no:cacheprovider", "--gameeval-model=gameeval/scripted",
       "--gameeval-games", "askguess", "--gameeval-limit", "24", "-q"]


def run(cwd, *args):
    return subprocess.run([sys.executable, "-m", "pytest", *RUN, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"})


@pytest.mark.slow  # two pytest runs of 24 games (~35 s)
def test_a_run_cut_by_timeout_says_where_the_journal_is_and_resumes(tmp_path):
    (tmp_path / "conftest.py").write_text("")
    # 100 ms a call: 30 rounds take 3 s or more however fast the machine, so --timeout 2 always cuts the run
    # (on an idle machine all 24 scripted games once finished in under 2 s, and nothing was cut)
    cut = run(tmp_path, "--timeout", "2", "--gameeval-model-arg", "latency=0.1")
    out = cut.stdout + cut.stderr
    assert cut.returncode == 2, out[-3000:]
    assert "Stack of" not in out and "Traceback" not in out and len(out.splitlines()) < 12, out[-3000:]
    [line] = [x for x in out.splitlines() if x.startswith("gameeval: timed out")]
    assert "(gameeval::askguess[hard-apple-t0] ran past --timeout 2 s): no report written;" in line
    kept = re.search(r"; (\d+) finished games? kept in (.+); run the same command with --gameeval-resume", line)
    # how many finished in 2 s depends on the machine's load; when some did, the journal holds them
    assert kept or line.endswith("no game had finished, nothing kept; run the same command again to play them")
    if kept:
        assert int(kept[1]) >= 1 and kept[2] == str(tmp_path / "reports" / "gameeval-report.json.journal-main.jsonl")
    kept_games = int(kept[1]) if kept else 0
    assert not (tmp_path / "reports" / "gameeval-report.json").exists()
    resumed = run(tmp_path, "--timeout", "120", "--gameeval-resume", "--gameeval-model-arg", "latency=0.1")
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    assert "24 passed" in resumed.stdout.strip().splitlines()[-1]
    report = read_report(tmp_path / "reports" / "gameeval-report.json")
    assert report["run"]["reused_from_journal"] == kept_games and len(report["cases"]) == 24


def test_a_timeout_before_any_game_finished_says_nothing_was_kept(tmp_path):
    """Not "0 finished games kept in no journal" (issue 59)."""
    (tmp_path / "conftest.py").write_text("")
    cut = run(tmp_path, "--timeout", "0.01")
    assert cut.returncode == 2, (cut.stdout + cut.stderr)[-3000:]
    [line] = [x for x in cut.stdout.splitlines() if x.startswith("gameeval: timed out")]
    assert line.endswith("no report written; no game had finished, nothing kept; run the same command again to "
                         "play them"), line
    assert "no journal" not in cut.stdout


@pytest.mark.slow  # two xdist workers playing 80 games (~35 s on 2 busy cores)
def test_under_xdist_the_item_over_its_limit_fails_with_the_timeout_named(tmp_path):
    """Issue 59: under -n 2 a game item past --timeout failed its worker ("node down:
    keyboard-interrupt", "worker crashed", "interrupted"). Now the item fails naming the timeout,
    the finished games are in the report, the rest of its shard is not played with the reason,
    and the run's end says what was cut."""
    (tmp_path / "conftest.py").write_text("")
    done = run(tmp_path, "-n", "2", "--timeout", "0.5", "--gameeval-limit", "80", "--gameeval-autosave")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out[-3000:]
    for crash in ("node down", "crashed", "interrupted", "Traceback", "provider failure"):
        assert crash not in out, (crash, out[-3000:])
    failed = [x for x in done.stdout.splitlines() if x.startswith("FAILED gameeval::askguess[")]
    assert failed and all("gameeval: timed out: gameeval::" in x for x in failed), failed
    report = read_report(tmp_path / "reports" / "gameeval-report.json")
    cut = [c for c in report["cases"] if str(c.get("reason", "")).startswith("cut by --timeout: gameeval::askguess[")]
    played = [c for c in report["cases"] if c["status"] == "played"]
    assert cut and len(cut) + len(played) == 80 == len(report["cases"]), [c.get("reason") for c in report["cases"]]
    [line] = [x for x in done.stdout.splitlines() if x.startswith("gameeval: timed out: --timeout cut")]
    assert f"cut {len(cut)} games (askguess; not played, rerun to play them); the {len(played)} finished" in line
    # a run cut short is not stored: it would be the newest run and the next --gameeval-compare's baseline
    assert not (tmp_path / ".gameeval" / "runs").exists() or not list((tmp_path / ".gameeval" / "runs").iterdir())
    if played:
        assert (f"not saved to the history store: {len(cut)} games cut by --timeout: a run cut short is not stored"
                in done.stdout), done.stdout[-2000:]
