"""Spend (issue 46) end to end over the loopback OpenAI-compatible server (real SDK, real HTTP on
127.0.0.1, usage in every reply): the cost per case, seat, game and run equals usage x price; the
estimate of the same plan holds the actual cost within its range; a budget of half the estimate
stops starting games at about half, marks the rest missing with the reason, never lets the gate
pass on games it did not play, and holds for two xdist workers together; an unpriced model is named
in one line; a bad price table is one error line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from conftest import loopback_server

import pytest_gameeval.run.runner  # noqa: F401  (inspect imported once for in-process runs)
from pytest_gameeval.analysis.cost.prices import usd as money
from pytest_gameeval.analysis.report.file import read_report

pytest_plugins = ["pytester"]

MODEL = "openai-api/loopback/bench"
PRICE = {"input": 10.0, "output": 40.0, "input_cache_write": 0.0, "input_cache_read": 5.0}  # USD per million
PLAN = ["--gameeval-games", "askguess", "--gameeval-limit", "8", "--gameeval-option", "max_rounds=5"]
# the loopback server here does not cache prompts: the estimate and the budget assume no caching either
COMMON = ["--gameeval-only", "-p", "no:cacheprovider", "--gameeval-model", MODEL, *PLAN,
          "--gameeval-cost-config=prices.yaml", "--gameeval-estimate-no-cache"]


@pytest.fixture(scope="module")
def loopback():
    with loopback_server(600) as url:
        yield url


@pytest.fixture
def priced(pytester, monkeypatch, loopback):
    monkeypatch.setenv("LOOPBACK_BASE_URL", loopback)
    monkeypatch.setenv("LOOPBACK_API_KEY", "unused")
    monkeypatch.setenv("GAMEEVAL_PROGRESS_SECONDS", "0")
    (pytester.path / "prices.yaml").write_text(f"{MODEL}:\n" + "".join(f"  {k}: {v}\n" for k, v in PRICE.items()))
    return pytester


def usd(usage: dict) -> float:
    return (usage["input_tokens"] * PRICE["input"] + usage["output_tokens"] * PRICE["output"]) / 1e6


def estimate(pytester, rounds: int = 5) -> dict:
    """`gameeval estimate` of the plan COMMON plays (with `rounds` rounds), as JSON."""
    from pytest_gameeval.cli.estimate import main

    args = [MODEL, "--games", "askguess", "--limit", "8", "-T", f"max_rounds={rounds}", "--cost-config",
            str(pytester.path / "prices.yaml"), "--format", "json", "--no-cache"]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(args) == 0
    return json.loads(buffer.getvalue())


def test_cost_per_case_seat_game_and_run_is_usage_times_price(priced):
    result = priced.runpytest_inprocess(*COMMON, "--gameeval-summary-md", "summary.md")
    result.assert_outcomes(passed=8)
    report = read_report(priced.path / "reports" / "gameeval-report.json")
    total = 0.0
    for case in report["cases"]:
        seat = case["cost"]["seats"]["Questioner"]
        assert seat["model"] == MODEL and seat["usd"] == pytest.approx(usd(case["usage"]["Questioner"]))
        assert case["cost"]["seats"]["Answerer"]["usd"] == 0.0  # the reference policy: no API call
        assert case["cost"]["usd"] == pytest.approx(seat["usd"])
        total += seat["usd"]
    game = report["games"]["askguess"]["cost"]
    assert game["usd"] == pytest.approx(total) and report["cost"]["usd"] == pytest.approx(total)
    assert game["by_seat"][f"Questioner (questioner) {MODEL}"]["usd"] == pytest.approx(total)
    assert report["cost"]["complete"] and report["cost"]["unpriced"] == []
    result.stdout.fnmatch_lines([f"cost of the run (prices: *prices.yaml): {money(total)} = {MODEL} *"])
    assert "cost of the run" in (priced.path / "summary.md").read_text()


@pytest.mark.parametrize("rounds", [3, 5, 30])
def test_the_estimate_of_the_same_plan_holds_the_actual_cost_in_its_range(priced, rounds):
    guess = estimate(priced, rounds)["total"]
    plan = [a if a != "max_rounds=5" else f"max_rounds={rounds}" for a in COMMON]
    priced.runpytest_inprocess(*plan).assert_outcomes(passed=8)
    actual = read_report(priced.path / "reports" / "gameeval-report.json")["cost"]["usd"]
    assert guess["usd"]["p10"] <= actual <= guess["usd"]["p90"], (guess["usd"], actual)
    # 8 games x every question (the server's questioner never wins); the answerer is scripted, no API call
    assert guess["calls"]["p10"] <= 8 * rounds <= guess["calls"]["p90"]


def test_the_plugins_estimate_says_the_same_and_plays_nothing(priced):
    result = priced.runpytest_inprocess(*COMMON, "--gameeval-estimate", "--gameeval-report", "none.json")
    assert result.ret == 0
    total = estimate(priced)["total"]["usd"]
    result.stdout.fnmatch_lines(["gameeval estimate (plays nothing*", "  askguess: 8 games x 5 *",
                                 f"  total: * calls, cost {money(total['mean'])} (range {money(total['p10'])} to *"])
    assert not (priced.path / "none.json").exists()


def _budget_run(priced, *extra: str, subprocess_run: bool = False) -> tuple[dict, float]:
    half = estimate(priced)["total"]["usd"]["mean"] / 2
    args = (*COMMON, f"--gameeval-budget={half}", *extra)
    result = priced.runpytest_subprocess(*args) if subprocess_run else priced.runpytest_inprocess(*args)
    return read_report(priced.path / "reports" / "gameeval-report.json"), half, result


def test_a_budget_of_half_the_estimate_plays_about_half_and_marks_the_rest_missing(priced):
    report, half, result = _budget_run(priced)
    played = [c for c in report["cases"] if c["status"] == "played"]
    refused = [c for c in report["cases"] if c.get("reason", "").startswith("budget")]
    assert 2 <= len(played) <= 5 and len(played) + len(refused) == 8
    assert report["cost"]["usd"] <= half
    assert report["cost"]["budget"]["refused"] == len(refused)
    result.stdout.fnmatch_lines([f"budget: *; {len(refused)} games not started (missing, reason 'budget')"])
    assert not list(priced.path.glob("reports/*.sqlite"))  # the ledger goes with the run


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_with_two_workers_the_budget_holds_for_both_together(priced):
    report, half, _ = _budget_run(priced, "-n", "2", "--gameeval-shard-size", "2", subprocess_run=True)
    played = [c for c in report["cases"] if c["status"] == "played"]
    assert report["run"]["workers"] == 2 and 2 <= len(played) <= 5
    assert sum(c["cost"]["usd"] for c in played) <= half


def test_the_gate_does_not_pass_on_games_the_budget_did_not_play(priced):
    priced.runpytest_inprocess(*COMMON, "--gameeval-report", "base.json").assert_outcomes(passed=8)
    report, _, result = _budget_run(priced, "--gameeval-baseline=base.json", "--gameeval-gate-looks", "1")
    gate = report["gate"]["games"]["askguess"]
    assert gate["budget_missing"] > 0 and gate["verdict"] == "fail" and gate["reason"].startswith("budget")
    assert report["gate"]["verdict"] == "fail" and result.ret == 1
    result.stdout.fnmatch_lines(["gameeval gate FAILED*askguess: budget: *"])


def test_a_model_with_no_price_is_named_once_and_never_priced_zero(priced):
    other = "openai/gpt-4o-mini:\n" + "".join(f"  {k}: {v}\n" for k, v in PRICE.items())
    (priced.path / "prices.yaml").write_text(other)
    result = priced.runpytest_inprocess(*COMMON)
    report = read_report(priced.path / "reports" / "gameeval-report.json")
    assert report["cost"]["unpriced"] == [MODEL] and not report["cost"]["complete"]
    assert all(c["cost"]["usd"] is None for c in report["cases"])
    lines = [line for line in result.outlines if MODEL in line and "NO PRICE" in line]
    assert len(lines) == 1
    budget = priced.runpytest_inprocess(*COMMON, "--gameeval-budget=1")
    assert budget.ret == pytest.ExitCode.USAGE_ERROR
    budget.stderr.fnmatch_lines([f"ERROR: gameeval: --gameeval-budget: no price for {MODEL} in *"])


@pytest.mark.parametrize("text, says", [
    ("[1, 2]", "expected a mapping of model names"),
    (f"{MODEL}:\n  input: 1\n  output: 2\n", "missing input_cache_write, input_cache_read"),
    (f"{MODEL}:\n  input: -1\n  output: 2\n  input_cache_write: 0\n  input_cache_read: 0\n", "input=-1"),
    ("{: nope", "not JSON or YAML"),
])
def test_a_bad_price_table_is_one_error_line(priced, text, says):
    (priced.path / "prices.yaml").write_text(text)
    result = priced.runpytest_inprocess(*COMMON)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.startswith("ERROR: gameeval: price table")]
    assert len(errors) == 1 and says in errors[0]


def test_report_diff_gives_both_runs_cost(priced, capsys):
    from pytest_gameeval.cli.report import main

    priced.runpytest_inprocess(*COMMON, "--gameeval-report", "old.json").assert_outcomes(passed=8)
    priced.runpytest_inprocess(*COMMON, "--gameeval-report", "new.json").assert_outcomes(passed=8)
    cost = read_report(priced.path / "new.json")["cost"]["usd"]
    capsys.readouterr()
    main(["diff", str(priced.path / "old.json"), str(priced.path / "new.json")])
    out = capsys.readouterr().out
    assert f"Cost: old {money(cost)}, new {money(cost)}." in out
    assert f"- askguess: old {money(cost / 8)} a game" in out


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_gameeval_compare_refuses_cases_one_by_one_on_both_sides_within_the_budget(tmp_path):
    """compare plays through inspect's eval_set (every case at once): each case asks the budget
    before it starts, for both sides at once, so a refused case is played by neither side, and the
    loopback server's bill (prompt caching billed as OpenAI does) stays within the budget."""
    models = ("openai-api/loopback/cmp-a", "openai-api/loopback/cmp-b")
    prices = tmp_path / "p.yaml"
    prices.write_text("".join(f"{m}: {{input: 10, output: 40, input_cache_write: 12.5, input_cache_read: 1}}\n"
                              for m in models))
    with loopback_server(300, "--cache", "openai", "--cache-min", "256", "--prices", str(prices)) as url:
        run = subprocess.run(
            ["gameeval", "compare", *models, "--games", "askguess", "--limit", "6", "-T", "max_rounds=12",
             "--cost-config", "p.yaml", "--budget", "0.2", "--out", "cmp", "--display", "none"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
            env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0", "LOOPBACK_BASE_URL": url, "LOOPBACK_API_KEY": "x",
                 "PATH": f"{Path(sys.executable).parent}:" + os.environ.get("PATH", "")})
        with urllib.request.urlopen(url.removesuffix("/v1") + "/_bill", timeout=10) as response:
            billed = json.load(response)
    out = run.stdout + run.stderr
    assert "budget $0.2000: the plan of 6 cases per game, estimated at most" in out, out[-3000:]
    result = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    refused = result["budget"]["refused_cases"]
    assert 0 < len(refused) < 6, out[-3000:]
    assert f"{len(refused)} of 6 cases not started on either side (the budget)" in out
    headline = result["games"]["askguess"]["metrics"]["played_quality"]
    assert headline["n_old"] == headline["n_new"] == 6 - len(refused)  # the same cases on both sides: still paired
    assert headline["paired"] and headline["unpaired"] == {"old": 0, "new": 0}
    spent = result["cost"]["A"]["usd"] + result["cost"]["B"]["usd"]
    assert billed["usd"] == pytest.approx(spent, rel=0.01) == pytest.approx(result["budget"]["spent"], rel=0.01)
    assert billed["usd"] <= 0.2


