"""Every game on the embedded model (gameeval/local), with structured decoding on and off: prints one
JSON object, asserts nothing.

    python benchmarks/structured_local.py [--games-per-game 2] [--games askguess,spyfall] [--settings on,off]
    python benchmarks/structured_local.py --table benchmarks/results/structured_local.json

For each game and setting, plays the game's first N cases (default options otherwise: full length)
concurrently through the engine with inspect's ``gameeval/local`` model and reports, over those games:
model calls, format errors / rule violations / chat errors / forfeits per model call, wall time of
the batch and per game, prompt and completion tokens per game, and the outcomes. The machine's load
average is recorded before and after each batch (other processes slow every timing down).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_gameeval.engine.play import play_case  # noqa: E402
from pytest_gameeval.engine.record import GameRecord, write_records  # noqa: E402
from pytest_gameeval.games.registry import GAMES, get_spec  # noqa: E402


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _summary(records: list[GameRecord], seconds: float) -> dict[str, Any]:
    calls = sum(u["calls"] for r in records for u in r.usage.values())
    totals: dict[str, int] = {}
    for r in records:
        for kind, n in r.failure_totals().items():
            totals[kind] = totals.get(kind, 0) + n
    n = len(records)
    per_call = {
        f"{k}_per_call": round(totals.get(k, 0) / calls, 4) if calls else None
        for k in ("format", "rule", "chat", "forfeit")
    }
    return {
        "games": n,
        "calls": calls,
        "calls_per_game": round(calls / n, 1),
        "failures": {k: totals.get(k, 0) for k in ("format", "rule", "chat", "forfeit")},
        **per_call,
        "wall_seconds": round(seconds, 1),
        "wall_seconds_per_game": round(seconds / n, 1),  # the N games run concurrently
        "input_tokens_per_game": round(sum(u["input_tokens"] for r in records for u in r.usage.values()) / n),
        "output_tokens_per_game": round(sum(u["output_tokens"] for r in records for u in r.usage.values()) / n),
        "outcomes": sorted(r.label for r in records),
        "structured": sorted({r.structured for r in records}),
    }


async def _play(game: str, setting: str, n_games: int) -> dict[str, Any]:
    from inspect_ai.model import get_model

    from pytest_gameeval.inspect_ext.decoding import model_player
    from pytest_gameeval.players.model import ModelPlayer

    spec = get_spec(game)
    options = spec.parse_options({"structured": setting})
    rows = spec.select_rows(options)[:n_games]
    model = get_model("gameeval/local")

    def bind(seat: Any, role: str) -> ModelPlayer:
        return model_player(model, setting)

    load_before = _load()
    start = time.perf_counter()
    records = await asyncio.gather(*(play_case(spec, row, 0, options, bind) for row in rows))
    seconds = time.perf_counter() - start
    return {**_summary(list(records), seconds), "cases": [r.id for r in rows],
            "load_before": load_before, "load_after": _load(), "_records": list(records)}


def _percent(n: int, calls: int) -> str:
    return f"{100 * n / calls:.1f}% ({n}/{calls})" if calls else "no calls"


def table(saved: dict[str, Any]) -> str:
    """A saved run as the markdown table of docs/performance.md section 7."""
    lines = ["| game | decoding | games | calls/game | format errors / call | rule violations / call | forfeits / call "
             "| wall s / game | prompt tokens / game | completion tokens / game | outcomes | load (1 min) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for game, settings in sorted(saved["results"].items()):
        for setting, r in settings.items():
            f = r["failures"]
            lines.append(
                f"| {game} | {setting} | {r['games']} | {r['calls_per_game']} | {_percent(f['format'], r['calls'])} "
                f"| {_percent(f['rule'], r['calls'])} | {_percent(f['forfeit'], r['calls'])} | "
                f"{r['wall_seconds_per_game']} "
                f"| {r['input_tokens_per_game']} | {r['output_tokens_per_game']} | {', '.join(r['outcomes'])} "
                f"| {r['load_before'][0]}–{r['load_after'][0]} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--table", metavar="JSON", help="print a saved run (this script's output) as a markdown table and exit"
    )
    parser.add_argument("--games-per-game", type=int, default=2)
    parser.add_argument("--games", default=",".join(sorted(GAMES)), help="comma-separated game names")
    parser.add_argument("--settings", default="on,off", help="structured decoding settings to run, in order")
    parser.add_argument("--records", default=None, help="also write every game record to this JSONL file")
    args = parser.parse_args(argv)
    if args.table:
        print(table(json.loads(Path(args.table).read_text())))
        return 0
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    unknown = [g for g in games if g not in GAMES] + [s for s in settings if s not in ("on", "off")]
    if unknown:
        parser.error(f"unknown game or setting: {', '.join(unknown)}")
    results: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()

    async def run_all() -> None:  # one event loop: inspect's model clients belong to it
        for setting in settings:
            for game in games:
                result = await _play(game, setting, args.games_per_game)
                records.extend(result.pop("_records"))
                results.setdefault(game, {})[setting] = result
                print(f"{game} structured={setting}: {json.dumps(results[game][setting])}", file=sys.stderr, flush=True)

    records: list[GameRecord] = []
    asyncio.run(run_all())
    if args.records:
        write_records(args.records, records)
    out = {
        "benchmark": "structured_local",
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": "python benchmarks/structured_local.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "model": "gameeval/local (SmolLM2-135M-Instruct Q4_1, defaults: temperature 0, 64 tokens a reply "
                 "unstructured, 256 structured)",
        "total_seconds": round(time.perf_counter() - started, 1),
        "results": results,
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
