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
    cut = run(tmp_path, "--timeout", "2")
    out = cut.stdout + cut.stderr
    assert cut.returncode == 2, out[-3000:]
    assert "Stack of" not in out and "Traceback" not in out and len(out.splitlines()) < 12, out[-3000:]
    [line] = [x for x in out.splitlines() if x.startswith("gameeval: timed out")]
    assert "(gameeval::askguess[hard-apple-t0] ran past --timeout 2 s): no report written;" in line
    kept = re.search(r"; (\d+) finished games? kept in (.+); run the same command with --gameeval-resume", line)
    assert kept, line
    if int(kept[1]):  # how many finished in 2 s depends on the machine; when some did, the journal holds them
        assert kept[2] == str(tmp_path / "reports" / "gameeval-report.json.journal-main.jsonl")
    assert not (tmp_path / "reports" / "gameeval-report.json").exists()
    resumed = run(tmp_path, "--timeout", "120", "--gameeval-resume")
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    assert "24 passed" in resumed.stdout.strip().splitlines()[-1]
    report = read_report(tmp_path / "reports" / "gameeval-report.json")
    assert report["run"]["reused_from_journal"] == int(kept[1]) and len(report["cases"]) == 24
