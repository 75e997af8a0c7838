"""`gameeval fresh`: a fresh case set (`show`) and its difficulty beside the published list's
(`difficulty`); the sets themselves are played with `-T data=fresh:SEED` or
`--gameeval-data GAME=fresh:SEED` (docs/fresh-cases.md)."""

from __future__ import annotations

import argparse
import json

from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.fresh.difficulty import MEASURES
from pytest_gameeval.fresh.resolve import MAX_SEED, fresh_file, fresh_seed


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="gameeval fresh", description="Fresh cases drawn from the lexicon in the wheel, "
                           "in no list we ship: show a set, or its difficulty beside the published list's.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="ACTION",
                                help="show: a fresh case set; difficulty: its measures beside the published list's")
    show = sub.add_parser("show", help="print a game's fresh cases (JSON lines, the game's data format)")
    show.add_argument("game", help=f"one of {', '.join(MEASURES)}")
    show.add_argument("--seed", type=int, default=0, help="the set's seed, 0 to 2**63-1 (default 0)")
    show.add_argument("--limit", type=int, default=None, help="only the first N cases")
    table = sub.add_parser("difficulty", help="each game's difficulty measures: published list vs fresh set")
    table.add_argument("--games", default=",".join(MEASURES), help="comma-separated games (default: every one)")
    table.add_argument("--seed", type=int, default=0, help="the fresh set's seed, 0 to 2**63-1 (default 0)")
    table.add_argument("--format", choices=("markdown", "json"), default="markdown")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if not 0 <= args.seed <= MAX_SEED:
        raise GameEvalError(f"--seed must be a whole number from 0 to 2**63-1 ({MAX_SEED})")
    if args.command == "show":
        path = fresh_file(args.game, fresh_seed(args.game, f"fresh:{args.seed}"))
        lines = path.read_text(encoding="utf-8").splitlines()
        print("\n".join(lines[: args.limit] if args.limit is not None else lines))
        return 0
    from pytest_gameeval.fresh.table import difficulty_rows, markdown

    games = [g.strip() for g in args.games.split(",") if g.strip()]
    for game in games:
        fresh_seed(game, f"fresh:{args.seed}")  # a game without fresh cases: one line
    rows = [row for game in games for row in difficulty_rows(game, args.seed)]
    print(json.dumps(rows, indent=1) if args.format == "json" else markdown(rows, args.seed))
    return 0
