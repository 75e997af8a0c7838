"""The pytest plugin end to end, with scripted players behind inspect's model path (no model).

Inner pytest runs use pytester (in-process where possible: inspect is imported once).
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import loopback_server

import pytest_gameeval.backends.registry  # noqa: F401  (imported once here: pytester's in-process
import pytest_gameeval.run.runner  # noqa: F401  runs would otherwise re-import inspect every time)
from pytest_gameeval.analysis.report.file import read_report
from pytest_gameeval.games.registry import GAMES, get_spec

pytest_plugins = ["pytester"]

ORACLE = "gameeval/scripted/oracle"
RANDOM = "gameeval/scripted/random"
# Ask-Guess with a truthful scripted answerer: the oracle questioner always wins within 30
# rounds; the random questioner wins about 30% of games (a planted regression).
ASKGUESS = ["--gameeval-games", "askguess", "--gameeval-role", f"answerer={ORACLE}", "-p", "no:cacheprovider"]


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*ASKGUESS, *args)


def cases_without_timing(report: dict) -> dict:
    """The report minus what legitimately differs between two runs of the same cases."""
    out = {k: v for k, v in report.items() if k not in ("created", "run")}
    out["cases"] = [{k: v for k, v in c.items() if k != "seconds"} for c in report["cases"]]
    out["settings"] = {k: v for k, v in report["settings"].items()}
    return out


def test_without_a_model_a_plain_run_is_a_quiet_guest(pytester):
    """The user's own suite with the plugin installed: their tests, one header line, no game items."""
    pytester.makepyfile("def test_user_code():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest_subprocess("-rs", "-p", "no:cacheprovider", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert [line for line in out.splitlines() if "gameeval" in line and not line.startswith("plugins:")] == [
        "gameeval: no model given, no game cases collected (--gameeval-model=PROVIDER/MODEL plays them)"], out
    assert "gameeval" not in (pytester.path / "junit.xml").read_text()
    assert not (pytester.path / "reports").exists()


def test_without_a_model_gameeval_only_lists_each_game_skipped(pytester):
    result = pytester.runpytest_inprocess("-rs", "-p", "no:cacheprovider", "--gameeval-only")
    result.assert_outcomes(skipped=len(GAMES))
    result.stdout.fnmatch_lines(["*no model to evaluate (give --gameeval-model=*"])
    assert not (pytester.path / "reports").exists()


def test_a_run_writes_a_valid_report_and_junit_properties(pytester):
    pytester.makepyfile("def test_user_code():\n    pass\n")
    result = run(pytester, "--gameeval-model", ORACLE, "--gameeval-limit", "3", "--gameeval-option", "max_rounds=5",
                 "--junitxml", "junit.xml", "-m", "gameeval", "-v")
    result.assert_outcomes(passed=3, deselected=1)
    result.stdout.fnmatch_lines(["*gameeval::askguess[[]hard-apple-t0[]] PASSED*", "*askguess: 3 played*"])
    report = read_report(pytester.path / "reports" / "gameeval-report.json")
    assert [c["id"] for c in report["cases"]] == [
        "askguess[hard-apple-t0]",
        "askguess[hard-aquarium_fish-t0]",
        "askguess[hard-baby-t0]",
    ]
    assert {c["outcome"] for c in report["cases"]} == {"RLE"}  # 5 rounds are too few for 20 category questions
    game = report["games"]["askguess"]
    assert game["options"]["max_rounds"] == 5 and game["metrics"]["rates"]["RLE"]["value"] == 1.0
    assert game["usage"]["Questioner"]["calls"] == 15 and game["usage"]["Questioner"]["models"] == [ORACLE]
    assert report["models"] == {"evaluated": ORACLE, "roles": {"answerer": ORACLE}, "model_args": {}}
    records = (pytester.path / "reports" / "gameeval-report.json.records.jsonl").read_text().splitlines()
    assert len(records) == 3 and json.loads(records[0])["game"] == "askguess"
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "junit.xml").iter("property")}
    assert props["gameeval_outcome"] == "RLE" and props["gameeval_status"] == "played"


