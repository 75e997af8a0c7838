"""`gameeval compare --cost-config FILE [--budget USD]`: each side's cost after the run, and a budget
kept while it plays. compare plays through inspect's eval_set, which starts every case at once: each
case asks the budget before its game starts, on both sides at once (cli/compare_budget.py), with
both sides' estimated cost of it (the game's 90th percentile, analysis/cost/estimate.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Mapping, Sequence

from pytest_gameeval.analysis.cost.prices import PriceTable, cost_line, load_prices, usd
from pytest_gameeval.analysis.cost.report import sides_cost
from pytest_gameeval.engine.errors import GameEvalError


def prices(args: argparse.Namespace) -> PriceTable | None:
    if args.budget is not None and not args.cost_config:
        raise GameEvalError("--budget needs prices: give --cost-config FILE")
    if args.budget is not None and not args.budget > 0:
        raise GameEvalError("--budget must be more than 0 USD")
    return load_prices(args.cost_config) if args.cost_config else None


def _per_case(games: Sequence[str], names: Mapping[str, str], task_args: Mapping[str, str],
              roles: Mapping[str, str], limit: int | None, table: PriceTable) -> list[tuple[int, float]]:
    """Per game: planned cases and both sides' cost of one case (one epoch) at the estimate's 90th
    percentile."""
    from pytest_gameeval.analysis.cost.estimate import estimate_plans, seat_models
    from pytest_gameeval.games.registry import get_spec
    from pytest_gameeval.run.plan import plan_game
    from pytest_gameeval.run.settings import Settings

    out = []
    for game in games:
        spec = get_spec(game)
        settings = Settings(model=names["A"], roles=dict(roles), games=[game], trials=1, limit=limit or 0,
                            option_overrides=list(task_args.items()))
        plan = plan_game(spec, settings)
        each = 0.0
        for side in ("A", "B"):
            est = estimate_plans([{"spec": spec, "options": plan.options, "games": 1,
                                   "model_of": seat_models(spec, plan.options, names[side], roles)}], table)
            if est["unpriced"]:
                raise GameEvalError(f"--budget: no price for {', '.join(est['unpriced'])} in {table.source}")
            each += (est["games"][0]["per_game"]["usd"] or {}).get("p90", 0.0)
        out.append((len(plan.cases), each))
    return out


def pair_budget(args: argparse.Namespace, out: Path, games: Sequence[str], names: Mapping[str, str],
                task_args: Mapping[str, str], roles: Mapping[str, str], table: PriceTable | None) -> Any:
    """The budget that refuses cases one by one (cli/compare_budget.py), or None without --budget.

    Before play it prints the whole plan's estimated cost beside the budget, and is one error line
    when not even one case would fit. It does not cut the plan: the estimate's 90th percentile is
    pessimistic, so a plan cut by it would play fewer cases than the budget pays for. Each case
    reserves its game's estimated cost on both sides; what the logs already hold (a resumed run) is
    spent."""
    if args.budget is None or table is None:
        return None
    from pytest_gameeval.analysis.rankings.compare import cases_from_logs
    from pytest_gameeval.cli.compare_budget import PairBudget

    plan = _per_case(games, names, task_args, roles, args.limit, table)
    epochs = args.epochs or 1
    most = max(rows for rows, _ in plan)
    whole = sum(rows * each for rows, each in plan) * epochs
    first = max(each for _, each in plan) * epochs  # a case is reserved before it starts: the dearest must fit alone
    if first > args.budget:
        raise GameEvalError(f"--budget {usd(args.budget)}: not even one case fits (one costs about {usd(first)} "
                            f"on both sides at the estimate's 90th percentile)")
    fits = "fits in it" if whole <= args.budget else "does not all fit"
    print(f"budget {usd(args.budget)}: the plan of {most} cases per game, estimated at most {usd(whole)}, {fits}; "
          f"a case starts on both sides only while the spend so far, the cases running and its estimate stay "
          f"within the budget, else neither side plays it")
    earlier = 0.0
    if (out / "logs").is_dir():  # a resumed run: its finished games were paid for
        logged = sides_cost(cases_from_logs(out / "logs")[0], table)
        earlier = sum(logged[side]["usd"] or 0.0 for side in ("A", "B"))
    return PairBudget(out, args.budget, table, {game: each for game, (_, each) in zip(games, plan)}, earlier)


def cost_lines(result: dict[str, Any], cases: Any, table: PriceTable | None, names: Mapping[str, str]) -> list[str]:
    """Each side's cost into the result (compare.json) and as lines."""
    if table is None:
        return []
    result["cost"] = sides_cost(cases, table)
    return [cost_line(result["cost"][side], f"cost of {side} ({names[side]})") for side in ("A", "B")]
