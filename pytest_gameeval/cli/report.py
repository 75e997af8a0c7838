"""`gameeval report diff OLD NEW`: one verdict per game between two reports (analysis/report/file.py);
`gameeval report merge OUT SLICE...`: one report from the slices of a run (analysis/report/merge.py);
`gameeval report schema`: the JSON Schema of a report (analysis/report/schema.json)."""

from __future__ import annotations

import json
import sys

from pytest_gameeval.analysis.report.file import clean, diff_reports, read_report, render_markdown
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError


def main(argv: list[str]) -> int:
    """`gameeval report diff OLD NEW [--format markdown|json] [--alpha A] [--tolerance T] [--metric G.M=higher]`.

    Exit 0: no game worse; 1: a game is worse, has too few games, or is missing on one side
    (`--allow-missing` accepts a missing game); 2: bad input (unreadable or incomparable reports),
    as one line on stderr (raised as GameEvalError)."""
    from pytest_gameeval.run.settings import gate_metric_option

    parser = _parser()
    args = parser.parse_args(argv)
    if args.action == "schema":
        from pytest_gameeval.analysis.report.schema import schema_text

        sys.stdout.write(schema_text())
        return 0
    if args.action == "merge":
        return _merge(args.out, args.reports)
    if not 0 < args.alpha < 1:
        raise GameEvalError("--alpha must be between 0 and 1")
    if args.tolerance < 0:
        raise GameEvalError("--tolerance must not be negative")
    old, new = read_report(args.old), read_report(args.new)  # each read (and its records hashed) once
    result = diff_reports(old, new, alpha=args.alpha, tolerance=args.tolerance,
                          metrics=gate_metric_option(args.metric),
                          allow_structured_mismatch=args.allow_structured_mismatch,
                          allow_version_change=args.allow_version_change)
    from pytest_gameeval.analysis.cost.report import cost_diff, cost_diff_lines  # what each run cost (issue 46)

    result["cost"] = cost_diff(old, new)
    if args.format == "json":
        json.dump(clean(result), sys.stdout, indent=1, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_markdown(result) + "\n")
        sys.stdout.write("".join(f"{line}\n" for line in cost_diff_lines(result["cost"])))
    return 1 if result["failing"] or (result["missing"] and not args.allow_missing) else 0


def _parser() -> CommandParser:
    """diff, merge and schema, each with its options."""
    parser = CommandParser(prog="gameeval report", description="compare pytest-gameeval reports")
    sub = parser.add_subparsers(dest="action", required=True)
    diff = sub.add_parser(
        "diff", help="one verdict per game (its headline, paired where possible), with intervals and tests"
    )
    diff.add_argument("old", help="the earlier report (e.g. the last release's)")
    diff.add_argument("new", help="the report to compare with it")
    diff.add_argument("--format", choices=("markdown", "json"), default="markdown",
                      help="markdown: a table for people and CI logs (default); json: the same numbers for scripts")
    diff.add_argument("--alpha", type=float, default=0.05, help="significance level (two-sided); default 0.05")
    diff.add_argument("--tolerance", type=float, default=0.1,
                      help="a change within +-this is 'same', beyond it 'better'/'worse' (metric units); default 0.1")
    diff.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="GAME.METRIC=higher|lower[:TOL]",
        help="also test this metric beside the game's headline (GAME.METRIC=ignore drops one); repeatable",
    )
    diff.add_argument("--allow-missing", action="store_true",
                      help="exit 0 although a game is missing from one report or has no played game there")
    diff.add_argument("--allow-structured-mismatch", action="store_true",
                      help="compare runs although one used structured decoding and the other did not")
    diff.add_argument("--allow-version-change", action="store_true",
                      help="compare runs although a game's version differs (the game changed, not only the model; "
                           "said on the verdict line)")
    merge = sub.add_parser("merge", help="one report from the reports of every slice of a run (--gameeval-shard K/N), "
                                         "equal to one machine's report of the same cases")
    merge.add_argument("out", help="the merged report to write (its records go beside it as OUT.records.jsonl)")
    merge.add_argument("reports", nargs="+", metavar="REPORT", help="every slice's report (its records file beside it)")
    sub.add_parser("schema", help="print the JSON Schema every report follows (docs/report-schema.md)")
    return parser


def _merge(out: str, reports: list[str]) -> int:
    from pathlib import Path

    from pytest_gameeval.analysis.report.merge import write_merged

    merged = write_merged([Path(r) for r in reports], Path(out))
    games = ", ".join(
        f"{name} ({g['cases_reported']} cases, version {g.get('version')})" for name, g in merged["games"].items()
    )
    print(f"merged {len(reports)} slices into {out}: {games}")
    return 0
