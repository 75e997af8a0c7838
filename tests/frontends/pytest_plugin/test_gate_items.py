"""The gate is a test, node ids round-trip, selection is honest (issue 53), through real pytest in a
temporary project: each gated game's verdict is an item (`gameeval::GAME[gate]`) that JUnit,
pytest's outcome line, --lf and -x see; a node id pasted from pytest's output selects exactly that
item; a game left out by -k or node ids is "not gated", never missing."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_gameeval.analysis.report.file import read_report

ONE = ["--gameeval-only", "-p", "no:randomly", "--gameeval-games", "askguess", "--gameeval-limit", "8"]
TWO = ["--gameeval-only", "-p", "no:randomly", "-p", "no:cacheprovider", "--gameeval-games", "askguess,spyfall",
       "--gameeval-limit", "4", "--gameeval-model=gameeval/scripted", "--gameeval-baseline=base2.json"]


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"})


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """Baselines: askguess played by the oracle (8 cases); askguess and spyfall by gameeval/scripted (4 each)."""
    cwd = tmp_path_factory.mktemp("gate_items")
    (cwd / "conftest.py").write_text("")
    base = run(cwd, *ONE, "-p", "no:cacheprovider", "--gameeval-model=gameeval/scripted/oracle",
               "--gameeval-report=base1.json")
    assert base.returncode == 0, base.stdout[-2000:]
    base = run(cwd, *TWO[:-1], "--gameeval-report=base2.json")
    assert base.returncode == 0, base.stdout[-2000:]
    return cwd


@pytest.fixture(scope="module")
def failed_gate(project):
    """A worse model gated against the oracle, with --junitxml, the cache on (for --lf)."""
    done = run(project, *ONE, "--gameeval-model=gameeval/scripted/random", "--gameeval-baseline=base1.json",
               "--junitxml=junit.xml")
    return project, done


def test_a_worse_game_is_a_failed_test_in_the_outcome_line_and_junit(failed_gate):
    cwd, done = failed_gate
    assert done.returncode == 1, done.stdout[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    assert "1 failed" in last and "askguess" not in last, last
    assert "FAILED gameeval::askguess[gate] - gameeval gate FAILED" in done.stdout  # the verdict first
    failures = done.stdout.split("= FAILURES =")[1].split("= gameeval =")[0]
    assert ("gameeval gate FAILED (gameeval/scripted/random vs gameeval/scripted/oracle): askguess: worse: "
            "played_quality") in failures and "askguess.played_quality" in failures
    suite = ET.parse(cwd / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    [case] = [c for c in suite.iter("testcase") if c.get("name") == "askguess[gate]"]
    failure = case.find("failure")
    assert failure is not None and "askguess.played_quality" in (failure.text or "") and "worse" in (failure.text or "")


@pytest.mark.slow  # a pytest subprocess each (~10 s)
def test_last_failed_replays_only_the_failed_gate(failed_gate):
    cwd, _ = failed_gate
    again = run(cwd, *ONE, "--gameeval-model=gameeval/scripted/random", "--gameeval-baseline=base1.json", "--lf")
    assert again.returncode == 1, again.stdout[-3000:]
    assert "1 failed, 8 deselected" in again.stdout.strip().splitlines()[-1]


@pytest.mark.slow  # .ci/run runs it
def test_a_pasted_case_id_plays_that_case_alone(project):
    done = run(project, *TWO, "gameeval::spyfall[ipad-iphone-fwd-t0]")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed, 9 deselected" in done.stdout.strip().splitlines()[-1]
    report = read_report(project / "reports" / "gameeval-report.json")
    assert [c["id"] for c in report["cases"]] == ["spyfall[ipad-iphone-fwd-t0]"]
    assert report["gate"]["not_selected"] == ["askguess", "spyfall"] and report["gate"]["games"] == {}


@pytest.mark.slow  # a pytest subprocess each (~10 s)
def test_a_pasted_gate_id_plays_its_game_and_judges_it(project):
    done = run(project, *TWO, "gameeval::askguess[gate]", "-rA")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "PASSED gameeval::askguess[gate]" in done.stdout and "1 passed, 9 deselected" in done.stdout


def test_a_game_left_out_by_k_is_not_gated_and_does_not_fail(project):
    done = run(project, *TWO, "-k", "askguess")
    assert done.returncode == 0, done.stdout[-3000:]
    assert ("spyfall: not gated: its gate item was not selected (-k, -m, --deselect, node ids, --lf or --sw)"
            in done.stdout)
    assert "missing" not in done.stdout
    gate = read_report(project / "reports" / "gameeval-report.json")["gate"]
    assert gate["not_selected"] == ["spyfall"] and list(gate["games"]) == ["askguess"] and gate["verdict"] == "pass"


@pytest.mark.slow  # a pytest subprocess each (~10 s)
def test_a_partly_selected_game_is_judged_on_its_selected_cases(project):
    done = run(project, *TWO, "-k", "spyfall and (ipad or gate)")
    assert done.returncode in (0, 1), done.stdout[-3000:]
    gate = read_report(project / "reports" / "gameeval-report.json")["gate"]
    assert gate["not_selected"] == ["askguess"]
    assert gate["games"]["spyfall"]["cases_available"] == 2, gate["games"]["spyfall"]
    assert "after 2 of 2 games" in done.stdout


@pytest.mark.slow  # a pytest subprocess each (~10 s)
def test_an_unknown_game_node_id_is_one_usage_line(project):
    done = run(project, *TWO, "gameeval::spyfall[no-such-case]")
    assert done.returncode == 4
    assert "ERROR: gameeval: no game item gameeval::spyfall[no-such-case] in this run" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.slow  # .ci/run runs it
def test_the_gate_item_fails_a_game_the_session_fails_for_other_opponents(project):
    """One verdict per game: other opponents than the baseline's fail the session's gate, and the
    game's gate item with it (it passed before: the item judged only the sequential test)."""
    result = run(project, *ONE, "-p", "no:cacheprovider", "--gameeval-model=gameeval/scripted/oracle",
                 "--gameeval-baseline=base1.json", "--gameeval-role=answerer=gameeval/scripted/oracle",
                 "--gameeval-report=opp.json")
    assert result.returncode == 1, result.stdout[-3000:]
    assert "FAILED gameeval::askguess[gate]" in result.stdout
    assert "gameeval gate FAILED" in result.stdout
