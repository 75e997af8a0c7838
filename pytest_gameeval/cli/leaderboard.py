"""`gameeval leaderboard LOGS_OR_REPORTS... --out DIR`: the static leaderboard page
(analysis/rankings/leaderboard.py)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_gameeval.analysis.rankings.leaderboard import (
    DEFAULT_VIEW_URL,
    build,
    read_inputs,
    render_html,
    render_markdown,
)
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.safe_io import write_text


def main(argv: list[str]) -> int:
    parser = CommandParser(
        prog="gameeval leaderboard",
        description="One static page (HTML and markdown): models x games, each game's headline with its interval, a "
                    "cross-game rating.",
    )
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="LOGS_OR_REPORTS",
        help="inspect logs or directories of them, and gameeval report JSON files",
    )
    parser.add_argument(
        "--out",
        default="leaderboard",
        help="directory for leaderboard.html, leaderboard.md and leaderboard.json (default: leaderboard)",
    )
    parser.add_argument(
        "--view-url",
        default=DEFAULT_VIEW_URL,
        help=f"address of `inspect view` for the log links (default {DEFAULT_VIEW_URL})",
    )
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the rating intervals")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    args = parser.parse_args(argv)
    board = build(read_inputs(args.inputs), n_resamples=args.bootstrap, seed=args.seed)
    out = Path(args.out)
    paths = [out / "leaderboard.html", out / "leaderboard.md", out / "leaderboard.json"]
    texts = [
        render_html(board, args.view_url, out.resolve()),
        render_markdown(board),
        json.dumps(board, indent=2) + "\n",
    ]
    for path, text in zip(paths, texts):
        write_text(path, text)
    print(f"{len(board['rows'])} models x {len(board['columns'])} games; ranking: {board['rating']['ranking']}")
    print("wrote " + ", ".join(map(str, paths)))
    return 0
