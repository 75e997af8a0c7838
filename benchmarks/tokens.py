"""Tokens per game per seat, for every game, so users can estimate what a run will cost.

    python benchmarks/tokens.py [--games 4] [--only GAME ...] [--prices PRICES.json]
    python benchmarks/tokens.py --logs LOG.eval [LOG.eval ...] [--prices PRICES.json]
    python benchmarks/tokens.py --records RECORDS.jsonl [...] [--prices PRICES.json]

Without --logs, each game's task is run through inspect with `gameeval/scripted` (scripted
replies; token counts are whitespace-word counts of prompt and reply, so they approximate real
tokens, usually from below). With --logs, the game records inside existing inspect logs are read
instead (any model; real token counts when the provider reports them, e.g. `gameeval/local`);
--records reads game records from JSON-lines files (the pytest plugin's `.records.jsonl`).

Per game and per seat role: calls, prompt (input) tokens and completion (output) tokens per seat
per game, mean with a 95% t interval (metrics.stats). Prompt tokens count the whole history each
call sends, which is what an API bills.

--prices is a JSON file or string mapping a model name (as written in the record, e.g.
"openai/gpt-4o-mini"; "*" for any other) to {"input_per_million": USD, "output_per_million": USD};
then each seat role also gets its cost per game. Prints JSON; asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import jsonlines

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_gameeval.engine.errors import GameEvalError  # noqa: E402
from pytest_gameeval.games.registry import GAMES  # noqa: E402
from pytest_gameeval.metrics.stats import mean as mean_ci  # noqa: E402

RECORD_KEY = "gameeval_record"


def load_prices(value: str | None) -> dict[str, dict[str, float]]:
    """A price table from a path or an inline JSON string; one clear error when malformed."""
    if not value:
        return {}
    text = Path(value).read_text() if Path(value).is_file() else value
    try:
        table = json.loads(text)
    except json.JSONDecodeError as e:
        raise GameEvalError(f"--prices: not JSON ({e})") from None
    if not isinstance(table, dict):
        raise GameEvalError("--prices: expected an object {model: {input_per_million, output_per_million}}")
    for model, price in table.items():
        if not isinstance(price, dict) or not all(
            isinstance(price.get(k), (int, float)) and price[k] >= 0
            for k in ("input_per_million", "output_per_million")
        ):
            raise GameEvalError(f"--prices: {model!r} needs non-negative input_per_million and output_per_million")
    return table


def records_from_logs(paths: list[str], runs: list[dict]) -> list[dict]:
    """Game records from inspect logs; appends each log's model, status and games per minute to `runs`."""
    from inspect_ai.log import read_eval_log

    records = []
    for path in paths:
        try:
            log = read_eval_log(path)
        except Exception as e:  # a path that is not an inspect log: one clear line
            raise GameEvalError(f"{path}: not a readable inspect log ({type(e).__name__}: {e})") from None
        found = [s.metadata[RECORD_KEY] for s in log.samples or [] if RECORD_KEY in (s.metadata or {})]
        records += found
        minutes = None
        if log.stats.started_at and log.stats.completed_at:
            start, end = (datetime.datetime.fromisoformat(t) for t in (log.stats.started_at, log.stats.completed_at))
            minutes = (end - start).total_seconds() / 60
        runs.append({"log": str(path), "task": log.eval.task, "model": log.eval.model, "status": log.status,
                     "games": len(found), "wall_minutes": round(minutes, 2) if minutes else None,
                     "games_per_minute": round(len(found) / minutes, 2) if minutes else None})
    return records


def records_from_scripted_runs(games: list[str], limit: int) -> list[dict]:
    """Each game's own task file through in-process inspect eval, scripted replies, zero latency."""
    import importlib

    from inspect_ai import eval as inspect_eval

    os.chdir(ROOT)
    records = []
    with tempfile.TemporaryDirectory() as log_dir:
        for game in games:
            task = getattr(importlib.import_module(f"tasks.{game}"), game)
            (log,) = inspect_eval(task(), model="gameeval/scripted", limit=limit, log_dir=log_dir,
                                  display="none", score_display=False)
            if log.status != "success":
                raise SystemExit(f"{game}: inspect eval ended with status {log.status}: {log.error}")
            records += [s.metadata[RECORD_KEY] for s in log.samples]
    return records


