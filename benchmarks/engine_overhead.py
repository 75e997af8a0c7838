"""Harness overhead of the engine alone: scripted players, no inspect, no model.

Prints JSON: CPU time per turn and per game for every registered game (target: at most
0.5 ms per turn). The scripted policies stand in for the model, so the time they spend choosing a
reply is measured apart and subtracted: `engine_cpu_ms_per_turn` is the harness's own cost (rules,
views, prompts, parsing, record), `policy_cpu_ms_per_turn` is what the scripted player cost.
Usage: python benchmarks/engine_overhead.py [--games N] [--only GAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import time

from pytest_gameeval.engine.events import REPLY
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Player
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.players.scripted import scripted_binder


class TimedPlayer(Player):
    """Wraps a scripted player and adds the CPU time of its `act` to a shared counter."""

    def __init__(self, player, clock: list[float]):
        self.player, self.clock, self.label = player, clock, player.label

    async def act(self, ctx):
        start = time.process_time()
        try:
            return await self.player.act(ctx)
        finally:
            self.clock[0] += time.process_time() - start


def timed_binder(binder, clock: list[float]):
    return lambda seat, model_role: TimedPlayer(binder(seat, model_role), clock)


def measure(game: str, n_games: int) -> dict:
    spec = get_spec(game)
    options = spec.parse_options({})
    rows = spec.select_rows(options)
    strengths = {"*": "random"}
    turns = 0
    cpu = 0.0
    policy = [0.0]
    labels: dict[str, int] = {}
    for i in range(n_games):
        row = rows[i % len(rows)]
        start = time.process_time()
        record = asyncio.run(play_case(spec, row, i // len(rows), options,
                                         timed_binder(scripted_binder(spec, strengths, seed=i), policy)))
        cpu += time.process_time() - start
        turns += sum(1 for e in record.events if e.kind == REPLY)
        labels[record.label] = labels.get(record.label, 0) + 1
    return {
        "games": n_games,
        "turns": turns,
        "engine_cpu_ms_per_turn": round(1000 * (cpu - policy[0]) / max(turns, 1), 4),
        "engine_cpu_ms_per_game": round(1000 * (cpu - policy[0]) / n_games, 3),
        "policy_cpu_ms_per_turn": round(1000 * policy[0] / max(turns, 1), 4),
        "total_cpu_ms_per_turn": round(1000 * cpu / max(turns, 1), 4),
        "outcomes": labels,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="games per game type")
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    results = {}
    for game in args.only or list(GAMES):
        try:
            results[game] = measure(game, args.games)
        except Exception as e:  # a game without scripted policies yet: say so, don't hide it
            results[game] = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps({
        "benchmark": "engine_overhead",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "target_cpu_ms_per_turn": 0.5,
        "note": "asyncio.run per game is included in the engine cost (as a front end pays it); "
                "turns = model replies; policy time = the scripted players' own choosing, not the harness",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "results": results,
    }, indent=2))


if __name__ == "__main__":
    main()
