"""The plugin's spend options: a price table (`--gameeval-cost-config`), the estimate of a planned run
(`--gameeval-estimate`, plays nothing), a budget for the whole run (`--gameeval-budget`), and the
cost in the report, the terminal summary and the progress lines.

Imported by every pytest run (plugin.py): the cost modules load only when a price table is given.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.pytest_plugin.options import option_value
from pytest_gameeval.pytest_plugin.state import STATE, GameEvalState, report_path_of

_OPTIONS = [
    ("--gameeval-cost-config", "gameeval_cost_config", "string",
     "price table FILE (YAML or JSON, inspect's --model-cost-config format: USD per million input, output, "
     "input_cache_write and input_cache_read tokens per model): the report, summary and progress lines give the cost"),
    ("--gameeval-budget", "gameeval_budget", "string",
     "USD for the whole run (needs --gameeval-cost-config): no game starts once the spend so far plus its expected "
     "cost would pass it; games not started are missing with the reason 'budget'"),
]
SPEND = pytest.StashKey[Any]()  # the run's budget.Spend, when a price table is given


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gameeval")
    for flag, ini, kind, help_text in _OPTIONS:
        group.addoption(flag, dest=ini, default=None, help=help_text)
        parser.addini(ini, help_text, type=kind, default="")  # type: ignore[arg-type]
    group.addoption("--gameeval-estimate", action="store_true", dest="gameeval_estimate", default=False,
                    help="print the calls, tokens and cost the run would take (from each game's token profile and "
                         "the price table), and play nothing; it assumes the providers' prompt caching")
    group.addoption("--gameeval-estimate-no-cache", action="store_true", dest="gameeval_estimate_no_cache",
                    default=False, help="the estimate (and the budget's reservations) assume no prompt caching")


def _budget(config: pytest.Config) -> float | None:
    raw = str(option_value(config, "gameeval_budget") or "").strip()
    if not raw:
        return None
    try:
        value = float(raw.removeprefix("$"))
    except ValueError:
        raise GameEvalError(f"--gameeval-budget={raw!r} must be a number of USD") from None
    if not value > 0:
        raise GameEvalError(f"--gameeval-budget={raw!r} must be more than 0 USD")
    return value


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    try:
        path = str(option_value(config, "gameeval_cost_config") or "").strip()
        budget = _budget(config)
        if budget is not None and not path:
            raise GameEvalError("--gameeval-budget needs prices: give --gameeval-cost-config FILE")
        estimate = bool(config.getoption("gameeval_estimate", False))
        if not (path or estimate):
            return
        from pytest_gameeval.analysis.cost.prices import load_prices

        table = load_prices(_resolve(config, path)) if path else None  # a bad table: one line, model or not
        if state is None or not state.settings.model:
            return
        if estimate:
            _print_estimate(config, state, table)
            pytest.exit("gameeval estimate: nothing played", returncode=0)
        _start_spend(config, state, table, budget)
    except GameEvalError as e:
        raise pytest.UsageError(f"gameeval: {e}") from None


def _resolve(config: pytest.Config, path: str) -> Any:
    from pathlib import Path

    given = Path(path).expanduser()
    base = config.invocation_params.dir if config.getoption("gameeval_cost_config", None) else config.rootpath
    return given if given.is_absolute() else base / given


def plan_estimate(state: GameEvalState, table: Any) -> dict[str, Any]:
    """The estimate of this run's plan: its games, cases, options and seats, the gate's cases."""
    from pytest_gameeval.analysis.cost.estimate import estimate_plans, replayed_gate_games, seat_models

    settings, plans = state.settings, []
    gated = state.gated_games()
    for name, plan in state.plans.items():
        entry = {"spec": plan.spec, "options": plan.options, "games": len(plan.cases),
                 "model_of": seat_models(plan.spec, plan.options, str(settings.model), settings.roles)}
        if name in gated:
            from pytest_gameeval.analysis.report.file import cases_of

            base = cases_of(state.baseline, name)  # type: ignore[arg-type]
            expected = replayed_gate_games(name, state.gate_metrics[name], settings.gate, base, len(plan.cases))
            entry["gate"] = (expected, len(plan.cases))
        plans.append(entry)
    from pytest_gameeval.analysis.cost.cache_model import MIN_PREFIX

    # the budget reserves by the same estimate: with the providers' caching unless told otherwise
    no_cache = state.config.getoption("gameeval_estimate_no_cache", False)
    return estimate_plans(plans, table, cache_min=None if no_cache else MIN_PREFIX)


def _print_estimate(config: pytest.Config, state: GameEvalState, table: Any) -> None:
    from pytest_gameeval.analysis.cost.estimate import estimate_lines

    terminal = config.pluginmanager.get_plugin("terminalreporter")
    for line in estimate_lines(plan_estimate(state, table)):
        if terminal is not None:
            terminal.write_line(line)
        else:
            print(line)


def _start_spend(config: pytest.Config, state: GameEvalState, table: Any, budget: float | None) -> None:
    """The shared ledger (fresh from the controller or the single process), the runner's hook, and a
    progress line of the spend. With a budget every model the run seats must have a price."""
    from pytest_gameeval.run.budget import Ledger, Spend, SpendTally, ledger_path

    estimate = plan_estimate(state, table)
    if budget is not None and estimate["unpriced"]:
        raise GameEvalError(f"--gameeval-budget: no price for {', '.join(estimate['unpriced'])} in {table.source}: "
                            "a budget needs every model's price")
    # a game reserves its cost at the top of the estimate's range (90th percentile of measured games),
    # not its mean: reserving the mean lets a run pass its budget whenever its games cost more than average
    per_game = {g["game"]: (g["per_game"]["usd"] or {}).get("p90", 0.0) for g in estimate["games"]}
    ledger = Ledger(ledger_path(report_path_of(state)), budget, fresh=not state.is_worker)
    spend = Spend(table, ledger, lambda game: per_game.get(game, 0.0))
    config.stash[SPEND] = spend
    if state.is_controller:
        return
    state.runner.spend = spend
    total = sum(len(p.cases) for p in state.plans.values())
    expected_total = (estimate["total"]["usd"] or {}).get("mean")
    each = None if expected_total is None or not total else expected_total / total
    if state.runner.progress:  # progress lines are on (no terminal): the spend gets its own line
        state.runner.progress["$spend"] = SpendTally(ledger, lambda: (total, each))


def add_spend(state: GameEvalState, report: dict[str, Any]) -> None:
    """The report's cost (every case, game and the run), the gate's savings, the budget; a gated game
    the budget left undecided fails with the reason. Called by report_writer before writing."""
    spend = state.config.stash.get(SPEND, None)
    if spend is None:
        return
    from pytest_gameeval.analysis.cost.prices import price_report
    from pytest_gameeval.analysis.cost.report import gate_savings
    from pytest_gameeval.analysis.verdicts.game import gate_failures

    run = price_report(report, spend.table)
    if report.get("gate"):
        run["gate_saved"] = gate_savings(report)
        budget_verdicts(report)
        report["gate"]["verdict"] = "fail" if gate_failures(report["gate"]) else "pass"
    refused = sum(str(c.get("reason", "")).startswith("budget") for c in report["cases"])
    budget = spend.ledger.budget
    run["budget"] = {"budget": budget, "spent": run["usd"], "refused": refused} if budget else None
    if spend.broken and run["budget"] is not None:  # the run stopped starting games: it says why, and fails
        run["budget"]["ledger_error"] = spend.broken
    spend.ledger.path.unlink(missing_ok=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A budget that could not be kept (its ledger broke mid-run) never lets the run pass."""
    spend = session.config.stash.get(SPEND, None)
    state = session.config.stash.get(STATE, None)
    if spend is None or state is None or state.report is None:
        return
    if ((state.report.get("cost") or {}).get("budget") or {}).get("ledger_error") and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def budget_verdicts(report: dict[str, Any]) -> None:
    """A gated game with games the budget did not start and no decided verdict fails: those games
    might have decided it (the gate never passes on games it did not play)."""
    from pytest_gameeval.analysis.verdicts.game import BETTER, SAME, WORSE

    for name, entry in report["gate"]["games"].items():
        refused = sum(c["game"] == name and str(c.get("reason", "")).startswith("budget") for c in report["cases"])
        entry["budget_missing"] = refused
        if refused and entry["result"] not in (WORSE, BETTER, SAME):
            entry["verdict"] = "fail"
            entry["reason"] = (f"budget: {refused} of its {entry['cases_available']} games were not started and the "
                               f"{entry['games_played']} played did not decide it ({entry['result']})")


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is None or state.report is None:
        return
    from pytest_gameeval.analysis.cost.report import report_cost_lines

    lines = report_cost_lines(state.report)
    if lines:
        terminalreporter.write_line("")
    for line in lines:
        terminalreporter.write_line(line)
