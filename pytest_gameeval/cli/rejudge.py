"""`gameeval rejudge RECORDS|LOG|REPORT`: recorded games replayed through the installed version of
each game, with no model call (analysis/rejudge/record.py): which moves are judged differently, which games
diverge and where, the re-judged metrics; for a report, a re-judged report that the gate and
`report diff` take as a baseline where the prompts are unchanged."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_gameeval.analysis.rejudge.report import default_out, read_input, rejudge_records, rejudge_report
from pytest_gameeval.analysis.report.file import (
    clean,
    records_beside,
    records_path_for,
    records_seal,
    write_jsonl_atomic,
)
from pytest_gameeval.analysis.report.schema import write_report
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.safe_io import refuse_output_among_inputs
from pytest_gameeval.published.fidelity import is_published, measure


def parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="gameeval rejudge",
        description="Replay recorded games through the installed version of each game's rules, move checks and "
                    "metrics, with no model call: the moves judged differently, the games that diverge and where, "
                    "and the re-judged metrics. Given a report (its records beside it), writes a re-judged report "
                    "that the gate and `report diff` accept as a baseline where the prompts are unchanged.",
    )
    p.add_argument("source", help="a report (REPORT.json with REPORT.records.jsonl beside it), a records file "
                                  "(*.jsonl), inspect logs (a .eval file or a folder of them), or a folder of the "
                                  "papers' published games (GameEval's spyfall/random, SpyGame's benchmark)")
    p.add_argument("--out", type=Path, default=None,
                   help="the re-judged report to write (default: SOURCE.rejudged.json; its records beside it)")
    p.add_argument("--json", action="store_true", help="print what changed as JSON instead of lines")
    return p


def summary_lines(games: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for name, g in sorted(games.items()):
        lines.append(f"{name}: version {g['from_version']} -> {g['to_version']}: {g['replayed']} of {g['games']} games "
                     f"re-judged to their end, {g['changed_moves']} moves judged differently, "
                     f"{len(g['diverged'])} diverged, {len(g['outcomes_changed'])} outcomes changed")
        lines += [f"  move: {c['case']}#{c['epoch']} {c['seat']} round {c['round']} {c['action']} "
                  f"(attempt {c['attempt']}): {c['was']} -> {c['now']}" for c in g["changes"]]
        lines += [f"  diverged: {d['case']}#{d['epoch']}: "
                  + (d.get("error") or f"{d.get('seat')} ({d.get('action')}): {d.get('why')} [{d.get('where')}]")
                  for d in g["diverged"]]
        verdict = "stands in for a rerun" if g["stands_in"] else "cannot stand in for a rerun"
        lines.append(f"  as a baseline: {verdict}: {g['why']}")
    return lines


def published_lines(measured: dict[str, Any]) -> list[str]:
    """One line per paper and protocol: the published games re-judged by the installed rules."""
    lines = []
    for paper, m in measured.items():
        for protocol, result in m["protocols"].items():
            rejected = sum(r["replies"] for r in result["rejections"]["by_check"])
            accepted = sum(r["replies"] for r in result["rejections"]["paper_accepted"])
            o = result["outcomes"]
            lines.append(f"{m['source']}, protocol={protocol}: {m['replies']} replies of {m['games']} games, "
                         f"{rejected} rejected ({accepted} of them moves the paper's harness accepted); "
                         f"{o['same_winner_and_round']} of {o['replayed_to_end']} games replayed to their end get "
                         f"the published winner and round")
    return lines


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    source = Path(args.source)
    if source.is_dir() and is_published(source):  # the papers' own games: judged, nothing written
        measured = measure(source)
        print(json.dumps(clean(measured), indent=1) if args.json else "\n".join(published_lines(measured)))
        return 0
    out = args.out or default_out(source)
    # a re-judged report written over its source (or its records) would lose them
    if source.suffix == ".json" and source.exists():
        refuse_output_among_inputs([out, records_path_for(out)], [source], "gameeval rejudge: --out")
    report, records = read_input(source)
    if report is not None:
        refuse_output_among_inputs([out, records_path_for(out)], [records_beside(report, source)],
                                   "gameeval rejudge: --out")
    if report is None:
        result = rejudge_records(records)
        games, new_records = result["games"], result["records"]
        out = None
    else:
        new_report, new_records = rejudge_report(report, records, str(source))
        games = {name: g["rejudged"] for name, g in new_report["games"].items()}
        new_report["run"] = {**new_report.get("run", {}), "records": records_path_for(out).name}
        write_jsonl_atomic(records_path_for(out), [r.to_dict() for r in new_records])
        new_report["run"].update(records_seal(records_path_for(out)))
        write_report(out, new_report)
    if args.json:
        print(json.dumps(clean({"games": games, "report": str(out) if out else None}), indent=1))
    else:
        print("\n".join(summary_lines(games)))
        if out:
            print(f"re-judged report: {out} (records: {records_path_for(out).name})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
