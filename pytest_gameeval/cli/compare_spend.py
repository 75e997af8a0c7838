"""`gameeval compare --cost-config FILE [--budget USD]`: each side's cost after the run, and a budget
kept before it. compare plays through inspect's eval_set, which starts every case at once, so its
budget is kept by planning: it plays as many cases per game as both sides' estimated cost (each
game's 90th percentile, analysis/estimate.py) fits in, the same cases for both sides, and says so."""

from __future__ import annotations

import argparse
from typing import Any, Mapping, Sequence

from pytest_gameeval.analysis.cost import PriceTable, cost_line, load_prices, usd
from pytest_gameeval.analysis.cost_report import sides_cost
from pytest_gameeval.engine.errors import GameEvalError


def prices(args: argparse.Namespace) -> PriceTable | None:
    if args.budget is not None and not args.cost_config:
        raise GameEvalError("--budget needs prices: give --cost-config FILE")
    if args.budget is not None and not args.budget > 0:
        raise GameEvalError("--budget must be more than 0 USD")
    return load_prices(args.cost_config) if args.cost_config else None


def _per_case(games: Sequence[str], names: Mapping[str, str], task_args: Mapping[str, str],
              roles: Mapping[str, str], limit: int | None, epochs: int | None,
              table: PriceTable) -> list[tuple[int, float]]:
    """Per game: planned cases and both sides' cost of one case at the estimate's 90th percentile."""
    from pytest_gameeval.analysis.estimate import estimate_plans, seat_models
    from pytest_gameeval.games.registry import get_spec
    from pytest_gameeval.pytest_plugin.runner import plan_game
    from pytest_gameeval.pytest_plugin.settings import Settings

    out = []
    for game in games:
        spec = get_spec(game)
        settings = Settings(model=names["A"], roles=dict(roles), games=[game], trials=epochs or 1, limit=limit or 0,
                            option_overrides=list(task_args.items()))
        plan = plan_game(spec, settings)
        each = 0.0
        for side in ("A", "B"):
            est = estimate_plans([{"spec": spec, "options": plan.options, "games": 1,
                                   "model_of": seat_models(spec, plan.options, names[side], roles)}], table)
            if est["unpriced"]:
                raise GameEvalError(f"--budget: no price for {', '.join(est['unpriced'])} in {table.source}")
            each += (est["games"][0]["per_game"]["usd"] or {}).get("p90", 0.0)
        out.append((len(plan.cases) // (epochs or 1), each * (epochs or 1)))
    return out


def budget_limit(args: argparse.Namespace, games: Sequence[str], names: Mapping[str, str],
                 task_args: Mapping[str, str], roles: Mapping[str, str], table: PriceTable | None) -> int | None:
    """The --limit to play with: the user's, or fewer cases per game when the budget needs it."""
    if args.budget is None or table is None:
        return args.limit
    plan = _per_case(games, names, task_args, roles, args.limit, args.epochs, table)
    most = max(rows for rows, _ in plan)

    def cost(limit: int) -> float:
        return sum(min(limit, rows) * each for rows, each in plan)

    fits = max((n for n in range(0, most + 1) if cost(n) <= args.budget), default=0)
    if fits >= most:
        print(f"budget {usd(args.budget)}: the whole plan fits (estimated at most {usd(cost(most))})")
        return args.limit
    if fits < 2:
        raise GameEvalError(f"--budget {usd(args.budget)}: not even 2 cases per game fit (2 cost about "
                            f"{usd(cost(2))} at the estimate's 90th percentile)")
    print(f"budget {usd(args.budget)}: playing {fits} of {most} cases per game (estimated at most {usd(cost(fits))}; "
          f"the cases left out are not played by either side)")
    return fits


def cost_lines(result: dict[str, Any], cases: Any, table: PriceTable | None, names: Mapping[str, str]) -> list[str]:
    """Each side's cost into the result (compare.json) and as lines."""
    if table is None:
        return []
    result["cost"] = sides_cost(cases, table)
    return [cost_line(result["cost"][side], f"cost of {side} ({names[side]})") for side in ("A", "B")]
