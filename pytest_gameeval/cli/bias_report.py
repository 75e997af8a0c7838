"""`gameeval bias-report`: SpyGame (and SpyFall) vote bias by name, speaking position and option
position over game records or inspect logs, as JSON and a chart. The statistics and the chart are
the game's own (games/spygame/metrics.py: bias_report, bias_by_model; games/spygame/bias_plot.py);
this reads the records and writes the outputs."""

from __future__ import annotations

import json
import os
import sys

from pytest_gameeval.analysis.report.records import read_records
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.safe_io import write_text
from pytest_gameeval.games.spygame.bias_plot import write_bias_plot
from pytest_gameeval.games.spygame.metrics import ALPHA, bias_by_model

VOTING_GAMES = ("spygame", "spyfall")


def load_records(paths: list[str]) -> list[GameRecord]:
    """Game records from JSON-lines record files or inspect logs (files or directories)."""
    records: list[GameRecord] = []
    for path in paths:
        if not os.path.exists(path):
            raise GameEvalError(f"{path}: no such file or directory")
        if path.endswith(".jsonl"):
            records += read_records(path)  # a bad line is one error naming FILE:LINE (analysis/report/records.py)
            continue
        from inspect_ai.log import list_eval_logs, read_eval_log  # loaded only when a log is given

        logs = [info.name for info in list_eval_logs(path)] if os.path.isdir(path) else [path]
        for log_path in logs:
            try:
                log = read_eval_log(log_path)
            except Exception as e:  # noqa: BLE001 - any unreadable log is one clear line
                raise GameEvalError(f"{log_path}: not a readable inspect log ({type(e).__name__})") from None
            for sample in log.samples or []:
                data = (sample.metadata or {}).get("gameeval_record")
                if data:
                    records.append(GameRecord.from_dict(json.loads(json.dumps(data))))
    return records


def main(argv: list[str]) -> int:
    parser = CommandParser(
        prog="gameeval bias-report",
        description="Vote bias by name, speaking position and option position, chi-square against uniform "
        "(SpyGame probe-mode games by default).",
    )
    parser.add_argument(
        "paths", nargs="+", help="inspect logs (.eval/.json or a log directory) or game-record .jsonl files"
    )
    parser.add_argument(
        "--any-game", action="store_true", help="also use normal (not content-free) SpyGame and SpyFall games"
    )
    parser.add_argument("--alpha", type=float, default=ALPHA, help="significance level (default 0.05)")
    parser.add_argument("--out", help="write the JSON report here (atomically) instead of stdout")
    parser.add_argument("--plot", help="also draw the vote shares against uniform, with 95%% intervals, as a PNG here")
    args = parser.parse_args(argv)
    records = [r for r in load_records(args.paths) if r.game in VOTING_GAMES]
    if not args.any_game:
        records = [r for r in records if r.outcome["details"].get("probe")]
    if not records:
        what = "SpyGame/SpyFall" if args.any_game else "SpyGame probe-mode (-T probe=true)"
        raise GameEvalError(f"no {what} game records in {', '.join(args.paths)}")
    report = {"games": len(records), **bias_by_model(records, args.alpha)}
    text = json.dumps(report, indent=2)
    if args.out:
        write_text(args.out, text + "\n")
    else:
        sys.stdout.write(text + "\n")
    if args.plot:
        write_bias_plot(report, args.plot)
    for factor, entry in report["all_voters"]["factors"].items():
        verdict = (
            "n/a"
            if entry["p_value"] is None
            else f"chi2={entry['chi2']:.2f} dof={entry['dof']} p={entry['p_value']:.3g} "
                 f"{'BIASED' if entry['biased'] else 'no bias detected'}"
        )
        print(f"{factor}: {verdict}", file=sys.stderr)
    return 0
