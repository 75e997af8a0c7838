"""A report (or records, or inspect logs) re-judged by the installed games: `gameeval rejudge`.

The re-judged report is the old report with every game's entry made again by the installed game
(its version, fingerprint, metrics) from the re-judged records, every case re-scored (a game whose
replay diverged becomes an `error` case saying where and why), and per game a `rejudged` entry:
the version it was re-judged from, the moves, games and outcomes that changed, and whether it may
stand in for a rerun (`stands_in`, with the reason). The gate and `report diff` accept it as a
baseline across the version change only then (analysis/report/file.py: `rejudged_problems`).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from pytest_gameeval.analysis.rejudge.record import Rejudged, rejudge_record
from pytest_gameeval.analysis.report.file import check_records_pair, read_report, validate
from pytest_gameeval.analysis.report.game import game_entry
from pytest_gameeval.analysis.report.prompt_digest import prompt_digest
from pytest_gameeval.analysis.report.records import checked_record, max_records_bytes, read_records
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.registry import get_spec

RECORD_KEY = "gameeval_record"  # as inspect_ext/solver.py writes it into a sample's metadata
SHOWN_CHANGES = 50  # moves listed per game (all are counted)


def read_input(path: Path) -> tuple[dict[str, Any] | None, list[GameRecord]]:
    """(the report, if `path` is one, else None; the records): a report with its records beside
    it, a records file (*.jsonl), or inspect logs (a log file or a folder of them)."""
    if path.exists() and not (path.is_dir() or path.is_file()):  # a FIFO would be waited on for ever
        raise GameEvalError(f"rejudge: {path} is neither a file nor a folder")
    if is_report_file(path):
        report = read_report(path)
        return report, read_records(check_records_pair(report, path, required=True), max_records_bytes())
    if path.is_file() and path.suffix == ".jsonl":
        return None, read_records(path, max_records_bytes())
    if path.exists():
        return None, records_from_logs(path)
    raise GameEvalError(f"rejudge: no such file or folder {path}")


def is_report_file(path: Path) -> bool:
    """A .json file that says it is a gameeval report (read_report then checks it whole); anything
    else is taken for inspect logs (a .json inspect log starts with its "version"). Also
    `gameeval history add`'s test (analysis/history)."""
    if not (path.is_file() and path.suffix == ".json"):
        return False
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError as e:
        raise GameEvalError(f"{path}: cannot read ({e.strerror or e})") from None
    return b'"pytest-gameeval/report"' in head or not head.lstrip().startswith(b'{"version"')


def records_from_logs(path: Path) -> list[GameRecord]:
    from inspect_ai.log import list_eval_logs, read_eval_log  # lazy: inspect

    files = [info.name for info in list_eval_logs(str(path))] if path.is_dir() else [str(path)]
    records = []
    for name in files:
        try:
            log = read_eval_log(name)
        except Exception as e:  # inspect raises what its readers raise (zip, JSON, pydantic): one line here
            raise GameEvalError(f"{name}: neither a gameeval report, records (.jsonl) nor an inspect log "
                                f"({type(e).__name__})") from None
        records += log_records(log, name)
    if not records:
        raise GameEvalError(f"rejudge: no game records in {path}")
    return records


def log_records(log: Any, name: str) -> list[GameRecord]:
    """The game records of an inspect log's samples, each checked as a records file's line is (a
    log we did not write may hold any JSON): one error line naming the log and the sample."""
    return [checked_record(sample.metadata[RECORD_KEY], f"{name}: sample {sample.id!r} epoch {sample.epoch}")
            for sample in log.samples or [] if RECORD_KEY in (sample.metadata or {})]


def stands_in(name: str, old_game: dict[str, Any] | None, results: list[Rejudged]) -> tuple[bool, str]:
    """Whether re-judged games of `name` may stand in for a rerun, and why (or why not)."""
    if old_game is None:
        return False, "records without their report: no prompt digest to compare"
    was, now = old_game.get("prompts"), prompt_digest(get_spec(name), old_game["options"])
    if was is None:
        return False, "the report predates prompt digests, so whether the models saw the same prompts is unknown"
    if was != now:
        return False, (f"the prompts changed (digest {str(was)[:12]} -> {str(now)[:12]}): the models answered "
                       "other prompts")
    line = next((r.host_line for r in results if r.host_line), None)
    if line:
        return False, f"a host line changed: {line}"
    return True, "the prompts are unchanged (same digest, every host line of the replays as recorded)"


