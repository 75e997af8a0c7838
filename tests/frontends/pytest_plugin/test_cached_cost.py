"""True cost (issue 54): on loopback servers that bill prompt caching as the providers do (their own
arithmetic, their own bill at GET /_bill), the report's cost of a run is the bill within 1 %, OpenAI-
style (cached prefixes in 128-token blocks) and Anthropic-style (cache writes and reads by inspect's
cache breakpoints); the cached tokens are in the report's counts; without caching the report holds
no cache counts and still matches the bill; and a budget never lets the bill pass the budget plus
one game."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

import pytest
from conftest import loopback_server

import pytest_gameeval.run.runner  # noqa: F401  (inspect imported once for in-process runs)
from pytest_gameeval.analysis.report.file import read_report

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "live"))
import fault_server  # noqa: E402

pytest_plugins = ["pytester"]

OPENAI = "openai-api/loopback/cached"  # a fresh name per server: inspect memoizes a model in-process by its name
ANTHROPIC = "anthropic/claude-sonnet-4-0"
# all four prices differ, so a token counted under the wrong price shows in the total
PRICE = {"input": 10.0, "output": 40.0, "input_cache_write": 12.5, "input_cache_read": 1.0}  # USD per million
PLAN = ["--gameeval-games", "askguess", "--gameeval-limit", "4", "--gameeval-option", "max_rounds=12",
        "--gameeval-option", "opponents=self"]
CACHE_KEYS = ("input_tokens_cache_read", "input_tokens_cache_write")


def bill(base_url: str) -> dict:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/_bill", timeout=10) as response:
        return json.load(response)


def write_prices(path: Path, model: str) -> Path:
    path.write_text(f"{model}:\n" + "".join(f"  {k}: {v}\n" for k, v in PRICE.items()))
    return path


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.setenv("GAMEEVAL_PROGRESS_SECONDS", "0")
    return pytester


def run(project, model: str, *extra: str) -> dict:
    result = project.runpytest_inprocess("--gameeval-only", "-p", "no:cacheprovider", "--gameeval-model", model,
                                         *PLAN, "--gameeval-cost-config=prices.yaml", *extra)
    assert result.ret == 0, result.stdout.str()[-2000:]
    return read_report(project.path / "reports" / "gameeval-report.json")


def assert_report_is_the_bill(report: dict, billed: dict, model: str) -> None:
    assert billed["calls"] > 0 and billed["usd"] > 0
    assert report["cost"]["usd"] == pytest.approx(billed["usd"], rel=0.01)
    counted = report["cost"]["by_model"][model]
    for key in ("input_tokens", "output_tokens", *CACHE_KEYS):
        assert counted[key] == billed[key], key
    game_usage = report["games"]["askguess"]["usage"]
    for key in CACHE_KEYS:  # the game's token counts hold the cache's too
        assert sum(seat.get(key, 0) for seat in game_usage.values()) == billed[key], key


def test_openai_style_cached_prefixes_are_counted_and_priced_as_billed(project, monkeypatch):
    prices = write_prices(project.path / "prices.yaml", OPENAI)
    with loopback_server(300, "--cache", "openai", "--cache-min", "256", "--prices", str(prices)) as url:
        monkeypatch.setenv("LOOPBACK_BASE_URL", url)
        monkeypatch.setenv("LOOPBACK_API_KEY", "unused")
        report = run(project, OPENAI)
        billed = bill(url)
    assert billed["input_tokens_cache_read"] > billed["input_tokens"] / 4  # most of a long game is cached
    assert_report_is_the_bill(report, billed, OPENAI)
    case = report["cases"][0]
    assert any(u.get("input_tokens_cache_read") for u in case["usage"].values())  # per seat, per case
    # the estimate of the same plan, with the same caching, brackets the bill; without caching it is higher
    cached, uncached = estimate(prices, "--cache-min", "256"), estimate(prices, "--no-cache")
    assert cached["p10"] <= billed["usd"] <= cached["p90"], (cached, billed["usd"])
    assert uncached["mean"] > cached["mean"]


def estimate(prices: Path, *extra: str) -> dict:
    """`gameeval estimate` of the plan PLAN plays: the total cost's mean and range."""
    import contextlib
    import io

    from pytest_gameeval.cli.estimate import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main([OPENAI, "--games", "askguess", "--limit", "4", "-T", "max_rounds=12", "-T", "opponents=self",
                     "--cost-config", str(prices), "--format", "json", *extra]) == 0
    return json.loads(buffer.getvalue())["total"]["usd"]


