"""The `gameeval` command: one line per subcommand, each loaded only when run from its own module
here (its arguments and entry; the logic it calls lives where it belongs: analysis/, backends/, ...).

The top front: may import every room below it, the run's core (run/) and the arena; never the pytest
plugin (pytest_plugin/), whose hooks are pytest's alone (issue 63)."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Callable

from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import surrogate_safe


def _run(module: str) -> Callable[[list[str]], int]:
    """The `main` of pytest_gameeval.cli.MODULE, imported only when its command runs."""
    return lambda argv: importlib.import_module(f"pytest_gameeval.cli.{module}").main(argv)


COMMANDS = {
    "serve-local": (_run("serve_local"), "serve the embedded model over an OpenAI-compatible API on 127.0.0.1"),
    "report": (
        _run("report"),
        "report diff OLD NEW: one verdict per game (its headline, paired where possible); exit 1 if a game is worse "
        "or missing; report merge OUT SLICE...: one report from a run's slices; report schema: the report's JSON "
        "Schema",
    ),
    "estimate": (
        _run("estimate"),
        "estimate MODEL: the calls, tokens and cost of a planned run before it is played (a price table, each game's "
        "token profile), with a range and the gate's expected and worst case",
    ),
    "compare": (
        _run("compare"),
        "compare A B: two models on the same cases, seeds and opponents; per game the paired difference of the "
        "headline and a verdict (JSON, markdown, PNG)",
    ),
    "contamination": (
        _run("contamination"),
        "contamination MODEL: the model on published cases and on fresh ones matched by difficulty; per game the "
        "headline gap with its interval and a verdict (memorisation signal, no sign of memorisation, undecided)",
    ),
    "fresh": (
        _run("fresh"),
        "fresh show GAME: a fresh case set (play it with -T data=fresh:SEED); fresh difficulty: each game's "
        "difficulty measures, published list vs fresh set",
    ),
    "rank-correlate": (
        _run("rank_correlate"),
        "Kendall's tau and RBO between our model ranking and an external leaderboard",
    ),
    "play": (_run("human_play"), "play the user seat of akinator, taboo or bluffing yourself against --model"),
    "arena": (
        _run("arena"),
        "serve akinator/taboo/bluffing to people in a browser against --model, every move stored in --db; arena "
        "export: inspect log + report",
    ),
    "tournament": (
        _run("tournament"),
        "every model pairing of spyfall/tofukingdom: matrices and Bradley-Terry ratings (JSON, PNG)",
    ),
    "leaderboard": (
        _run("leaderboard"),
        "leaderboard LOGS_OR_REPORTS...: models x games, headlines with intervals, a cross-game rating (static HTML + "
        "markdown)",
    ),
    "age-topics": (_run("age_topics"), "AGE: each model against a fixed adversary per topic list (JSON, heatmap PNG)"),
    "validity": (
        _run("validity"),
        "does each game separate a strong from a weak scripted player, within how many games (JSON)",
    ),
    "merge-logs": (
        _run("merge_logs"),
        "merge-logs OUT LOG...: one inspect log from an evaluation run as several processes (view and eval-retry work)",
    ),
    "rejudge": (
        _run("rejudge"),
        "rejudge REPORT|RECORDS|LOG: recorded games through the installed rules, no model call; what changed, and a "
        "re-judged report the gate takes as a baseline where the prompts are unchanged",
    ),
    "versions": (
        _run("versions"),
        "each game's version and fingerprint; --check for CI; --bump GAME --note TEXT after changing a game",
    ),
    "history": (
        _run("history"),
        "history list|show|compare|add: the runs stored by --gameeval-save/--gameeval-autosave; per game a trend "
        "with intervals and a verdict between consecutive runs (markdown, JSON, CSV, PNG)",
    ),
    "bias-report": (
        _run("bias_report"),
        "SpyGame vote bias by name, speaking and option position, chi-square tests (JSON, --plot PNG)",
    ),
}


class _VersionAction(argparse.Action):
    """--version: computed only when asked (each game's fingerprint reads its code)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object):
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help")))

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from pytest_gameeval.cli.versions import version_lines

        print("\n".join(version_lines()))
        parser.exit()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    surrogate_safe(sys.stdout, sys.stderr)  # a string from a hostile file never ends a command in a traceback
    width = max(map(len, COMMANDS))
    parser = CommandParser(
        prog="gameeval", usage="gameeval [--version] COMMAND [ARGS...]",
        description="pytest-gameeval commands. `gameeval COMMAND --help` explains each command's options.",
        epilog="commands:\n" + "\n".join(f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="the package's version and every game's version, then exit"
    )
    parser.add_argument("command", choices=list(COMMANDS), metavar="COMMAND", help="one of the commands below")
    args, rest = parser.parse_known_args(argv[:1])
    try:
        return COMMANDS[args.command][0](argv[1:] + rest)
    except GameEvalError as e:
        print(f"gameeval: error: {e}", file=sys.stderr)
        return 2
    except MemoryError:  # input larger than the limits foresaw: still one line, not a traceback
        print(f"gameeval: error: {args.command}: out of memory (an input too large for this machine)", file=sys.stderr)
        return 2

