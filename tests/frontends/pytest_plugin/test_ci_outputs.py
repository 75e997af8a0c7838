"""What a CI job shows a reviewer: the markdown summary (--gameeval-summary-md and
$GITHUB_STEP_SUMMARY), each game case's outcome and metrics in --junitxml (also under xdist), and
a report even when the only selected game's data is broken."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_gameeval.analysis.report.file import read_report

GATE = ["--gameeval-only", "-p", "no:cacheprovider", "--gameeval-games", "askguess", "--gameeval-limit", "8"]


def pytest_run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


def markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every markdown table in the text, as rows of {header: cell}."""
    tables, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and set(lines[i + 1].replace("|", "").strip()) <= set("-: "):
            header = [h.strip() for h in lines[i].strip("|").split("|")]
            rows, i = [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(dict(zip(header, (c.strip() for c in lines[i].strip("|").split(" | ")))))
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


@pytest.fixture(scope="module")
def gated_run(tmp_path_factory):
    """The README's example: oracle baseline, random candidate, -n 2, every CI output asked for."""
    cwd = tmp_path_factory.mktemp("ci")
    (cwd / "conftest.py").write_text("")
    base = pytest_run(cwd, *GATE, "--gameeval-model=gameeval/scripted/oracle", "--gameeval-report=reports/base.json")
    assert base.returncode == 0, base.stdout[-2000:]
    (cwd / "step.md").write_text("earlier step\n")
    run = pytest_run(
        cwd,
        *GATE,
        "-n",
        "2",
        "--gameeval-model=gameeval/scripted/random",
        "--gameeval-baseline=reports/base.json",
        "--gameeval-summary-md",
        "out/summary.md",
        "--junitxml",
        "junit.xml",
        env={"GITHUB_STEP_SUMMARY": str(cwd / "step.md")},
    )
    return cwd, run


def test_the_markdown_summary_holds_each_game_and_the_gate_table(gated_run):
    cwd, run = gated_run
    assert run.returncode == 1, run.stdout[-3000:]
    text = (cwd / "out" / "summary.md").read_text()
    games, gate = markdown_tables(text)
    report = read_report(cwd / "reports" / "gameeval-report.json")
    outcomes = sorted(c["outcome"] for c in report["cases"] if c["status"] == "played")
    not_played = sum(c["status"] == "not played" for c in report["cases"])  # the sequential gate stopped early
    [askguess] = games
    assert (
        askguess["game"] == "askguess"
        and askguess["games played"] == str(len(outcomes))
        and askguess["headline"] == "played_quality"
    )
    played = [c["scores"]["played_quality"] for c in report["cases"] if c["status"] == "played"]
    assert askguess["value"] == f"{sum(played) / len(played):.3g}" and askguess["95% interval"].startswith("[")
    assert (
        askguess["outcomes"]
        == ", ".join(f"{k} {outcomes.count(k)}" for k in sorted(set(outcomes))) + f"; {not_played} not played"
    )
    verdicts = {row["game.metric"]: row["verdict"] for row in gate}
    # one verdict per game, from its headline and turn-level measure (both scripted players move legally)
    assert verdicts["askguess.played_quality"] == "**worse**" and set(verdicts) == {
        "askguess.played_quality",
        "askguess.legal_first_try",
    }
    assert {row["design"] for row in gate} == {"paired"}
    assert "### Regression gate: FAILED" in text
    assert "**Failed (gameeval/scripted/random vs gameeval/scripted/oracle): askguess: worse: played_quality**" in text
    assert str(cwd / "reports" / "gameeval-report.json") in text


def test_github_step_summary_gets_the_same_markdown_appended(gated_run):
    cwd, _ = gated_run
    assert (cwd / "step.md").read_text() == "earlier step\n" + (cwd / "out" / "summary.md").read_text()


def test_junit_carries_each_cases_outcome_and_metrics_under_xdist(gated_run):
    cwd, _ = gated_run
    report = read_report(cwd / "reports" / "gameeval-report.json")
    cases = {c["id"].split("::")[-1]: c for c in report["cases"]}
    seen = 0
    for testcase in ET.parse(cwd / "junit.xml").getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in testcase.iter("property")}
        if testcase.get("name") == "askguess[gate]":  # the gate's verdict, a test of its own (issue 53)
            assert testcase.find("failure") is not None and props["gameeval_gate"] == "fail"
            continue
        case = cases[testcase.get("name")]
        if case["status"] != "played":
            continue
        assert props["gameeval_outcome"] == case["outcome"]
        for key, value in case["scores"].items():  # the report writes an undefined (NaN) score as null
            expected = float("nan") if value is None else value
            assert float(props[f"gameeval_score_{key}"]) == pytest.approx(expected, nan_ok=True)
        seen += 1
    assert seen == report["games"]["askguess"]["cases_played"] > 0


def test_a_data_error_in_the_only_game_still_writes_the_report_and_summary(tmp_path):
    (tmp_path / "conftest.py").write_text("")
    (tmp_path / "pairs.jsonl").write_text('{"id": "a"}\n')
    run = pytest_run(
        tmp_path,
        "--gameeval-only",
        "-p",
        "no:cacheprovider",
        "--gameeval-model=gameeval/scripted",
        "--gameeval-games",
        "spyfall",
        "--gameeval-data",
        "spyfall=pairs.jsonl",
        "--gameeval-summary-md",
        "s.md",
    )
    assert run.returncode == 1
    reason = f"{tmp_path / 'pairs.jsonl'}:1: missing key 'spy'"
    report = read_report(tmp_path / "reports" / "gameeval-report.json")
    assert report["games"]["spyfall"]["data_error"] == reason and report["cases"] == []
    assert f"spyfall: not played: data error: {reason}" in run.stdout
    [[row]] = markdown_tables((tmp_path / "s.md").read_text())
    assert row["game"] == "spyfall" and row["outcomes"] == f"**data error**: {reason}"


def test_a_data_error_fails_the_gate_with_its_reason(tmp_path):
    (tmp_path / "conftest.py").write_text("")
    base = pytest_run(tmp_path, "--gameeval-only", "-p", "no:cacheprovider", "--gameeval-model=gameeval/scripted",
                      "--gameeval-games", "spyfall", "--gameeval-limit", "2", "--gameeval-report=base.json")
    assert base.returncode == 0, base.stdout[-2000:]
    (tmp_path / "pairs.jsonl").write_text('{"id": "a"}\n')
    run = pytest_run(tmp_path, "--gameeval-only", "-p", "no:cacheprovider", "--gameeval-model=gameeval/scripted",
                     "--gameeval-games", "spyfall", "--gameeval-limit", "2", "--gameeval-data", "spyfall=pairs.jsonl",
                     "--gameeval-baseline=base.json")
    assert run.returncode == 1
    assert (
        "gameeval gate FAILED (gameeval/scripted vs gameeval/scripted): spyfall: not played (data error)" in run.stdout
    ), run.stdout[-2000:]
    assert read_report(tmp_path / "reports" / "gameeval-report.json")["gate"]["data_errors"] == ["spyfall"]