def game_rejudged(name: str, old_game: dict[str, Any] | None, results: list[Rejudged]) -> dict[str, Any]:
    """The per-game summary: versions, what changed, whether it stands in for a rerun."""
    ok, why = stands_in(name, old_game, results)
    changes = [{"case": r.old.instance_id, "epoch": r.old.epoch, **c} for r in results for c in r.changes]
    return {
        "from_version": old_game.get("version") if old_game else ", ".join(sorted({str(r.old.game_version)
                                                                                    for r in results})),
        "to_version": get_spec(name).version,
        "games": len(results),
        "replayed": sum(r.new is not None for r in results),
        "changed_moves": len(changes),
        "changes": changes[:SHOWN_CHANGES],
        "diverged": [{"case": r.old.instance_id, "epoch": r.old.epoch, **(r.diverged or {}),
                      **({"error": r.error} if r.error else {})} for r in results if r.new is None],
        "outcomes_changed": [{"case": r.old.instance_id, "epoch": r.old.epoch, "was": r.old.label,
                              "now": r.new.label} for r in results if r.outcome_changed and r.new],
        "stands_in": ok,
        "why": why,
    }


def _rescored(case: dict[str, Any], result: Rejudged | None) -> dict[str, Any]:
    if result is None or case.get("status") != "played":
        return case
    if result.new is None:
        where = result.error or json.dumps(result.diverged)
        out = {k: v for k, v in case.items() if k not in ("scores", "outcome", "winner")}
        return {**out, "status": "error", "error": f"rejudge: the replay diverged: {where}"}
    spec, new = get_spec(result.old.game), result.new
    return {**case, "outcome": new.label, "winner": new.outcome.get("winner"), "scores": spec.score(new),
            "failures": new.failures}


def rejudge_report(report: dict[str, Any], records: list[GameRecord], source: str) -> tuple[dict[str, Any],
                                                                                           list[GameRecord]]:
    """The re-judged report (validated) and its re-judged records."""
    results = {(r.game, r.instance_id, r.epoch): rejudge_record(r) for r in records}
    cases = [_rescored(c, results.get((c["game"], c.get("row"), c.get("trial", 0)))) for c in report["cases"]]
    games = {}
    for name, old in report["games"].items():
        mine = [r for (game, _, _), r in sorted(results.items()) if game == name]
        played = [r.new for r in mine if r.new is not None]
        spec = get_spec(name)
        entry = game_entry(spec, old["options"], old["dataset"], old.get("cases_selected", len(mine)),
                           [c for c in cases if c["game"] == name], played, old.get("directions", {}))
        games[name] = {**entry, "rejudged": game_rejudged(name, old, mine)}
    new_report = {**report, "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "games": games,
                  "cases": cases, "gate": None, "rejudged_from": source}
    return validate(new_report, "re-judged report"), [r.new for r in results.values() if r.new is not None]


def rejudge_records(records: list[GameRecord]) -> dict[str, Any]:
    """Records without a report: per game what changed (no report to stand in for a rerun)."""
    by_game: dict[str, list[Rejudged]] = {}
    for record in records:
        by_game.setdefault(record.game, []).append(rejudge_record(record))
    out = {}
    for name, results in sorted(by_game.items()):
        played = [r.new for r in results if r.new is not None]
        out[name] = {**game_rejudged(name, None, results),
                     "metrics": get_spec(name).summarize(played) if played else {}}
    return {"games": out, "records": [r.new for rs in by_game.values() for r in rs if r.new is not None]}


def default_out(path: Path) -> Path:
    stem = path.stem if path.is_file() else os.path.basename(os.path.normpath(path))
    return path.parent / f"{stem}.rejudged.json"