def test_slices_merged_cost_what_one_run_costs(priced, capsys):
    from pytest_gameeval.cli.report import main

    priced.runpytest_inprocess(*COMMON, "--gameeval-report", "whole.json").assert_outcomes(passed=8)
    for k in (1, 2):
        priced.runpytest_inprocess(*COMMON, f"--gameeval-shard={k}/2", "--gameeval-report", f"s{k}.json")
    assert main(["merge", str(priced.path / "merged.json"), str(priced.path / "s1.json"),
                 str(priced.path / "s2.json")]) == 0
    whole, merged = (read_report(priced.path / f"{n}.json")["cost"] for n in ("whole", "merged"))
    assert merged["usd"] == pytest.approx(whole["usd"]) and merged["games_priced"] == 8
    assert merged["by_model"][MODEL]["calls"] == whole["by_model"][MODEL]["calls"] == 40


def test_games_waiting_for_the_budget_when_the_provider_stops_the_run_say_the_providers_reason(priced, monkeypatch):
    """Issue 44 stops a run on a provider that cannot answer; the games that were waiting for the
    budget then are not played for that reason, not for 'budget'."""
    monkeypatch.setenv("LOOPBACK_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens on the discard port
    priced.runpytest_inprocess(*COMMON, "--gameeval-budget=0.05", "--gameeval-max-retries", "0")  # 3 games fit
    cases = read_report(priced.path / "reports" / "gameeval-report.json")["cases"]
    assert all(c["status"] in ("error", "not played") for c in cases)
    assert not [c for c in cases if str(c.get("reason", "")).startswith("budget")]
    assert any(c.get("error", "").startswith("provider failure") for c in cases)