def test_k_selects_cases_and_the_fixture_plays_a_game(pytester):
    pytester.makepyfile("""
        from pytest_gameeval.players.scripted import ReplayPlayer

        def test_oracle_finds_the_apple(gameeval_play):
            record = gameeval_play("askguess", "apple", roles={"answerer": "gameeval/scripted/oracle"})
            assert record.label == "ST"

        def test_replayed_seats(gameeval_play):
            record = gameeval_play("askguess", "apple", options={"max_rounds": 2},
                                   roles={"evaluated": ReplayPlayer(["Is it an apple?"]),
                                          "answerer": ReplayPlayer(["gameover"])})
            assert record.label == "ST" and record.outcome["details"]["rounds"] == 1
    """)
    result = run(pytester, "--gameeval-model", ORACLE, "--gameeval-option", "max_rounds=30", "-k", "apple or replayed")
    result.assert_outcomes(passed=3)  # the two user tests and askguess[hard-apple-t0]


# A provider whose every call is a harness bug (EngineError), not a failed model call: unit-test device.
BROKEN_PROVIDER = """
from inspect_ai.model import ModelAPI, modelapi
from pytest_gameeval.engine.errors import EngineError


class BrokenAPI(ModelAPI):
    async def generate(self, *args, **kwargs):
        raise EngineError("broken harness (test device)")


@modelapi(name="brokenharness")
def brokenharness():
    return BrokenAPI
"""


def test_a_harness_error_fails_the_case_with_its_traceback(pytester):
    pytester.makeconftest(BROKEN_PROVIDER)
    result = pytester.runpytest_inprocess(
        "--gameeval-games",
        "askguess",
        "--gameeval-model",
        ORACLE,
        "--gameeval-limit",
        "2",
        "--gameeval-role",
        "answerer=brokenharness/x",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["*harness error while playing askguess[[]hard-apple-t0[]]*", "*EngineError*broken harness*"]
    )
    report = read_report(pytester.path / "reports" / "gameeval-report.json")
    assert [c["status"] for c in report["cases"]] == ["error", "error"] and "EngineError" in report["cases"][0]["error"]


def test_a_scripted_strength_the_game_lacks_fails_its_item_with_one_line_naming_its_strengths(pytester):
    result = pytester.runpytest_inprocess(
        "--gameeval-games",
        "askguess,spyfall",
        "--gameeval-model",
        "gameeval/scripted/oracle",
        "--gameeval-limit",
        "1",
        "--gameeval-role",
        f"answerer={ORACLE}",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=1, failed=1)  # askguess plays; spyfall is never played
    result.stdout.fnmatch_lines(["*gameeval/scripted/oracle: spyfall has no scripted strength 'oracle'; "
                                 "its strengths: first_option, random, strong*"])
    assert "Traceback" not in result.stdout.str() and "harness error while playing" not in result.stdout.str()


