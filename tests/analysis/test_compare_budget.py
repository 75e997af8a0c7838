"""gameeval compare's budget, pair by pair (cli/compare_budget.py), without playing: both sides of a
case get one decision, a pair's cost replaces its reservation once both sides end, and a side
cancelled while the budget is asked never leaves the other side waiting. (The whole command on the
caching loopback server: tests/frontends/pytest_plugin/test_spend.py.)"""

from __future__ import annotations

import asyncio

from pytest_gameeval.analysis.cost.prices import PriceTable
from pytest_gameeval.cli.compare_budget import PairBudget


def budget(tmp_path, usd: float, pair_cost: float = 0.4) -> PairBudget:
    return PairBudget(tmp_path / "out", usd, PriceTable({}), {"askguess": pair_cost}, earlier=0.0)


def test_both_sides_of_a_case_get_one_decision_and_the_pair_settles_at_its_cost(tmp_path):
    pairs = budget(tmp_path, 1.0)

    async def play() -> list[str | None]:
        first = [await pairs.refusal("askguess[1]#1", "askguess"), await pairs.refusal("askguess[1]#1", "askguess")]
        pairs.spend.settle_cost("askguess[1]#1", 0.1)  # as finished() does once both sides ended
        second = await pairs.refusal("askguess[2]#1", "askguess")
        third = await pairs.refusal("askguess[3]#1", "askguess")  # 0.1 + 0.4 + 0.4 fits in 1.0
        fourth = await pairs.refusal("askguess[4]#1", "askguess")  # waits for the running two, then 1.3 > 1.0
        return [*first, second, third, fourth]

    # the 2nd and 3rd are still running (reserved) when the 4th asks: it waits for them, so end them first
    async def with_ends() -> list[str | None]:
        task = asyncio.ensure_future(play())
        while len(pairs.pairs) < 4:
            await asyncio.sleep(0.05)
        for key in ("askguess[2]#1", "askguess[3]#1"):
            pairs.spend.settle_cost(key, 0.4)
        return await task

    decisions = asyncio.run(with_ends())
    assert decisions[:4] == [None, None, None, None]
    assert decisions[4] is not None and decisions[4].startswith("budget: not started")
    summary = pairs.summary()
    assert summary["refused_cases"] == ["askguess[4]#1"]
    assert abs(summary["spent"] - 0.9) < 1e-9


def test_a_side_cancelled_while_asking_never_leaves_the_other_side_waiting(tmp_path):
    pairs = budget(tmp_path, 0.5)

    async def run() -> str | None:
        assert await pairs.refusal("askguess[1]#1", "askguess") is None  # running: holds 0.4 of 0.5
        asker = asyncio.ensure_future(pairs.refusal("askguess[2]#1", "askguess"))  # waits for room
        while "askguess[2]#1" not in pairs.pairs:  # the asker has begun its check
            await asyncio.sleep(0)
        await asyncio.sleep(0)  # and is inside it, waiting
        asker.cancel()
        other_side = await asyncio.wait_for(pairs.refusal("askguess[2]#1", "askguess"), timeout=5)
        return other_side

    reason = asyncio.run(run())
    assert reason is not None and "did not finish (CancelledError)" in reason
