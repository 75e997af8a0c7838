"""`gameeval contamination MODEL`: the model on published cases and on fresh cases matched to them by
difficulty; per game the difference of its headline and a verdict (analysis/rankings/contamination.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pytest_gameeval.analysis.rankings.compare import build_tasks, cases_from_logs, play
from pytest_gameeval.analysis.rankings.contamination import FRESH, NO_SIGN, PUBLISHED, headline_line, probe_game
from pytest_gameeval.analysis.rankings.contamination import side_args as fresh_side_args
from pytest_gameeval.analysis.report.file import clean
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.key_values import key_value_pairs
from pytest_gameeval.engine.safe_io import atomic_write
from pytest_gameeval.fresh.cases import fresh_rows
from pytest_gameeval.fresh.resolve import MAX_SEED
from pytest_gameeval.fresh.table import twin_to_twin_note
from pytest_gameeval.games.registry import get_spec


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="gameeval contamination",
        description="Play MODEL on each game's published cases and on fresh cases matched to them by difficulty "
                    "(docs/fresh-cases.md), then per game: the headline on both, the difference with its interval "
                    "and a verdict: 'memorisation signal' when the published cases were easier by more than the "
                    "tolerance, "
                    "'no sign of memorisation' when the difference lies within ±tolerance (two one-sided tests), "
                    "else 'undecided' with the twins a side that would likely decide it. Exit 0 when every game "
                    "shows no sign, 1 otherwise (a signal, or undecided). Writes "
                    "contamination.json and contamination.md in --out.")
    parser.add_argument("model", metavar="MODEL", help="the model probed (inspect name, e.g. gameeval/local)")
    parser.add_argument("--games", default="askguess",
                        help="comma-separated games with fresh cases: askguess, spyfall, spygame, spygpt, taboo, age "
                             "(default askguess)")
    parser.add_argument("--fresh-seed", type=int, default=0,
                        help="the fresh case set's seed, 0 to 2**63-1 (default 0)")
    parser.add_argument("--limit", type=int, default=None, help="cases per game and side (inspect's --limit)")
    parser.add_argument("--epochs", type=int, default=None, help="times each case is played (inspect's --epochs)")
    parser.add_argument("-T", dest="task_args", action="append", default=[], metavar="KEY=VALUE",
                        help="task argument for every game and both sides (e.g. max_rounds=5, seed=1)")
    parser.add_argument("--role", action="append", default=[], metavar="ROLE=MODEL",
                        help="bind an opponent role to a model on both sides (default: each game's declared opponents)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="error of each one-sided test: of a signal when the true gap is at most the tolerance, "
                             "of 'no sign' when it is at least the tolerance (default 0.05; the interval shown is "
                             "the 1 - 2*alpha one)")
    parser.add_argument("--tolerance", type=float, default=0.1,
                        help="δ: a headline gap (published − fresh) beyond +δ is a memorisation signal, one shown "
                             "within ±δ is no sign of memorisation (default 0.1)")
    parser.add_argument("--out", default="contamination",
                        help="directory for the outputs and logs (default ./contamination)")
    parser.add_argument("--display", default=None, help="inspect display (full, rich, plain, none)")
    return parser


def _table(model: str, seed: int, alpha: float, results: dict[str, dict[str, Any]]) -> str:
    """The markdown table: one row per game, the headline on both sides, the difference and the verdict."""
    lines = [f"{model}: published cases with a fresh twin vs their twins (fresh seed {seed}); difference = "
             f"published − fresh with its {1 - 2 * alpha:.0%} interval, Welch's t on each twin's mean over its epochs",
             "",
             "| game | headline | published | fresh | difference [interval] | verdict |", "|---|---|---|---|---|---|"]
    for game, r in results.items():
        if "gap" not in r:
            lines.append(f"| {game} | {r['metric']} | – | – | – | {r['verdict']} |")
            continue
        ci = f" [{r['ci'][0]:+.2f}, {r['ci'][1]:+.2f}]" if "ci" in r else ""
        lines.append(f"| {game} | {r['metric']} | {r['published']:.2f} ({r['n_published']}) | {r['fresh']:.2f} "
                     f"({r['n_fresh']}) | {r['gap']:+.2f}{ci} | {r['verdict']} |")
    return "\n".join(lines)


def _check(args: argparse.Namespace) -> list[str]:
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    for game in games:
        get_spec(game)  # an unknown game: one line naming the known ones
    if not 0 < args.alpha < 0.5 or not 0 < args.tolerance < 1:
        raise GameEvalError("--alpha must be between 0 and 0.5, --tolerance between 0 and 1 (exclusive)")
    if not 0 <= args.fresh_seed <= MAX_SEED:
        raise GameEvalError(f"--fresh-seed must be a whole number from 0 to 2**63-1 ({MAX_SEED})")
    return games


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    games = _check(args)
    task_args = dict(key_value_pairs(args.task_args, "-T", allow_empty_value=True))
    if "data" in task_args:
        raise GameEvalError("-T data=...: the probe plays each game's published cases and its fresh twins itself")
    roles = dict(key_value_pairs(args.role, "--role", allow_empty_value=True))
    model = args.model.strip()
    out, sides = Path(args.out), fresh_side_args(games, args.fresh_seed)
    tasks = [t for game in games for t in build_tasks([game], {FRESH: model, PUBLISHED: model}, task_args, roles,
                                                      side_args=sides[game])]
    play(tasks, out / "logs", limit=args.limit, epochs=args.epochs, display=args.display)
    cases, _, _ = cases_from_logs(out / "logs")
    results = {game: probe_game(game, cases, alpha=args.alpha, delta=args.tolerance) for game in games}
    lines = [headline_line(game, r, len(fresh_rows(game, args.fresh_seed))) for game, r in results.items()]
    notes = [n for game in games if (n := twin_to_twin_note(game, args.fresh_seed))]
    result = {"model": model, "fresh_seed": args.fresh_seed, "alpha": args.alpha, "tolerance": args.tolerance,
              "games": results, "verdicts": {g: r["verdict"] for g, r in results.items()}, "notes": notes}
    text = "\n".join([_table(model, args.fresh_seed, args.alpha, results), "", *lines, *notes])
    atomic_write(out / "contamination.json", lambda tmp: Path(tmp).write_text(
        json.dumps(clean(result), indent=1, allow_nan=False) + "\n", encoding="utf-8"))
    atomic_write(out / "contamination.md", lambda tmp: Path(tmp).write_text(text + "\n", encoding="utf-8"))
    print(text)
    print(f"wrote {out / 'contamination.json'} and {out / 'contamination.md'}")
    # only "no sign" in every game clears the model; a signal, or undecided, is exit 1 (docs/fresh-cases.md)
    return 0 if all(v == NO_SIGN for v in result["verdicts"].values()) else 1
