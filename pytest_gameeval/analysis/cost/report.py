"""A run's cost told: the summary's cost lines, the gate's savings, both runs' cost for `report
diff`, each side's for `gameeval compare`, and a merged report's cost (analysis/cost/prices.py prices)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from pytest_gameeval.analysis.cost.prices import PriceTable, case_cost, cost_line, totals, usd

GATE_STOPPED = "the sequential gate reached its verdict"


def gate_savings(report: dict[str, Any]) -> dict[str, Any]:
    """Games the sequential gate did not need, per gated game, and what they would have cost at
    this run's mean cost of a played game of that game; added to each gate entry as well."""
    gate = report.get("gate") or {}
    saved: dict[str, Any] = {}
    for name, entry in (gate.get("games") or {}).items():
        skipped = sum(1 for c in report["cases"]
                      if c["game"] == name and str(c.get("reason", "")).startswith(GATE_STOPPED))
        per_game = ((report["games"].get(name) or {}).get("cost") or {}).get("per_game")
        would = None if per_game is None else skipped * per_game["mean"]
        entry["saved_games"], entry["saved_usd"] = skipped, would
        saved[name] = {"games": skipped, "usd": would}
    known = [s["usd"] for s in saved.values() if s["usd"] is not None]
    return {"games": sum(s["games"] for s in saved.values()), "usd": sum(known) if known else None, "by_game": saved}


def savings_line(saved: Mapping[str, Any]) -> str | None:
    """The gate's early stop in games and money, or None when it saved nothing."""
    if not saved["games"]:
        return None
    parts = ", ".join(f"{g} {s['games']}" for g, s in sorted(saved["by_game"].items()) if s["games"])
    return (f"gate: its early stop saved {saved['games']} games ({parts}), which would have cost about "
            f"{usd(saved['usd'])} at this run's mean cost per game")


def report_cost_lines(report: Mapping[str, Any]) -> list[str]:
    """The cost part of a run's summary (terminal and markdown alike): the run's cost, each game's
    with its spread per game, the gate's savings and the budget; [] for a run without prices."""
    cost = report.get("cost")
    if not cost:
        return []
    lines = [cost_line(cost, f"cost of the run (prices: {cost.get('prices')})")]
    for name, game in report["games"].items():
        c = game.get("cost")
        if not c or not c["by_model"]:
            continue
        per = c["per_game"]
        each = (f", per game {usd(per['mean'])} (10th-90th percentile {usd(per['p10'])} to {usd(per['p90'])})"
                if per else "")
        lines.append(f"  {name}: {usd(c['usd'])} over {c['games_priced']} priced games{each}")
    saved = cost.get("gate_saved")
    if saved and savings_line(saved):
        lines.append(savings_line(saved))  # type: ignore[arg-type]
    budget = cost.get("budget")
    if budget:
        line = f"budget: {usd(budget['budget'])}, spent {usd(budget['spent'])}"
        if budget["refused"]:
            line += f"; {budget['refused']} games not started (missing, reason 'budget')"
        lines.append(line)
        if budget.get("ledger_error"):
            lines.append(f"gameeval: {budget['ledger_error']}")
    return lines


def cost_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any] | None:
    """Both reports' cost, the run's and each game's with its mean per game, or None when neither was
    priced (a report written without a price table has no cost)."""
    if not (old.get("cost") or new.get("cost")):
        return None

    def side(report: Mapping[str, Any], game: str | None = None) -> dict[str, Any] | None:
        cost = report.get("cost") if game is None else ((report.get("games") or {}).get(game) or {}).get("cost")
        if not cost:
            return None
        per = cost.get("per_game")
        return {"usd": cost["usd"], "complete": cost["complete"], "unpriced": cost["unpriced"],
                "per_game": per["mean"] if per else None, "games": cost.get("games_priced")}

    games = sorted(set(old.get("games") or {}) | set(new.get("games") or {}))
    return {"run": {"old": side(old), "new": side(new)},
            "games": {g: {"old": side(old, g), "new": side(new, g)} for g in games}}


def cost_diff_lines(diff: Mapping[str, Any] | None) -> list[str]:
    """The cost of both runs for people: the run's, then each game's per game; an unpriced side says so."""
    if not diff:
        return []

    def say(side: Mapping[str, Any] | None, per_game: bool = False) -> str:
        if side is None:
            return "not priced"
        value = usd(side["per_game"]) + " a game" if per_game and side["per_game"] is not None else usd(side["usd"])
        return value + ("" if side["complete"] else f" (no price for {', '.join(side['unpriced'])})")

    run = diff["run"]
    lines = [f"Cost: old {say(run['old'])}, new {say(run['new'])}."]
    for game, sides in diff["games"].items():
        if sides["old"] or sides["new"]:
            lines.append(f"- {game}: old {say(sides['old'], True)}, new {say(sides['new'], True)}")
    return lines


def sides_cost(cases: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]], table: PriceTable,
               sides: Sequence[str] = ("A", "B")) -> dict[str, Any]:
    """`gameeval compare`: each side's cost over its games (every game, then per game)."""
    out: dict[str, Any] = {}
    for side in sides:
        mine = {game: [case_cost(c, table) for c in cs] for (game, s), cs in cases.items() if s == side}
        out[side] = totals(c for costs in mine.values() for c in costs)
        out[side]["games"] = {game: totals(costs) for game, costs in sorted(mine.items())}
    return out


def recost(report: dict[str, Any], slices: Sequence[Mapping[str, Any]]) -> None:
    """A report merged from slices (`gameeval report merge`): each game's and the run's cost again
    from the cases' own costs (each slice priced its cases), the slices' budgets side by side."""
    report.pop("cost", None)
    priced = [s.get("cost") for s in slices if s.get("cost")]
    if not priced:
        return
    for name, game in report["games"].items():
        game["cost"] = totals(c.get("cost") for c in report["cases"] if c["game"] == name)
    run = totals(c.get("cost") for c in report["cases"])
    run["prices"] = ", ".join(sorted({str(p.get("prices")) for p in priced}))
    run["budget"] = None
    budgets = [p["budget"] for p in priced if p.get("budget")]
    if budgets:  # each slice kept its own budget: a merged run has no one budget
        run["slice_budgets"] = budgets
    report["cost"] = run
