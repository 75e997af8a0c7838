"""The report is data (issue 53): each game's headline and gated measures with value, interval and
count, the verdict when gated, and a JSON Schema shipped in the package and in the docs that every
report the package writes is checked against."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest

import pytest_gameeval.backends.registry  # noqa: F401  (imported once for pytester's in-process runs)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval.analysis.report.file import read_report
from pytest_gameeval.analysis.report.schema import check_report, schema_errors, schema_text, write_report
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.metrics.stats import mean, rate

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
ORACLE, RANDOM = "gameeval/scripted/oracle", "gameeval/scripted/random"
ASKGUESS = ["--gameeval-games", "askguess", "--gameeval-role", f"answerer={ORACLE}", "-p", "no:cacheprovider"]


def test_the_schema_is_a_valid_json_schema_shipped_in_the_package_and_in_the_docs():
    schema = json.loads(schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = (ROOT / "docs" / "report-schema.md").read_text()
    (block,) = re.findall(r"^## The schema\n\n```json\n(.*?)^```", doc, re.S | re.M)
    assert json.loads(block) == schema, "docs/report-schema.md's schema differs from the package's"
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"analysis/report/schema.json"' in pyproject  # package-data: in the wheel
    printed = subprocess.run(["gameeval", "report", "schema"], capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0 and json.loads(printed.stdout) == schema


def test_the_committed_baseline_follows_the_schema():
    assert schema_errors(json.loads((ROOT / "reports" / "baseline-local-askguess.json").read_text())) == []


def test_a_report_that_departs_from_the_schema_is_one_line_and_is_not_written(tmp_path):
    report = json.loads((ROOT / "reports" / "baseline-local-askguess.json").read_text())
    report["cases"][0]["status"] = "won"
    with pytest.raises(GameEvalError) as e:
        check_report(report, "r.json")
    assert str(e.value).startswith("r.json: does not match the report schema: cases.0.status: 'won' is not one of")
    with pytest.raises(GameEvalError):
        write_report(tmp_path / "r.json", report)
    assert not (tmp_path / "r.json").exists()


def _played_values(report: dict, key: str) -> list[float]:
    return [c["scores"][key] for c in report["cases"] if c["status"] == "played" and c["scores"][key] is not None]


def test_each_game_carries_its_headline_and_gated_measures_and_the_verdict(pytester):
    base = pytester.path / "oracle.json"
    assert pytester.runpytest_inprocess(*ASKGUESS, "--gameeval-model", ORACLE, "--gameeval-limit", "8",
                                        "--gameeval-report", str(base)).ret == 0
    result = pytester.runpytest_inprocess(*ASKGUESS, "--gameeval-model", RANDOM, "--gameeval-limit", "8",
                                          "--gameeval-baseline", str(base))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    for path in (base, pytester.path / "reports" / "gameeval-report.json"):
        report = read_report(path)
        assert schema_errors(report) == []
        game = report["games"]["askguess"]
        measures = game["measures"]
        assert {k: m["role"] for k, m in measures.items()} == {"played_quality": "headline",
                                                               "legal_first_try": "gated"}
        headline = measures["played_quality"]
        expected = mean(_played_values(report, "played_quality"))
        assert (headline["value"], headline["ci"], headline["n"]) == (expected["value"], expected["ci"], expected["n"])
        legal = _played_values(report, "legal_first_try")
        if all(v in (0, 1) for v in legal):
            assert measures["legal_first_try"]["ci"] == rate(int(sum(legal)), len(legal))["ci"]
    # the terminal prints the same numbers
    result.stdout.fnmatch_lines([f"*played_quality *{headline['value']:.3g}  [[]{headline['ci'][0]:.3g}, "
                                 f"{headline['ci'][1]:.3g}[]]*{headline['n']}  (headline)"])
    assert "verdict" not in read_report(base)["games"]["askguess"]  # not gated
    gate = report["gate"]["games"]["askguess"]
    assert gate["result"] == "worse"
    assert report["games"]["askguess"]["verdict"] == {"verdict": "fail", "result": "worse", "reason": gate["reason"]}


def test_a_merged_report_is_checked_and_carries_the_measures(pytester):
    slices = []
    for k in (1, 2):
        path = pytester.path / f"slice{k}.json"
        assert pytester.runpytest_inprocess(*ASKGUESS, "--gameeval-model", ORACLE, "--gameeval-limit", "4",
                                            "--gameeval-shard", f"{k}/2", "--gameeval-report", str(path)).ret == 0
        slices.append(str(path))
    from pytest_gameeval.cli.report import main

    assert main(["merge", str(pytester.path / "merged.json"), *slices]) == 0
    merged = read_report(pytester.path / "merged.json")
    assert schema_errors(merged) == [] and merged["games"]["askguess"]["measures"]["played_quality"]["n"] == 4
