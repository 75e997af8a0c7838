"""`gameeval contamination MODEL`: the model on published cases and on fresh cases matched to them by
difficulty; per game the difference of its headline and a verdict (analysis/rankings/contamination.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pytest_gameeval.analysis.rankings.compare import analyze, build_tasks, cases_from_logs, play
from pytest_gameeval.analysis.rankings.contamination import FRESH, NO_SIGNAL, PUBLISHED, headline_line, probe_verdict
from pytest_gameeval.analysis.rankings.contamination import side_args as fresh_side_args
from pytest_gameeval.analysis.report.file import clean
from pytest_gameeval.analysis.verdicts.table import markdown
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.key_values import key_value_pairs
from pytest_gameeval.engine.safe_io import atomic_write
from pytest_gameeval.games.registry import get_spec


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="gameeval contamination",
        description="Play MODEL on each game's published cases and on fresh cases matched to them by difficulty "
                    "(docs/fresh-cases.md), then per game: the headline on both, the difference with its interval "
                    "and a verdict: 'memorisation signal' when the published cases were easier beyond the tolerance. "
                    "Exit 0 when every game shows no signal, 1 otherwise (a signal, or undecided). Writes "
                    "contamination.json and contamination.md in --out.")
    parser.add_argument("model", metavar="MODEL", help="the model probed (inspect name, e.g. gameeval/local)")
    parser.add_argument("--games", default="askguess",
                        help="comma-separated games with fresh cases: askguess, spyfall, spygame, spygpt, taboo, age "
                             "(default askguess)")
    parser.add_argument("--fresh-seed", type=int, default=0, help="the fresh case set's seed (default 0)")
    parser.add_argument("--limit", type=int, default=None, help="cases per game and side (inspect's --limit)")
    parser.add_argument("--epochs", type=int, default=None, help="times each case is played (inspect's --epochs)")
    parser.add_argument("-T", dest="task_args", action="append", default=[], metavar="KEY=VALUE",
                        help="task argument for every game and both sides (e.g. max_rounds=5, seed=1)")
    parser.add_argument("--role", action="append", default=[], metavar="ROLE=MODEL",
                        help="bind an opponent role to a model on both sides (default: each game's declared opponents)")
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided significance level (default 0.05)")
    parser.add_argument("--tolerance", type=float, default=0.1,
                        help="a headline gap within ±this is no signal (default 0.1)")
    parser.add_argument("--out", default="contamination",
                        help="directory for the outputs and logs (default ./contamination)")
    parser.add_argument("--display", default=None, help="inspect display (full, rich, plain, none)")
    return parser


def _note(model: str, seed: int, alpha: float, tolerance: float, games: int) -> str:
    return (f"{model} on fresh cases (A, seed {seed}) and on the published ones (B); change = published − fresh, "
            f"other cases on each side (unpaired: Fisher's exact test or Welch's t), alpha={alpha} two-sided, "
            f"tolerance=±{tolerance}. {games} game(s) tested, each at alpha: with k games the chance of at least "
            "one false signal is up to 1-(1-alpha/2)^k.")


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    for game in games:
        get_spec(game)  # an unknown game: one line naming the known ones
    if not 0 < args.alpha < 1 or args.tolerance < 0 or args.fresh_seed < 0:
        raise GameEvalError("--alpha must be between 0 and 1, --tolerance and --fresh-seed not negative")
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
    names = {FRESH: f"fresh cases (seed {args.fresh_seed})", PUBLISHED: "published cases"}
    result = analyze(games, cases, names, alpha=args.alpha, tolerance=args.tolerance, metrics={})
    lines = [headline_line(game, r) for game, r in result["games"].items()]
    result.update(model=model, fresh_seed=args.fresh_seed,
                  verdicts={g: probe_verdict(r)[0] for g, r in result["games"].items()})
    table = markdown(result["games"], names[FRESH], names[PUBLISHED], sides=(FRESH, PUBLISHED),
                     note=_note(model, args.fresh_seed, args.alpha, args.tolerance, len(games)))
    text = "\n".join([table, "", *lines])
    atomic_write(out / "contamination.json", lambda tmp: Path(tmp).write_text(
        json.dumps(clean(result), indent=1, allow_nan=False) + "\n", encoding="utf-8"))
    atomic_write(out / "contamination.md", lambda tmp: Path(tmp).write_text(text + "\n", encoding="utf-8"))
    print(text)
    print(f"wrote {out / 'contamination.json'} and {out / 'contamination.md'}")
    # a game with a signal, or undecided, is no clean bill of health: exit 1 (docs/fresh-cases.md)
    return 0 if all(v == NO_SIGNAL for v in result["verdicts"].values()) else 1
