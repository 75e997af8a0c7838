"""`gameeval compare A B`: two models on the same cases, seeds and opponents, one verdict per game
(analysis/rankings/compare.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pytest_gameeval.analysis.rankings.compare import (
    analyze,
    build_tasks,
    cases_from_logs,
    check_versions,
    play,
    write_plot,
)
from pytest_gameeval.analysis.report.file import clean
from pytest_gameeval.analysis.verdicts.game import without_evidence
from pytest_gameeval.analysis.verdicts.table import markdown
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.key_values import key_value_pairs
from pytest_gameeval.engine.safe_io import refuse_output_among_inputs, write_text
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.transport.retry_defaults import ATTEMPT_TIMEOUT, MAX_RETRIES, TIMEOUT


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="gameeval compare",
        description="Play two models on the same cases, seeds and opponents (concurrently, through inspect), then give "
                    "one verdict per game: the paired difference of its headline with interval and p, the outcome "
                    "breakdowns, better/worse/same/undecided. Writes compare.json, compare.md and compare.png.")
    parser.add_argument("a", metavar="A", help="the reference model (inspect name, e.g. gameeval/local)")
    parser.add_argument("b", metavar="B", help="the model compared with it (e.g. gameeval/local/gemma-3-270m)")
    parser.add_argument(
        "--games", default="askguess", help="comma-separated games (default askguess; 'all' for every game)"
    )
    parser.add_argument("--limit", type=int, default=None, help="cases per game (inspect's --limit)")
    parser.add_argument("--epochs", type=int, default=None, help="times each case is played (inspect's --epochs)")
    parser.add_argument(
        "-T",
        dest="task_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="task argument for every game (e.g. max_rounds=5, seed=1)",
    )
    parser.add_argument(
        "--role",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="bind an opponent role to a model for both A and B (default: each game's declared opponents)",
    )
    parser.add_argument("--max-retries", type=int, default=None,
                        help=f"retries of a failed model call (inspect's --max-retries; default {MAX_RETRIES})")
    parser.add_argument("--timeout", type=int, default=None,
                        help=f"seconds a model call may take with its retries (inspect's --timeout; default {TIMEOUT})")
    parser.add_argument("--attempt-timeout", type=int, default=None,
                        help=f"seconds one attempt may take (inspect's --attempt-timeout; default {ATTEMPT_TIMEOUT})")
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided significance level (default 0.05)")
    parser.add_argument(
        "--tolerance", type=float, default=0.1, help="a difference within ±this is 'same' (default 0.1)"
    )
    parser.add_argument("--metric", action="append", default=[], metavar="GAME.METRIC=higher|lower[:TOL]",
                        help="also test this metric beside the headline (repeatable)")
    parser.add_argument(
        "--out", default="compare", help="directory for compare.json/.md/.png and the logs (default ./compare)"
    )
    parser.add_argument("--display", default=None, help="inspect display (full, rich, plain, none)")
    parser.add_argument("--analyze-only", action="store_true", help="do not play; read the logs already in OUT/logs")
    parser.add_argument("--cost-config", metavar="FILE",
                        help="price table (inspect's --model-cost-config format): each side's cost in compare.json "
                             "and the last lines")
    parser.add_argument("--budget", type=float, default=None, metavar="USD",
                        help="start a case (on both sides) only while the spend so far, the cases running and its "
                             "estimated cost on both sides (the game's 90th percentile) stay within USD; the others "
                             "are not played by either side; needs --cost-config")
    parser.add_argument(
        "--allow-version-change",
        action="store_true",
        help="compare although the logs in OUT/logs are of another version of a game (said on the verdict line)",
    )
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)

    from pytest_gameeval.backends.local_weights import canonical_model_name
    from pytest_gameeval.run.settings import gate_metric_option

    games = list(GAMES) if args.games.strip() == "all" else [g.strip() for g in args.games.split(",") if g.strip()]
    for game in games:
        get_spec(game)  # an unknown game: one line naming the known ones
    if not 0 < args.alpha < 1:
        raise GameEvalError("--alpha must be between 0 and 1")
    if args.tolerance < 0:
        raise GameEvalError("--tolerance must not be negative")
    # a local GGUF by its identity (gameeval/local/<file>@<sha>), so two GGUFs are told apart on every line
    a, b = canonical_model_name(args.a.strip()), canonical_model_name(args.b.strip())
    names = {"A": a, "B": b}
    out = Path(args.out)
    if args.cost_config:  # the price table read is never one of the files written
        refuse_output_among_inputs([out / f"compare.{x}" for x in ("json", "md", "png")], [args.cost_config])
    log_dir = out / "logs"
    metrics = gate_metric_option(args.metric)
    task_args = dict(key_value_pairs(args.task_args, "-T", allow_empty_value=True))
    roles = dict(key_value_pairs(args.role, "--role", allow_empty_value=True))
    from pytest_gameeval.cli.compare_budget import admitted, budgeted
    from pytest_gameeval.cli.compare_budget import lines as budget_lines
    from pytest_gameeval.cli.compare_spend import cost_lines, pair_budget, prices

    table = prices(args)
    budget = None
    if not args.analyze_only:
        budget = pair_budget(args, out, games, names, task_args, roles, table)
        tasks = build_tasks(games, names, task_args, roles, solver_of=budgeted if budget else None)
        retries = {"max_retries": args.max_retries, "timeout": args.timeout, "attempt_timeout": args.attempt_timeout}
        with admitted(budget):
            play(tasks, log_dir, limit=args.limit, epochs=args.epochs, display=args.display, **retries)
    cases, played_by, log_versions = cases_from_logs(log_dir)
    versions = check_versions(games, log_versions, log_dir, allow=args.allow_version_change)
    result = analyze(games, cases, names, alpha=args.alpha, tolerance=args.tolerance, metrics=metrics)
    for game, sides in versions.items():
        result["games"][game]["versions"] = sides  # the game version each side's logs were played with
    changed = [f"{g} {s['A']} -> {s['B']} (installed {get_spec(g).version})" for g, s in versions.items()
               if len({s["A"], s["B"], get_spec(g).version}) > 1]
    result["version_changes"] = changed
    result["logs"] = str(log_dir)
    spend = cost_lines(result, cases, table, names)  # each side's cost (issue 46), in compare.json too
    if budget is not None:  # the cases the budget did not start (on either side), in compare.json too
        result["budget"] = budget.summary()
        spend += budget_lines(result["budget"], sum(len(c) for (_, side), c in cases.items() if side == "A"))
    text = _write(out, result, a, b, alpha=args.alpha, tolerance=args.tolerance)
    print(text)
    for line in spend:
        print(line)
    verdicts = ", ".join(f"{g}: {r['result']}" for g, r in result["games"].items())
    versions_line = (
        f" [game versions differ, compared anyway (--allow-version-change): {', '.join(changed)}]" if changed else ""
    )
    print(f"\n{b} vs {a}: {verdicts}{versions_line}")
    print(f"wrote {out / 'compare.json'}, {out / 'compare.md'} and {out / 'compare.png'}")
    return 1 if any(without_evidence(r["result"]) for r in result["games"].values()) else 0


def _write(out: Path, result: dict[str, Any], a: str, b: str, *, alpha: float, tolerance: float) -> str:
    """compare.json, compare.md and compare.png in `out`; returns the markdown table."""
    # each file whole or absent; a full disk is one line naming the file (engine/safe_io.py)
    write_text(out / "compare.json", json.dumps(clean(result), indent=1, allow_nan=False) + "\n", "compare output")
    text = markdown(result["games"], a, b, sides=("A", "B"), note=(
        f"A = `{a}`, B = `{b}`; change = B − A. Paired where both played the same cases with the same seeds "
        f"(exact McNemar for 0/1 values, paired t otherwise), alpha={alpha} two-sided, tolerance=±{tolerance}."))
    write_text(out / "compare.md", text + "\n", "compare output")
    write_plot(result, out / "compare.png")
    return text