@pytest.mark.parametrize("args, message", [
    (["--gameeval-option", "askguess.nosuch=1"], "no selected game has an option 'nosuch'"),
    (["--gameeval-option", "max_rounds=many"], "max_rounds='many' must be of type int"),
    (["--gameeval-role", "judge=x/y"], "no selected game has this model role"),
    (["--gameeval-role", "answerer=gameeval/scripted/orakle"], "gameeval/scripted/STRENGTH takes one of"),
    (["--gameeval-trials", "0"], "must be at least 1"),
    (["--gameeval-gate-metric", "askguess.nosuch=higher"], "not a score of askguess"),
    (["--gameeval-baseline", "missing.json"], "cannot read report"),
])
def test_bad_input_is_one_usage_error_line(pytester, args, message):
    result = run(pytester, "--gameeval-model", ORACLE, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and message in errors[0] and errors[0].startswith("ERROR: gameeval:")


# -- the gate ---------------------------------------------------------------------------------------

N_CASES = "20"
_BASELINE: dict[str, str] = {}


@pytest.fixture
def baseline(pytester: pytest.Pytester) -> Path:
    """A baseline report of the oracle questioner on 20 Ask-Guess words (it wins every game),
    played once per test session and copied into each test's directory."""
    path = pytester.path / "oracle.json"
    if "text" not in _BASELINE:
        result = run(pytester, "--gameeval-model", ORACLE, "--gameeval-limit", N_CASES, "--gameeval-report", str(path))
        assert result.ret == 0
        _BASELINE["text"] = path.read_text()
    path.write_text(_BASELINE["text"])
    return path


def test_a_planted_regression_fails_the_gate_early_and_names_the_metric(pytester, baseline):
    result = run(
        pytester, "--gameeval-model", RANDOM, "--gameeval-limit", N_CASES, "--gameeval-baseline", str(baseline)
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*askguess.played_quality * higher *paired * worse",
                                 "*askguess outcomes (evidence, never decides): *",
                                 f"*askguess: WORSE — {RANDOM} vs {ORACLE} after *: worse: played_quality",
                                 f"gameeval gate FAILED ({RANDOM} vs {ORACLE}): askguess: worse: played_quality"])
    report = read_report(pytester.path / "reports" / "gameeval-report.json")
    gate = report["gate"]["games"]["askguess"]
    assert gate["verdict"] == "fail" and gate["result"] == "worse" and gate["paired"]
    assert set(gate["metrics"]) == {
        "played_quality",
        "legal_first_try",
    }  # the headline and the turn measure, not every outcome share
    assert gate["games_used"] < int(N_CASES)  # sequential: stopped before playing every case
    decided_at = gate["metrics"]["played_quality"]["games"]  # the table's games column: the games of the deciding look
    result.stdout.re_match_lines([rf"\s+askguess\.played_quality .* {decided_at}\s+paired\s+worse$"])
    not_played = [c for c in report["cases"] if c["status"] == "not played"]
    assert len(not_played) == int(N_CASES) - gate["games_used"]
    # losing games is data, not failure; the gate's verdict is the one failed test (gameeval::askguess[gate])
    result.assert_outcomes(passed=gate["games_used"], skipped=len(not_played), failed=1)


def test_a_noise_level_difference_passes_the_gate(pytester):
    # two runs of the random questioner with different seeds: different games, same skill
    base = pytester.path / "random0.json"
    assert run(pytester, "--gameeval-model", RANDOM, "--gameeval-limit", "12", "--gameeval-report", str(base)).ret == 0
    result = run(pytester, "--gameeval-model", RANDOM, "--gameeval-limit", "12", "--gameeval-seed", "1",
                 "--gameeval-baseline", str(base))
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*gameeval gate passed*"])
    gate = read_report(pytester.path / "reports" / "gameeval-report.json")["gate"]["games"]["askguess"]
    assert gate["result"] in ("same", "undecided", "better") and gate["paired"] is False  # other seeds: other games


@pytest.mark.slow  # two gated runs (~9 s on 2 busy cores)
def test_the_gate_run_both_ways_is_never_worse_both_ways(pytester, baseline):
    """Issue 25: each of two models 'regressed' against the other. Oracle and random questioners
    gated against each other: exactly one direction is worse, and the other says better."""
    weak = pytester.path / "random.json"
    assert (
        run(pytester, "--gameeval-model", RANDOM, "--gameeval-limit", N_CASES, "--gameeval-report", str(weak)).ret == 0
    )
    results = {}
    for model, base in ((RANDOM, baseline), (ORACLE, weak)):
        outcome = run(
            pytester, "--gameeval-model", model, "--gameeval-limit", N_CASES, "--gameeval-baseline", str(base)
        )
        results[model] = (
            outcome.ret,
            read_report(pytester.path / "reports" / "gameeval-report.json")["gate"]["games"]["askguess"]["result"],
        )
    assert results[RANDOM] == (pytest.ExitCode.TESTS_FAILED, "worse")
    assert results[ORACLE] == (0, "better")


