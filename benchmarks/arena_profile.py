"""Where a `gameeval arena` request's CPU goes: would keeping live games in memory pay? (issue 70)

    python benchmarks/arena_profile.py [--games 30] [--long]

Each request plays its session again from the stored moves before it plays the new one
(docs/arena.md). This runs the arena's app in this process (ASGI, a fresh SQLite file, the scripted
model through inspect), lets one scripted person play `--games` whole games (`benchmarks/arena_load.py`'s
person; short games unless --long) under cProfile with the process's CPU clock, and prints JSON: the
process CPU per request, and the shares of the profiled CPU spent in the engine's replay and new
moves (`advance` less the model), in the model's calls (inspect's `generate`, only for turns not yet
stored), and the rest (HTTP, pages, the store). A server that kept each live game's engine state in
memory would save at most the replay's share. cProfile's own overhead is in every share.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arena_load import FAST_OPTIONS, GAMES, Person  # noqa: E402  (the load benchmark's scripted person)

from pytest_gameeval.arena.serve import Settings, build  # noqa: E402

SHORT = dict(option.split("=", 1) for option in FAST_OPTIONS[1::2])  # arena_load's short games, from its -T options


def cumulative(stats: pstats.Stats, path_part: str, function: str) -> tuple[float, int]:
    """(cumulative seconds, calls) of a function, by a part of its file's path and its name (a
    coroutine's calls count its resumptions, so only a plain function's calls are its calls)."""
    best = (0.0, 0)
    for (path, _line, name), (_prim, calls, _tot, cum, _callers) in stats.stats.items():
        if name == function and path_part in path and cum > best[0]:
            best = (cum, calls)
    return best


async def play(app: Any, games: int) -> Person:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=120) as client:
        person = Person(client)
        for i in range(games):
            await person.play(GAMES[i % len(GAMES)])
        return person


def measure(games: int, long: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(models=["gameeval/scripted"], db=str(Path(tmp) / "arena.db"),
                            hosts=["127.0.0.1"], task_args={} if long else SHORT)
        app, _store = build(settings)
        asyncio.run(play(app, len(GAMES)))  # imports and first calls outside the measure
        cpu = time.process_time()
        plain = asyncio.run(play(app, games))  # the CPU per request without the profiler
        cpu = time.process_time() - cpu
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        person = asyncio.run(play(app, games))
        profile.disable()
    stats = pstats.Stats(profile)
    total = sum(v[2] for v in stats.stats.values())  # every function's own time: the profiled CPU
    advance = cumulative(stats, "arena/live.py", "advance")
    model = cumulative(stats, "inspect_ai/model/_model.py", "generate")
    return {
        "games": games,
        "long": long,
        "requests": person.turn,  # one per request the person sent
        "person_moves": person.posted,
        "moves_replayed": cumulative(stats, "arena/live.py", "replay")[1],  # stored moves played again
        "process_cpu_ms_per_request": round(1000 * cpu / plain.turn, 2),
        "share_engine_replay_and_new_moves": round((advance[0] - model[0]) / total, 3),
        "share_model_calls": round(model[0] / total, 3),
        "share_rest_http_pages_store": round(1 - advance[0] / total, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--long", action="store_true", help="the games' default lengths, not arena_load's short ones")
    args = parser.parse_args()
    print(json.dumps(measure(args.games, args.long), indent=1))


if __name__ == "__main__":
    main()