def test_anthropic_style_cache_writes_and_reads_are_counted_and_priced_as_billed(project, monkeypatch):
    prices = write_prices(project.path / "prices.yaml", ANTHROPIC)
    proc, url = fault_server.start("healthy", 300, "--cache", "anthropic", "--cache-min", "256", "--prices",
                                   str(prices))
    try:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
        report = run(project, ANTHROPIC)
        billed = bill(url)
    finally:
        proc.terminate()
        proc.wait(10)
    assert billed["input_tokens_cache_read"] > 0 and billed["input_tokens_cache_write"] > 0
    assert_report_is_the_bill(report, billed, ANTHROPIC)


def test_without_caching_the_records_hold_no_cache_counts_and_match_the_bill(project, monkeypatch):
    model = "openai-api/loopback/uncached"
    prices = write_prices(project.path / "prices.yaml", model)
    with loopback_server(300, "--prices", str(prices)) as url:
        monkeypatch.setenv("LOOPBACK_BASE_URL", url)
        monkeypatch.setenv("LOOPBACK_API_KEY", "unused")
        report = run(project, model)
        billed = bill(url)
    assert billed["input_tokens_cache_read"] == 0
    assert_report_is_the_bill(report, billed, model)
    for case in report["cases"]:
        assert all(set(u) == {"input_tokens", "output_tokens", "calls"} for u in case["usage"].values())


def test_a_budget_on_the_caching_server_never_bills_more_than_budget_plus_one_game(project, monkeypatch):
    model = "openai-api/loopback/budgeted"
    prices = write_prices(project.path / "prices.yaml", model)
    with loopback_server(300, "--cache", "openai", "--cache-min", "256", "--prices", str(prices)) as url:
        monkeypatch.setenv("LOOPBACK_BASE_URL", url)
        monkeypatch.setenv("LOOPBACK_API_KEY", "unused")
        budget = 0.1  # about half of what the four games bill
        report = run(project, model, f"--gameeval-budget={budget}")
        billed = bill(url)
    games = [c["cost"]["usd"] for c in report["cases"] if c.get("cost")]
    assert 0 < len(games) < 4, games
    assert billed["usd"] == pytest.approx(sum(games), rel=0.01)
    assert billed["usd"] <= budget + max(games)


@pytest.mark.parametrize("read,write,reasoning", [(0, 0, 0), (4096, 0, 0), (1024, 2048, 0), (0, 512, 300)])
def test_our_price_of_a_call_is_inspects_compute_model_cost(tmp_path, read, write, reasoning):
    """One price table, two readers: inspect's own cost of a call (compute_model_cost, as
    --model-cost-config uses it) and ours agree for every mix of cached and uncached tokens."""
    from inspect_ai.model import ModelUsage
    from inspect_ai.model._model import ModelCost, compute_model_cost

    from pytest_gameeval.analysis.cost.prices import case_cost, load_prices
    from pytest_gameeval.transport.usage import billed_tokens

    usage = ModelUsage(input_tokens=700, output_tokens=90, input_tokens_cache_read=read or None,
                       input_tokens_cache_write=write or None, reasoning_tokens=reasoning or None)
    seat_usage = {**billed_tokens(usage), "calls": 1}
    ours = case_cost({"usage": {"Q": seat_usage}, "seats": {"Q": {"model": OPENAI}}},
                     load_prices(write_prices(tmp_path / "prices.yaml", OPENAI)))["usd"]
    assert ours == pytest.approx(compute_model_cost(ModelCost(**PRICE), usage), rel=1e-12)