def _interval(values: list[float]) -> dict:
    m = mean_ci(values)
    # counts cannot be negative: a t interval on few, skewed games can dip below 0, so clip it there
    ci = [None if x is None else max(0.0, x) for x in m["ci"]]
    return {"mean": _round(m["value"], 1), "ci95": [_round(x, 1) for x in ci]}


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, digits)


def summarize(records: list[dict], prices: dict[str, dict[str, float]]) -> dict:
    """game -> seat role -> per-seat-per-game tokens (mean, CI) and cost."""
    # (game, role) -> one entry per seat per game
    per_seat: dict[tuple[str, str], list[dict]] = defaultdict(list)
    games_seen: dict[str, int] = defaultdict(int)
    for rec in records:
        games_seen[rec["game"]] += 1
        for seat in rec["seats"]:
            use = rec["usage"].get(seat["name"], {"input_tokens": 0, "output_tokens": 0, "calls": 0})
            per_seat[(rec["game"], seat["role"])].append({**use, "model": seat.get("model") or "?"})
    out: dict[str, dict] = {g: {"games": n, "seats": {}} for g, n in sorted(games_seen.items())}
    for (game, role), rows in sorted(per_seat.items()):
        entry = {
            "seats_counted": len(rows),
            "models": sorted({r["model"] for r in rows}),
            "calls": _interval([r["calls"] for r in rows]),
            "prompt_tokens": _interval([r["input_tokens"] for r in rows]),
            "completion_tokens": _interval([r["output_tokens"] for r in rows]),
        }
        if prices:
            costs = []
            for r in rows:
                price = prices.get(r["model"], prices.get("*"))
                if price is None:
                    break
                costs.append(r["input_tokens"] * price["input_per_million"] / 1e6
                             + r["output_tokens"] * price["output_per_million"] / 1e6)
            else:
                m = mean_ci(costs)
                entry["usd_per_seat_per_game"] = {"mean": _round(m["value"], 6),
                                                  "ci95": [_round(x, 6) for x in m["ci"]]}
            if "usd_per_seat_per_game" not in entry:
                entry["usd_per_seat_per_game"] = "no price for some model (add it or a '*' entry)"
        out[game]["seats"][role] = entry
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games per game type (scripted runs)")
    parser.add_argument("--only", nargs="*", default=None, help="games to run (scripted runs)")
    parser.add_argument("--logs", nargs="*", default=None, help="read records from these inspect logs instead")
    parser.add_argument("--records", nargs="*", default=None, help="read records from these JSON-lines files instead")
    parser.add_argument("--prices", default=None, help="price table: JSON file or inline JSON")
    args = parser.parse_args()
    try:
        prices = load_prices(args.prices)
        unknown = sorted(set(args.only or []) - set(GAMES))
        if unknown:
            raise GameEvalError(f"unknown game(s): {', '.join(unknown)}")
    except GameEvalError as e:
        raise SystemExit(f"error: {e}") from None
    runs: list[dict] = []
    if args.logs:
        try:
            source, records = "inspect logs", records_from_logs(args.logs, runs)
        except GameEvalError as e:
            raise SystemExit(f"error: {e}") from None
    elif args.records:
        source, records = "record files", []
        for path in args.records:
            try:
                with jsonlines.open(path) as reader:
                    records += list(reader)
            except (OSError, jsonlines.Error) as e:
                raise SystemExit(f"error: {path}: not a JSON-lines record file ({e})") from None
        runs = [{"records": p} for p in args.records]
    else:
        source = "gameeval/scripted (random policies), token counts are word counts"
        records = records_from_scripted_runs(args.only or list(GAMES), args.games)
    print(json.dumps({
        "benchmark": "tokens",
        "date": datetime.date.today().isoformat(),
        "source": source,
        **({"runs": runs} if runs else {}),
        "unit": "per seat per game (a game with several seats of one role counts each seat)",
        "results": summarize(records, prices),
    }, indent=2))


if __name__ == "__main__":
    main()
