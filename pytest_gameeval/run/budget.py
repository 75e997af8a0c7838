"""A run's spend, and its budget (`--gameeval-budget USD`), kept in one SQLite file that every
process of the run shares (xdist workers included), beside the report.

Before a game starts, the process reserves its expected cost in one write transaction: the game
starts only if the spend of the finished games, plus the reservations of the games still running,
plus this one stays within the budget; otherwise it is refused and not played ("budget: ..."). A
finished game replaces its reservation by what it cost. Reserving, not only counting the finished
games, is what keeps 32 games starting at once (or two workers) from each seeing an empty ledger.
SQLite's `BEGIN IMMEDIATE` takes the file's write lock, so the check and the reservation are one
step for every process.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from pathlib import Path
from typing import Any, Callable

from pytest_gameeval.analysis.cost.prices import PriceTable, case_cost, usd
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import beside

BUDGET_REASON = "budget"
POLL_SECONDS = 0.5  # how often a game that does not fit looks again while others run


def ledger_path(report_path: Path) -> Path:
    return beside(report_path, ".spend.sqlite")


def record_cost(record: Any, table: PriceTable) -> float | None:
    """What a finished game cost (None: a seat's model has no price)."""
    seats = {s["name"]: {"model": s["model"], "role": s["role"]} for s in record.seats}
    cost = case_cost({"usage": record.usage, "seats": seats}, table)
    return 0.0 if cost is None else cost["usd"]


class LedgerError(GameEvalError):
    """The ledger file was deleted, overwritten or locked away mid-run: the budget can no longer be kept."""


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """A ledger that breaks mid-run is one line naming it (LedgerError), never sqlite's traceback."""
    @functools.wraps(method)
    def call(self: Ledger, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.Error, OSError) as e:
            raise LedgerError(f"budget ledger {self.path}: unreadable mid-run ({type(e).__name__}: {e}); "
                              "the budget cannot be kept, so no further game starts") from None
    return call


class Ledger:
    """The run's games, each running (its reservation), done (its cost) or refused."""

    @_guarded
    def __init__(self, path: Path, budget: float | None, *, fresh: bool = False):
        self.path, self.budget = path, budget
        if fresh:
            path.unlink(missing_ok=True)
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS games (name TEXT PRIMARY KEY, game TEXT, reserved REAL, "
                       "spent REAL, state TEXT)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60, isolation_level=None)

    @staticmethod
    def _committed(db: sqlite3.Connection) -> float:
        row = db.execute("SELECT COALESCE(SUM(CASE state WHEN 'running' THEN reserved WHEN 'done' THEN spent "
                         "ELSE 0 END), 0) FROM games").fetchone()
        return float(row[0])

    @_guarded
    def fits(self, expected: float) -> tuple[bool, int]:
        """Whether a game of this expected cost fits now, and how many games run (a read only)."""
        db = self._connect()
        try:
            committed = self._committed(db)
            running = db.execute("SELECT COUNT(*) FROM games WHERE state = 'running'").fetchone()[0]
        finally:
            db.close()
        return self.budget is None or committed + expected <= self.budget * (1 + 1e-9), running

    @_guarded
    def reserve(self, name: str, game: str, expected: float, *, final: bool) -> tuple[bool, int, float]:
        """Reserve a game's expected cost if the budget allows it: (reserved, games running, committed
        spend). When it does not and `final`, the game is noted as refused."""
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            committed = self._committed(db)
            running = db.execute("SELECT COUNT(*) FROM games WHERE state = 'running'").fetchone()[0]
            ok = self.budget is None or committed + expected <= self.budget * (1 + 1e-9)
            if ok or final:
                db.execute("INSERT OR REPLACE INTO games VALUES (?, ?, ?, 0, ?)",
                           (name, game, expected, "running" if ok else "refused"))
            db.execute("COMMIT")
        finally:
            db.close()
        return ok, running, committed

    @_guarded
    def settle(self, name: str, cost: float | None) -> None:
        """A game ended: its cost replaces its reservation (an unknown cost keeps the reservation)."""
        with self._connect() as db:
            if cost is None:
                db.execute("UPDATE games SET spent = reserved, state = 'done' WHERE name = ?", (name,))
            else:
                db.execute("UPDATE games SET spent = ?, state = 'done' WHERE name = ?", (cost, name))

    @_guarded
    def add_done(self, name: str, game: str, cost: float) -> None:
        """A game finished by an earlier run of this command (its journal), reused: what it cost counts."""
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO games VALUES (?, ?, 0, ?, 'done')", (name, game, cost))

    @_guarded
    def mean_cost(self, game: str) -> float:
        """The mean cost of a game's finished games so far (0 before the first)."""
        with self._connect() as db:
            row = db.execute("SELECT AVG(spent) FROM games WHERE game = ? AND state = 'done'", (game,)).fetchone()
        return float(row[0] or 0.0)

    @_guarded
    def totals(self) -> dict[str, Any]:
        """Spend of finished games, reservations running, counts by state (every process's games)."""
        db = self._connect()
        try:
            rows = db.execute("SELECT state, COUNT(*), COALESCE(SUM(spent), 0), COALESCE(SUM(reserved), 0) "
                              "FROM games GROUP BY state").fetchall()
        finally:
            db.close()
        out: dict[str, Any] = {"budget": self.budget, "spent": 0.0, "running": 0.0, "done": 0, "refused": 0,
                               "playing": 0}
        for state, n, spent, reserved in rows:
            if state == "done":
                out.update(done=n, spent=spent)
            elif state == "running":
                out.update(playing=n, running=reserved)
            else:
                out["refused"] = n
        return out


class Spend:
    """What the runner asks before and after each game (runner.Runner.spend)."""

    @_guarded
    def __init__(self, table: PriceTable, ledger: Ledger, expected: Callable[[str], float]):
        self.table, self.ledger, self.expected = table, ledger, expected
        self.broken: str | None = None  # the LedgerError's line, once the ledger broke

    async def refuse(self, case: Any) -> str | None:
        if self.broken is None:
            try:
                return await self._refuse(case)
            except LedgerError as e:
                self.broken = str(e)
        return f"{BUDGET_REASON}: not started: {self.broken}"

    async def _refuse(self, case: Any) -> str | None:
        """Why the case may not start (its reason says "budget: ..."), or None when its expected cost
        is reserved. While other games run (in any process), a game that does not fit waits for them:
        they may cost less than they reserved and leave it room."""
        # a game without a token profile: what its finished games cost so far
        expected = self.expected(case.game) or self.ledger.mean_cost(case.game)
        while True:
            fits, running = self.ledger.fits(expected)  # a read: a waiting game takes no write lock
            if fits:
                ok, running, committed = self.ledger.reserve(case.name, case.game, expected, final=False)
                if ok:
                    return None
            if not running:
                break
            await asyncio.sleep(POLL_SECONDS)
        ok, _, committed = self.ledger.reserve(case.name, case.game, expected, final=True)
        if ok:
            return None
        return (f"{BUDGET_REASON}: not started, the spend so far and the games running ({usd(committed)}) plus this "
                f"game's expected cost ({usd(expected)}) would pass the budget of {usd(self.ledger.budget)}")

    def settle(self, case: Any, record: Any) -> None:
        self._write(self.ledger.settle, case.name, None if record is None else record_cost(record, self.table))

    def settle_cost(self, name: str, cost: float | None) -> None:
        """A game (or gameeval compare's pair of games) ended at this cost (None: not known)."""
        self._write(self.ledger.settle, name, cost)

    def reused(self, case: Any, record: Any) -> None:
        """A game the journal gave back: its cost is spent, as when it was played."""
        self._write(self.ledger.add_done, case.name, case.game, record_cost(record, self.table) or 0.0)

    def _write(self, write: Callable[..., None], *args: Any) -> None:
        if self.broken is None:
            try:
                write(*args)
            except LedgerError as e:
                self.broken = str(e)


class SpendTally:
    """A progress line of the run's spend (engine.progress.Ticker prints it beside the games')."""

    def __init__(self, ledger: Ledger, planned: Callable[[], tuple[int, float | None]]):
        self.ledger, self.planned = ledger, planned

    def _totals(self) -> dict[str, Any]:
        try:
            return self.ledger.totals()
        except LedgerError:  # the games' own lines go on; the run says why at its end
            return {"budget": self.ledger.budget, "spent": 0.0, "running": 0.0, "done": 0, "refused": 0, "playing": 0}

    @property
    def started(self) -> int:
        t = self._totals()
        return t["done"] + t["playing"]

    @property
    def finished(self) -> int:
        return self._totals()["done"]

    def line(self) -> str:
        t = self._totals()
        games, expected_each = self.planned()
        left = max(0, games - t["done"] - t["refused"])
        mean = t["spent"] / t["done"] if t["done"] else expected_each
        parts = [f"spend: {usd(t['spent'])} so far over {t['done']} finished games"]
        if mean is not None:
            parts.append(f"about {usd(left * mean)} to finish the {left} left "
                         f"({'at this run' if t['done'] else 'estimated'}: {usd(mean)} a game)")
        if t["budget"] is not None:
            parts.append(f"budget {usd(t['budget'])}" + (f", {t['refused']} games refused" if t["refused"] else ""))
        return ", ".join(parts)