def test_a_game_with_no_played_game_fails_the_gate_and_the_diff_with_the_reason(pytester, baseline):
    from pytest_gameeval.cli.report import main as report_main

    pytester.makeconftest(BROKEN_PROVIDER)
    result = run(
        pytester, "--gameeval-model", "brokenharness/x", "--gameeval-limit", "4", "--gameeval-baseline", str(baseline)
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*askguess: MISSING — brokenharness/x vs gameeval/scripted/oracle: missing: no played game (4 "
            "harness errors)",
            "gameeval gate FAILED (brokenharness/x vs gameeval/scripted/oracle): askguess: missing: no played game "
            "(4 harness errors)",
        ]
    )
    assert "PASS" not in result.stdout.str() and "gate passed" not in result.stdout.str()
    new = pytester.path / "reports" / "gameeval-report.json"
    gate = read_report(new)["gate"]["games"]["askguess"]
    assert (
        gate["verdict"] == "fail"
        and gate["result"] == "missing"
        and gate["games_played"] == 0
        and gate["harness_errors"] == 4
    )
    assert report_main(["diff", str(baseline), str(new)]) == 1
    assert report_main(["diff", str(new), str(baseline), "--allow-missing"]) == 0


def test_a_game_missing_from_the_baseline_fails_the_gate_unless_allowed(pytester, baseline):
    args = ["--gameeval-games", "askguess,age", "--gameeval-model", ORACLE, "--gameeval-limit", "2",
            "--gameeval-role", f"answerer={ORACLE}", "--gameeval-baseline", str(baseline)]
    result = pytester.runpytest_inprocess(*args, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"*age: not in the baseline {ORACLE} (--gameeval-gate-allow-missing to accept)",
                                 "gameeval gate FAILED (*): *age: not in the baseline"])
    result = pytester.runpytest_inprocess(*args, "--gameeval-gate-allow-missing", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines([f"*age: not in the baseline {ORACLE} (allowed)", "gameeval gate passed*"])


def test_a_two_word_baseline_outside_the_project_cannot_drop_the_ini_settings(pytester, baseline, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "base.json"
    outside.write_text(baseline.read_text())
    pytester.makepyprojecttoml(f'[tool.pytest.ini_options]\ngameeval_model = "{ORACLE}"\ngameeval_limit = "3"\n')
    result = pytester.runpytest_inprocess(
        "--gameeval-games", "askguess", "--gameeval-baseline", str(outside), "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert (
        len(errors) == 1
        and f"write --gameeval-baseline={outside}" in errors[0]
        and "pyproject.toml was not read" in errors[0]
    )
    result = pytester.runpytest_inprocess(
        "--gameeval-games",
        "askguess",
        f"--gameeval-baseline={outside}",
        "-p",
        "no:cacheprovider",
        "--gameeval-role",
        f"answerer={ORACLE}",
    )  # the baseline's answerer
    assert result.ret == 0, result.stdout.str()  # the ini's model and limit were read
    result.stdout.fnmatch_lines(["*askguess: 3 played*", "gameeval gate passed*"])


def test_a_corrupt_or_mismatched_baseline_is_one_clear_error(pytester, baseline):
    corrupt = pytester.path / "corrupt.json"
    corrupt.write_text(baseline.read_text()[:200])
    result = run(pytester, "--gameeval-model", ORACLE, "--gameeval-baseline", str(corrupt))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: gameeval: *corrupt.json:*: report is not valid JSON*"])
    result = run(
        pytester, "--gameeval-model", ORACLE, "--gameeval-option", "max_rounds=7", "--gameeval-baseline", str(baseline)
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: gameeval: baseline * does not match this run: askguess: different game options max_rounds=30->7"]
    )


def test_a_baseline_of_another_game_version_stops_the_gate_in_one_line_unless_allowed(pytester, baseline):
    data = json.loads(baseline.read_text())
    assert data["games"]["askguess"]["version"] == get_spec("askguess").version
    data["games"]["askguess"]["version"] = "0"
    baseline.write_text(json.dumps(data))
    result = run(
        pytester, "--gameeval-model", ORACLE, "--gameeval-limit", N_CASES, "--gameeval-baseline", str(baseline)
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    version = get_spec("askguess").version
    assert len(errors) == 1 and f"askguess: incomparable game versions (old: 0, new: {version})" in errors[0], (
        result.stderr.lines
    )
    assert (
        f"re-make the baseline with askguess version {version}" in errors[0]
        and "--gameeval-allow-version-change" in errors[0]
    )
    result = run(
        pytester,
        "--gameeval-model",
        ORACLE,
        "--gameeval-limit",
        N_CASES,
        "--gameeval-baseline",
        str(baseline),
        "--gameeval-allow-version-change",
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "gameeval gate passed*[[]game versions differ, compared anyway (--gameeval-allow-version-change): "
            f"askguess 0 -> {version}*"
        ]
    )
    report = read_report(pytester.path / "reports" / "gameeval-report.json")
    assert report["games"]["askguess"]["version"] == version and report["gate"]["version_changes"] == [
        f"askguess 0 -> {version}"
    ]


# -- xdist ------------------------------------------------------------------------------------------


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_xdist_merges_workers_into_one_report_equal_to_a_single_process_run(pytester):
    common = [*ASKGUESS, "--gameeval-model", RANDOM, "--gameeval-limit", "4", "--gameeval-trials", "2",
              "--gameeval-option", "max_rounds=6", "--gameeval-shard-size", "3"]
    single = pytester.runpytest_inprocess(*common, "--gameeval-report", "single.json")
    single.assert_outcomes(passed=8)
    multi = pytester.runpytest_subprocess(*common, "-n", "2", "--gameeval-report", "multi.json")
    multi.assert_outcomes(passed=8)
    one, two = read_report(pytester.path / "single.json"), read_report(pytester.path / "multi.json")
    assert two["run"]["workers"] == 2
    assert len({c["id"] for c in two["cases"]}) == 8
    assert cases_without_timing(one) == cases_without_timing(two)


@pytest.mark.slow  # a plugin run of real games (~8 s on 2 busy cores)
def test_inspects_own_deprecation_warning_does_not_reach_the_users_summary(pytester, monkeypatch):
    """inspect's retry policy hands tenacity a deprecated argument on every call through its
    OpenAI-compatible provider: in a user's project (no filter of ours in their ini) that was one
    warning per model call in their summary. Real SDK and HTTP against the benchmarks' loopback
    server; a subprocess, since in-process this suite's own ini filter would hide it either way."""
    with loopback_server(120) as url:
        monkeypatch.setenv("LOOPBACK_BASE_URL", url)
        monkeypatch.setenv("LOOPBACK_API_KEY", "unused")
        result = pytester.runpytest_subprocess(
            "--gameeval-games",
            "askguess",
            "--gameeval-model",
            "openai-api/loopback/bench",
            "--gameeval-option",
            "max_rounds=2",
            "--gameeval-limit",
            "1",
            "-rw",
            "-p",
            "no:cacheprovider",
        )
    result.assert_outcomes(passed=1)
    assert "'initial' parameter is deprecated" not in result.stdout.str()


@pytest.mark.slow  # a pytest run in a subprocess (~8 s on 2 busy cores)
def test_a_users_run_shows_no_warning_from_the_plugin(tmp_path):
    """The plugin's modules are imported by pytest itself: importing them first from the entry
    module made pytest warn 'Module already imported so cannot be rewritten' in every run."""
    run_ = subprocess.run([sys.executable, "-m", "pytest", "--gameeval-only", "-p", "no:cacheprovider", *ASKGUESS[:2],
                           "--gameeval-model", ORACLE, "--gameeval-limit", "1", "-W", "error::pytest.PytestWarning"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run_.returncode == 0, run_.stdout[-2000:] + run_.stderr[-2000:]
    assert "cannot be rewritten" not in run_.stdout + run_.stderr and "warnings summary" not in run_.stdout
