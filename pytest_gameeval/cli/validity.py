"""`gameeval validity [GAME...]`: does each game separate a strong from a weak scripted player
(analysis/rankings/validity.py); JSON on stdout."""

from __future__ import annotations

import json
import sys

from pytest_gameeval.analysis.rankings.validity import ALPHA, CONTRASTS, LOOK_EVERY, MAX_GAMES, run
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import GAMES


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="gameeval validity",
                                     description="strong vs weak scripted players per game; JSON on stdout")
    parser.add_argument("games", nargs="*", help=f"games (default: all of {', '.join(CONTRASTS)})")
    parser.add_argument("--max-games", type=int, default=MAX_GAMES, help="games per game type, both arms together")
    parser.add_argument("--look-every", type=int, default=LOOK_EVERY, help="games per arm between looks")
    parser.add_argument("--alpha", type=float, default=ALPHA, help="overall significance level")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the games (default 0)")
    args = parser.parse_args(argv)
    if not 0 < args.alpha < 1:
        raise GameEvalError("validity: --alpha must be between 0 and 1")
    missing = sorted(set(CONTRASTS) ^ set(GAMES))
    if missing and not args.games:
        print(f"gameeval validity: note: no contrast for {', '.join(missing)}", file=sys.stderr)
    result = run(args.games or list(CONTRASTS), max_games=args.max_games, look_every=args.look_every,
                 alpha=args.alpha, seed=args.seed)
    print(json.dumps(result, indent=2))
    return 0 if result["all_separated"] else 1
