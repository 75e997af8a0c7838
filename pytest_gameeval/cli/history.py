"""`gameeval history list|show|compare|page|add`: the store of runs (analysis/history/) from the shell.

Exit 0, or 2 with one line on stderr for bad input (an unknown run, a stored run edited by hand,
an unreadable store), as every gameeval command."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_gameeval.analysis.history.store import DEFAULT_STORAGE, RunStore, StoredRun
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError

FORMATS = ("markdown", "json", "csv")


STORAGE_HELP = "the store: a folder or an fsspec URL (default: $GAMEEVAL_STORAGE, else .gameeval)"


def _parser() -> CommandParser:
    parser = CommandParser(prog="gameeval history", description="the stored runs of pytest-gameeval (docs/history.md)")
    parser.add_argument("--storage", default=os.environ.get("GAMEEVAL_STORAGE") or DEFAULT_STORAGE, help=STORAGE_HELP)
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION",
                                help="list | show ID | compare [ID...] | page | add REPORT_OR_LOGS (each with --help)")
    for name, text in (("list", "every stored run: id, date, commit, model, games and each game's headline"),
                       ("compare", "per game each run's headline and legal_first_try with intervals, and the verdict "
                                   "between consecutive runs")):
        p = sub.add_parser(name, help=text)
        if name == "compare":
            p.add_argument("runs", nargs="*", metavar="ID", help="runs (id, id prefix or NAME); default: all")
            p.add_argument("--alpha", type=float, default=0.05, help="each comparison's two-sided level (0.05)")
            p.add_argument("--tolerance", type=float, default=0.1, help="'same' within +-this (metric units; 0.1)")
            p.add_argument("--plot", metavar="DIR", help="write a PNG trend per game into DIR (trend-GAME.png)")
        p.add_argument("--last", type=int, metavar="N", help="only the newest N runs (after the filters)")
        p.add_argument("--model", help="only runs of this evaluated model")
        p.add_argument("--game", action="append", default=[], help="only runs (and rows) of this game (repeatable)")
        p.add_argument("--format", choices=FORMATS, default="markdown",
                       help="markdown (default), json, or csv (pandas.read_csv: one row per run x game)")
        p.add_argument("--output", metavar="FILE", help="write to FILE (atomically) instead of standard output")
    # "page", not "report": in this CLI a report is a run's report.json (`gameeval report diff`)
    page = sub.add_parser("page", help="one static HTML page of the store: a trend chart per game and a table of runs")
    page.add_argument("runs", nargs="*", metavar="ID", help="runs (id, id prefix or NAME); default: all")
    page.add_argument("--last", type=int, metavar="N", help="only the newest N runs (after the filters)")
    page.add_argument("--model", help="only runs of this evaluated model")
    page.add_argument("--game", action="append", default=[], help="only runs (and charts) of this game (repeatable)")
    page.add_argument("--alpha", type=float, default=0.05, help="each comparison's two-sided level (0.05)")
    page.add_argument("--tolerance", type=float, default=0.1, help="'same' within +-this (metric units; 0.1)")
    page.add_argument("--output", metavar="FILE", default="history.html", help="the page (default: history.html)")
    show = sub.add_parser("show", help="one run's metadata and per-game rows")
    show.add_argument("run", metavar="ID", help="id, id prefix, NAME or latest")
    show.add_argument("--format", choices=("markdown", "json"), default="markdown", help="markdown (default) or json")
    add = sub.add_parser("add", help="store a report (its records beside it; e.g. a merged sharded run) or the inspect "
                                     "logs of one `inspect eval` run as a run")
    add.add_argument("path", metavar="REPORT_OR_LOGS", help="a gameeval report JSON, or an inspect log file or folder")
    add.add_argument("--name", default="", help="the run's NAME")
    for action in sub.choices.values():  # `history list --storage X` as well as `history --storage X list`
        action.add_argument("--storage", default=argparse.SUPPRESS, help=STORAGE_HELP)
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    # a folder named absolute in every message: run from elsewhere than pytest's rootdir, it says where it looked
    store = RunStore(args.storage if "://" in args.storage else Path(args.storage).expanduser().absolute())
    if args.action == "add":
        return _add(store, Path(args.path), args.name)
    if args.action == "show":
        return _show(store, args.run, args.format)
    _outside_store(store, args.output, "--output")
    _outside_store(store, getattr(args, "plot", None), "--plot")
    runs = _select(store, args)
    if args.action == "list":
        return _emit(_list(runs, args.format, store.label), args.output)
    if args.action == "page":
        return _page(store, runs, args)
    return _compare(store, runs, args)


def _select(store: RunStore, args: Any) -> list[StoredRun]:
    runs = store.runs()
    if getattr(args, "runs", None):
        runs = sorted({store.find(ref, runs).id: store.find(ref, runs) for ref in args.runs}.values(),
                      key=lambda r: r.id)
    if args.model:
        runs = [r for r in runs if r.model == args.model]
    if args.game:
        runs = [r for r in runs if set(args.game) & set(r.meta["games"])]
    if args.last is not None:
        if args.last < 1:
            raise GameEvalError("--last must be at least 1")
        runs = runs[-args.last:]
    return runs


def _outside_store(store: RunStore, path: str | None, what: str) -> None:
    """No output path inside the store: a stored file is never written but by a save."""
    if path and store.local:
        target, root = Path(path).resolve(), Path(store.root).resolve()
        if target == root or root in target.parents:
            raise GameEvalError(f"{what} {path}: inside the history store {store.label}; write it elsewhere")


def _emit(text: str, output: str | None) -> int:
    if output:
        from pytest_gameeval.engine.safe_io import write_text

        try:
            write_text(output, text)
        except OSError as e:
            raise GameEvalError(f"{output}: cannot write ({e.strerror or e})") from None
    else:
        sys.stdout.write(text)
    return 0


def _headlines(run: StoredRun) -> str:
    out = []
    for name, game in sorted(run.meta["games"].items()):
        m = (game.get("measures") or {}).get(game.get("headline") or "", {})
        value = m.get("value")
        out.append(f"{name} v{game.get('version')} {game.get('headline')}="
                   + ("–" if value is None else f"{value:.3f}") + f" (n={m.get('n', 0)})")
    return "; ".join(out)


def _list(runs: list[StoredRun], fmt: str, where: str) -> str:
    rows = [{"id": r.id, "name": r.name, "created": r.meta.get("created"), "commit": r.commit, "model": r.model,
             "games": ",".join(sorted(r.meta["games"])), "gate": (r.meta.get("gate") or {}).get("verdict") or "",
             "headlines": _headlines(r)} for r in runs]
    if fmt == "json":
        return json.dumps(rows, indent=1) + "\n"
    if fmt == "csv":
        return _csv(rows, list(rows[0]) if rows else ["id"])
    lines = ["| id | name | date | commit | model | gate | headlines |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['id']} | {r['name']} | {r['created']} | {r['commit']} | {r['model']} | {r['gate']} | "
              f"{r['headlines']} |" for r in rows]
    # the store named: run from another folder than pytest's rootdir, an empty list says where it looked
    return "\n".join(lines) + f"\n\n{len(rows)} stored run{'s' if len(rows) != 1 else ''} in {where}\n"


def _csv(rows: list[dict[str, Any]], columns: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _show(store: RunStore, ref: str, fmt: str) -> int:
    from pytest_gameeval.analysis.history.rows import report_rows

    run = store.find(ref)
    with tempfile.TemporaryDirectory(prefix="gameeval-history-") as scratch:
        report, _ = store.load(run, Path(scratch))
    rows = report_rows(report)
    if fmt == "json":
        sys.stdout.write(json.dumps({"id": run.id, "meta": run.meta, "games": rows}, indent=1) + "\n")
        return 0
    meta = run.meta
    lines = [f"run {run.id}" + (f" '{run.name}'" if run.name else ""), f"stored in {store.where(run.id)}",
             f"created {meta.get('created')}, saved {meta.get('saved')}, from {meta.get('source')}",
             f"git {meta.get('git')}", f"models {json.dumps(meta.get('models'))}",
             f"settings {json.dumps(meta.get('settings'))}",
             f"gate {(meta.get('gate') or {}).get('verdict') or 'not gated'}", ""]
    lines += [f"{r['game']} v{r['version']}: {r['headline']} {r['value']} [{r['ci_low']}, {r['ci_high']}] n={r['n']}; "
              f"legal_first_try {r['legal_first_try']} n={r['legal_first_try_n']}" for r in rows]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _trend_of(store: RunStore, runs: list[StoredRun], args: Any, purpose: str) -> tuple[list[Any], dict[str, Any]]:
    """The selected runs, loaded, and their trend (what compare and page both read)."""
    from pytest_gameeval.analysis.history.trend import load_runs, trend

    if not 0 < args.alpha < 1:
        raise GameEvalError("--alpha must be between 0 and 1")
    if not runs:
        raise GameEvalError(f"history store {store.label}: no stored run {purpose} (after the filters)")
    with tempfile.TemporaryDirectory(prefix="gameeval-history-") as scratch:
        loaded = load_runs(store, runs, Path(scratch))
    return loaded, trend(loaded, args.game or None, alpha=args.alpha, tolerance=args.tolerance)


def _compare(store: RunStore, runs: list[StoredRun], args: Any) -> int:
    from pytest_gameeval.analysis.history.trend import CSV_COLUMNS, markdown

    _, result = _trend_of(store, runs, args, "to compare")
    if args.plot:
        from pytest_gameeval.analysis.history.plot import plot_game

        for game in sorted({r["game"] for r in result["rows"]}):
            path = plot_game(result, game, Path(args.plot) / f"trend-{game}.png")
            print(f"plot: {path}", file=sys.stderr)
    if args.format == "json":
        text = json.dumps(result, indent=1) + "\n"
    elif args.format == "csv":
        text = _csv(result["rows"], list(CSV_COLUMNS))
        print(result["false_alarm"], file=sys.stderr)
    else:
        text = markdown(result) + "\n"
    return _emit(text, args.output)


def _page(store: RunStore, runs: list[StoredRun], args: Any) -> int:
    from pytest_gameeval.analysis.history.page import render_page

    loaded, result = _trend_of(store, runs, args, "for a page")
    out = Path(args.output)
    _emit(render_page(store, loaded, result, out.absolute().parent), str(out))
    games = len({r["game"] for r in result["rows"]})
    print(f"page: {out} ({len(runs)} run{'s' if len(runs) != 1 else ''}, {games} game{'s' if games != 1 else ''})",
          file=sys.stderr)
    return 0


def _add(store: RunStore, path: Path, name: str) -> int:
    from pytest_gameeval.analysis.history.meta import meta_of
    from pytest_gameeval.analysis.history.store import check_name
    from pytest_gameeval.analysis.rejudge.report import is_report_file
    from pytest_gameeval.analysis.report.file import check_records_pair, read_report

    check_name(name, "--name")
    if not path.exists():
        raise GameEvalError(f"history add: no such file or folder {path}")
    if is_report_file(path):
        report = read_report(path)  # checked as a baseline is, its records beside it required
        check_records_pair(report, path, required=True)
        run_id = store.save(path, meta_of(report, name=name, source=f"gameeval history add {path.name}"))
    else:
        run_id = _add_logs(store, path, name)
    print(f"saved: run {run_id}" + (f" (name '{name}')" if name else "") + f" in {store.label}")
    return 0


def _add_logs(store: RunStore, path: Path, name: str) -> str:
    """inspect logs as a report (analysis/history/from_logs.py), written and checked like the plugin's, then stored."""
    from pytest_gameeval.analysis.history.from_logs import report_from_logs
    from pytest_gameeval.analysis.history.meta import meta_of
    from pytest_gameeval.analysis.report.file import read_report, records_seal, write_jsonl_atomic
    from pytest_gameeval.analysis.report.schema import write_report

    report, records = report_from_logs(path)
    with tempfile.TemporaryDirectory(prefix="gameeval-history-add-") as scratch:
        report_path = Path(scratch) / "report.json"
        records_path = report_path.with_suffix(".records.jsonl")
        write_jsonl_atomic(records_path, records)
        report["run"].update(records_seal(records_path))
        write_report(report_path, report)
        checked = read_report(report_path)
        return store.save(report_path, meta_of(checked, name=name, source=f"inspect logs {path.name}"))
