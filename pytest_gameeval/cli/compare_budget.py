"""`gameeval compare --budget USD` refuses games one by one, as the plugin's budget does
(run/budget.py): before a case starts, the expected cost of playing it on both sides is
reserved in a ledger beside the logs (OUT/compare.spend.sqlite); a case that would pass the budget
is not started on either side, so the two sides keep playing the same cases; a finished case
replaces its reservation by what both sides cost, and cases waiting for room start as it frees.

inspect's eval_set plays every task in this process, in one event loop, and logs each solver's
arguments: the ledger and the pairs' state are this module's while `admitted()` is open, not
solver arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from inspect_ai.solver import Generate, Solver, TaskState, solver

from pytest_gameeval.analysis.cost.prices import PriceTable, usd
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.inspect_ext.solver import NOT_STARTED_KEY, RECORD_KEY
from pytest_gameeval.run.budget import BUDGET_REASON, Ledger, Spend, record_cost

LEDGER = "compare.spend.sqlite"


@dataclass
class _Pair:
    """One case played by both sides: whether it may start (decided once, by the first side to
    reach it) and what each side's game cost."""

    decided: asyncio.Future[str | None]
    costs: dict[str, float | None] = field(default_factory=dict)


@dataclass
class _Case:  # what Spend asks of a case: its ledger name and its game
    name: str
    game: str


class PairBudget:
    def __init__(self, out: Path, budget: float, table: PriceTable, pair_cost: Mapping[str, float], earlier: float):
        # a fresh ledger each time compare plays; what the logs already hold (a resumed run) is spent
        out.mkdir(parents=True, exist_ok=True)
        ledger = Ledger(out / LEDGER, budget, fresh=True)
        if earlier:
            ledger.add_done("games already in the logs", "*", earlier)
        self.spend = Spend(table, ledger, lambda game: pair_cost.get(game, 0.0))
        self.pairs: dict[str, _Pair] = {}

    async def refusal(self, key: str, game: str) -> str | None:
        """Why this case may not start (the same answer for both sides), or None."""
        pair = self.pairs.get(key)
        if pair is None:
            pair = self.pairs[key] = _Pair(asyncio.get_running_loop().create_future())
            try:
                reason = await self.spend.refuse(_Case(key, game))
            except BaseException as e:  # cancelled mid-check: the other side must not wait for ever
                unfinished = f"its budget check did not finish ({type(e).__name__})"
                pair.decided.set_result(f"{BUDGET_REASON}: not started, {unfinished}")
                raise
            pair.decided.set_result(reason)
        return await pair.decided

    def finished(self, key: str, side: str, record: GameRecord | None) -> None:
        """A side's game ended; once both have, the pair's cost replaces its reservation (an unknown
        cost, or a side that never ends, keeps the reservation: the budget errs on the safe side)."""
        pair = self.pairs[key]
        pair.costs[side] = None if record is None else record_cost(record, self.spend.table)
        if len(pair.costs) == 2:
            known = None if None in pair.costs.values() else sum(pair.costs.values())  # type: ignore[arg-type]
            self.spend.settle_cost(key, known)

    def summary(self) -> dict[str, Any]:
        refused = sorted(k for k, p in self.pairs.items() if p.decided.done() and p.decided.result())
        totals = self.spend.ledger.totals() if self.spend.broken is None else {}
        return {"budget": self.spend.ledger.budget, "spent": totals.get("spent"), "refused_cases": refused,
                "ledger_error": self.spend.broken}


_ACTIVE: PairBudget | None = None


@contextlib.contextmanager
def admitted(budget: PairBudget | None) -> Iterator[None]:
    """While open, the budgeted tasks' solvers ask `budget` before each case and tell it after."""
    global _ACTIVE
    _ACTIVE = budget
    try:
        yield
    finally:
        _ACTIVE = None


def _key(game: str, state: TaskState) -> str:
    return f"{game}[{state.sample_id}]#{state.epoch}"


@solver
def budget_kept(game: str, side: str) -> Solver:
    """The game's own solver (`_GAME_SOLVERS`), asked of the budget before and told after."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        inner = _GAME_SOLVERS[(game, side)]
        if _ACTIVE is None:
            return await inner(state, generate)
        key = _key(game, state)
        reason = await _ACTIVE.refusal(key, game)
        if reason is not None:  # not started: no record, the scorer says not finished, compare reads the reason
            state.metadata[NOT_STARTED_KEY] = reason
            state.completed = True
            return state
        record = None
        try:
            state = await inner(state, generate)
            data = state.metadata.get(RECORD_KEY)
            record = None if data is None else GameRecord.from_dict(data)
        finally:  # a game that failed keeps its reservation (its cost is not known)
            _ACTIVE.finished(key, side, record)
        return state

    return solve


# the games' own solvers by (game, side): a solver's arguments are logged, so they are not arguments
_GAME_SOLVERS: dict[tuple[str, str], Solver] = {}


def budgeted(task: Any, game: str, side: str) -> Solver:
    """The task's solver behind the budget's question (while `admitted()` is open)."""
    _GAME_SOLVERS[(game, side)] = task.solver
    return budget_kept(game, side)


def lines(summary: Mapping[str, Any], cases_per_side: int) -> list[str]:
    refused = summary["refused_cases"]
    out = [f"budget {usd(summary['budget'])}: spent {usd(summary['spent'] or 0.0)} by the ledger; "
           f"{len(refused)} of {cases_per_side} cases not started on either side (the budget)"]
    if summary["ledger_error"]:
        out.append(f"budget: {summary['ledger_error']}")
    return out
