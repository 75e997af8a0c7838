"""Prices, costs, the estimate's arithmetic and the shared ledger (issue 46), without playing."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from pytest_gameeval.analysis.cost.estimate import estimate_game, measured_games
from pytest_gameeval.analysis.cost.prices import (
    Price,
    PriceTable,
    case_cost,
    load_prices,
    totals,
)
from pytest_gameeval.analysis.cost.profile import load_profiles
from pytest_gameeval.analysis.cost.report import cost_diff, cost_diff_lines, gate_savings
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.run.budget import Ledger, Spend

PRICES = {"input": 2.5, "output": 10, "input_cache_write": 3.125, "input_cache_read": 1.25}


def test_the_same_file_inspect_reads_json_or_yaml(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps({"openai/gpt-4o": PRICES}))
    (tmp_path / "p.yaml").write_text("openai/gpt-4o:\n" + "".join(f"  {k}: {v}\n" for k, v in PRICES.items()))
    for name in ("p.json", "p.yaml"):
        table = load_prices(tmp_path / name)
        assert table.price("openai/gpt-4o") == Price(2.5, 10.0, 3.125, 1.25)
    from inspect_ai.model._model_data.model_data import ModelCost

    ModelCost(**PRICES)  # the format inspect's --model-cost-config validates


def test_who_has_a_price():
    table = PriceTable({"openai/gpt-4o": Price(1, 2), "gameeval/local/x.gguf": Price(3, 4)})
    assert table.price("openai/gpt-4o-mini") is None  # never 0 by default
    assert table.price("gameeval/local/x.gguf@abcdef12") == Price(3, 4)  # a local GGUF by its identity
    assert table.price("gameeval/scripted/reference") == Price(0, 0)  # our own players make no API call
    assert table.price("gameeval/local/y.gguf@12345678") == Price(0, 0)


@pytest.mark.parametrize("text, says", [
    ("", "expected a mapping"),
    ("m: 3", "m: expected a mapping of prices"),
    ("m: {input: 1, output: 1, input_cache_write: 0}", "missing input_cache_read"),
    ("m: {input: 1, output: 1, input_cache_write: 0, input_cache_read: 0, extra: 1}", "unknown field extra"),
    ("m: {input: x, output: 1, input_cache_write: 0, input_cache_read: 0}", "m.input='x'"),
    ("m: {input: .nan, output: 1, input_cache_write: 0, input_cache_read: 0}", "m.input=nan"),
])
def test_a_bad_price_table_is_one_line(tmp_path, text, says):
    (tmp_path / "p.yaml").write_text(text)
    with pytest.raises(GameEvalError) as e:
        load_prices(tmp_path / "p.yaml")
    assert says in str(e.value) and "\n" not in str(e.value)


def test_an_unreadable_price_table_is_one_line(tmp_path):
    with pytest.raises(GameEvalError, match="cannot read"):
        load_prices(tmp_path / "missing.yaml")


def entry(model_a: str, model_b: str, tokens: tuple[int, int] = (1000, 100)) -> dict:
    return {"usage": {"A": {"input_tokens": tokens[0], "output_tokens": tokens[1], "calls": 2},
                      "B": {"input_tokens": 10, "output_tokens": 1, "calls": 2}},
            "seats": {"A": {"model": model_a, "role": "x"}, "B": {"model": model_b, "role": "y"}}}


def test_costs_add_up_and_an_unpriced_model_is_never_zero():
    table = PriceTable({"a": Price(1, 2)})
    priced = case_cost(entry("a", "gameeval/scripted/reference"), table)
    assert priced["usd"] == pytest.approx((1000 * 1 + 100 * 2) / 1e6)
    unpriced = case_cost(entry("a", "b"), table)
    assert unpriced["usd"] is None and unpriced["seats"]["B"]["usd"] is None
    run = totals([priced, unpriced])
    assert run["unpriced"] == ["b"] and not run["complete"]
    assert run["usd"] == pytest.approx(2 * priced["usd"])  # the priced seats only, and it says so
    assert run["free"] == {"gameeval/scripted/reference": "scripted policy, no API call"}
    assert run["games_priced"] == 1


def test_the_gate_says_what_its_early_stop_saved():
    report = {"cases": [{"game": "g", "status": "played"}] * 4
              + [{"game": "g", "status": "not played", "reason": "the sequential gate reached its verdict on g"}] * 6,
              "games": {"g": {"cost": {"per_game": {"mean": 0.5, "p10": 0.4, "p90": 0.6}}}},
              "gate": {"games": {"g": {}}}}
    saved = gate_savings(report)
    assert saved["games"] == 6 and saved["usd"] == pytest.approx(3.0)
    assert report["gate"]["games"]["g"]["saved_games"] == 6


def test_report_diff_gives_both_runs_cost():
    old = {"cost": {"usd": 1.0, "complete": True, "unpriced": [], "per_game": {"mean": 0.1}},
           "games": {"g": {"cost": {"usd": 1.0, "complete": True, "unpriced": [], "per_game": {"mean": 0.1}}}}}
    lines = cost_diff_lines(cost_diff(old, {"games": {"g": {}}}))
    assert lines == ["Cost: old $1.00, new not priced.", "- g: old $0.1000 a game, new not priced"]
    assert cost_diff({}, {}) is None


def test_every_game_has_a_profile_shipped_in_the_package_and_another_version_is_said():
    from pytest_gameeval.analysis.cost.estimate import estimate_plans

    profiles = load_profiles()
    for name in GAMES:
        assert profiles["games"][name]["games"], name
    spec = get_spec("askguess")
    options = spec.parse_options({})
    plan = [{"spec": spec, "options": options, "games": 1, "model_of": lambda role: "m"}]
    older = {**profiles, "games": {"askguess": {**profiles["games"]["askguess"], "version": "0"}}}
    note = estimate_plans(plan, None, older)["games"][0]["note"]
    assert note == f"profile measured on version 0 of the game, this is {spec.version}"


def test_a_profile_is_cut_at_the_plans_rounds_priced_per_role_and_a_cut_game_continued():
    two = {"1": {"evaluated": [1, 400, 40], "answerer": [1, 400, 4]},
           "2": {"evaluated": [1, 800, 40], "answerer": [1, 800, 4]}}
    profile = {"games": [{"max_rounds": 30, "rounds": two}, {"max_rounds": 2, "rounds": two}]}
    table = PriceTable({"m": Price(1_000_000, 0)})  # a dollar a token in, outputs free
    models = {"evaluated": "m", "answerer": "gameeval/scripted/reference"}
    cut = measured_games(profile, 1, models.__getitem__, table, 4.0)
    assert [g["calls"] for g in cut] == [1, 1] and cut[0]["usd"] == pytest.approx(100)
    # a plan of 3 rounds: the game that ended by itself in round 2 stays as it was; the one that ran
    # out of its 2 rounds goes on, its prompt growing by 400 characters a round
    longer = measured_games(profile, 3, models.__getitem__, table, 4.0)
    assert [g["calls"] for g in longer] == [2, 3]
    assert longer[0]["usd"] == pytest.approx(300) and longer[1]["usd"] == pytest.approx(600)
    est = estimate_game("g", 10, longer[:1], gate_games=(4, 10))
    assert est["total"]["usd"]["mean"] == pytest.approx(3000) and est["gate"]["expected_usd"] == pytest.approx(1200)


def test_the_ledger_is_one_budget_for_every_process(tmp_path):
    path = tmp_path / "spend.sqlite"
    first, second = Ledger(path, 1.0, fresh=True), Ledger(path, 1.0)  # two processes' connections
    table = PriceTable({})
    spends = [Spend(table, ledger, lambda game: 0.4) for ledger in (first, second)]

    async def start(spend: Spend, name: str) -> str | None:
        return await spend.refuse(SimpleNamespace(name=name, game="g"))

    assert asyncio.run(start(spends[0], "a")) is None and asyncio.run(start(spends[1], "b")) is None
    first.settle("a", 0.5)
    second.settle("b", 0.45)  # nothing runs now: 0.95 spent, 0.4 more would pass 1.0
    reason = asyncio.run(start(spends[0], "c"))
    assert reason.startswith("budget: not started") and "$1.00" in reason
    totals_ = second.totals()
    assert totals_["done"] == 2 and totals_["refused"] == 1 and totals_["spent"] == pytest.approx(0.95)


def test_the_progress_line_gives_the_spend_so_far_and_the_estimate_to_finish(tmp_path):
    from pytest_gameeval.run.budget import SpendTally

    ledger = Ledger(tmp_path / "spend.sqlite", 1.0, fresh=True)
    tally = SpendTally(ledger, lambda: (10, 0.05))
    assert tally.line() == ("spend: $0 so far over 0 finished games, about $0.5000 to finish the 10 left "
                            "(estimated: $0.0500 a game), budget $1.00")
    ledger.reserve("a", "g", 0.05, final=True)
    ledger.settle("a", 0.08)
    assert tally.started == tally.finished == 1
    assert "spend: $0.0800 so far over 1 finished games, about $0.7200 to finish the 9 left" in tally.line()


def test_cache_tokens_in_a_usage_are_priced_at_their_own_prices():
    usage = {"input_tokens": 20, "output_tokens": 10, "calls": 2, "input_tokens_cache_read": 200,
             "input_tokens_cache_write": 40}
    cost = case_cost({"usage": {"Q": usage}, "seats": {"Q": {"model": "m"}}}, PriceTable({"m": Price(**PRICES)}))
    assert cost["usd"] == pytest.approx((20 * 2.5 + 10 * 10 + 200 * 1.25 + 40 * 3.125) / 1e6)


def test_the_leaderboard_gives_what_a_game_cost_where_it_was_priced(tmp_path):
    from pytest_gameeval.analysis.rankings.leaderboard import Board, add_report, build, render_markdown

    spec = get_spec("askguess")
    cases = [{"game": "askguess", "status": "played", "scores": {spec.headline: 0.5},
              "cost": {"usd": usd}} for usd in (0.01, 0.03)]
    report = {"models": {"evaluated": "m"}, "games": {"askguess": {"version": spec.version}}, "cases": cases}
    board = Board()
    add_report(board, tmp_path / "r.json", report)
    data = build(board, n_resamples=10)
    cell = data["rows"][0]["cells"][f"askguess@{spec.version}"]
    assert cell["cost_per_game"] == pytest.approx(0.02) and cell["games_priced"] == 2
    assert "(n=2), $0.0200 a game" in render_markdown(data)


def test_the_estimate_prices_a_bound_role_and_refuses_a_role_no_game_has(capsys):
    from pytest_gameeval.cli.estimate import main

    with pytest.raises(GameEvalError, match="--role players: no selected game has this model role"):
        main(["openai/gpt-4o-mini", "--games", "spyfall", "--role", "players=x"])
    assert main(["openai/gpt-4o-mini", "--games", "spyfall", "--limit", "2", "--role", "villager=other/model",
                 "--format", "json"]) == 0
    estimate = json.loads(capsys.readouterr().out)
    assert estimate["unpriced"] == ["openai/gpt-4o-mini", "other/model"]  # no table: nothing is priced 0
    assert estimate["games"][0]["models"] == ["openai/gpt-4o-mini", "other/model"]
