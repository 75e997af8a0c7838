"""`gameeval history add LOG_OR_DIR`: inspect logs of our tasks as a report, so `inspect eval` runs
and pytest runs share one history. Each successful log of a gameeval task gives its game's cases
(one per sample with a game record, ids and seeds as the plugin makes them, so a log's cases pair
with a plugin run's of the same rows and seeds) and its entry (analysis/report/game.game_entry, the
plugin's own function). Logs of a game version other than the installed one are refused: their
games would be compared under the installed version's name."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from pytest_gameeval.analysis.rejudge.report import log_records
from pytest_gameeval.analysis.report.file import SCHEMA, SCHEMA_VERSION, dataset_digest, validate
from pytest_gameeval.analysis.report.game import game_entry
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.seating import played_as


def _logs(path: Path) -> list[Any]:
    from inspect_ai.log import list_eval_logs, read_eval_log

    names = [info.name for info in list_eval_logs(str(path))] if path.is_dir() else [str(path)]
    logs = []
    for name in names:
        try:
            logs.append(read_eval_log(name))
        except Exception as e:  # inspect raises what its readers raise (zip, JSON, pydantic): one line here
            raise GameEvalError(f"{name}: not an inspect log ({type(e).__name__})") from None
    return logs


def _case(spec: Any, options: Any, record: GameRecord, index: int) -> dict[str, Any]:
    case_id = f"{record.instance_id}-t{record.epoch}"
    rows = {r.id: r for r in spec.rows(options)}
    if record.instance_id in rows:
        case_id = spec.case_id(rows[record.instance_id], options, record.epoch)
    return {"id": f"{spec.name}[{case_id}]", "game": spec.name, "case": case_id, "row": record.instance_id,
            "trial": record.epoch, "index": index, "status": "played", "seconds": 0.0, "seed": record.seed,
            "outcome": record.label, "winner": record.outcome.get("winner"), "scores": spec.score(record),
            "failures": record.failures, "usage": record.usage, "structured": record.structured,
            "seats": {s["name"]: {"role": s["role"], "model": s["model"], "structured": bool(s.get("structured")),
                                  "played_as": played_as(s)} for s in record.seats}}


def report_from_logs(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the report, its records) from the gameeval logs at `path`; one error line when there are none."""
    from pytest_gameeval import __version__
    from pytest_gameeval.games.registry import GAMES, get_spec

    games: dict[str, Any] = {}
    cases: list[dict[str, Any]] = []
    records: list[dict[str, Any]] = []
    models: set[str] = set()
    for log in _logs(path):
        meta = log.eval.metadata or {}
        game = meta.get("gameeval_game")
        if game not in GAMES or log.status != "success":
            continue
        spec = get_spec(game)
        if str(meta.get("gameeval_version")) != str(spec.version):
            raise GameEvalError(f"{log.location}: {game} version {meta.get('gameeval_version')} was played; this "
                                f"pytest-gameeval has version {spec.version}: not stored (gameeval rejudge first)")
        if game in games:
            raise GameEvalError(f"{log.location}: a second log of {game} in {path}: add one run at a time")
        options = spec.parse_options({k: v for k, v in (meta.get("gameeval_options") or {}).items() if v is not None})
        played = log_records(log, str(log.location))
        played.sort(key=lambda r: (r.instance_id, r.epoch))
        mine = [_case(spec, options, r, i) for i, r in enumerate(played)]
        higher = getattr(spec, "higher_is_better", None) or {}
        games[game] = game_entry(spec, options.as_dict(), dataset_digest(spec, options), len(log.samples or []),
                                 mine, played, {k: ("higher" if v else "lower") for k, v in higher.items()})
        cases += mine
        records += [r.to_dict() for r in played]
        models.add(str(log.eval.model))
    if not games:
        raise GameEvalError(f"{path}: no successful inspect log of a gameeval task")
    if len(models) > 1:
        raise GameEvalError(f"{path}: logs of {len(models)} models ({', '.join(sorted(models))}): add one run at a "
                            "time")
    report = {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "package": {"name": "pytest-gameeval", "version": __version__}, "git": None,
        "models": {"evaluated": models.pop(), "roles": {}, "model_args": {}},
        "settings": {"games": sorted(games), "trials": None, "limit": None, "seed": None, "options": [],
                     "concurrency": None, "cache": False, "source": f"inspect logs {path}"},
        "run": {"pytest_args": [], "workers": 0, "seconds": 0, "python": sys.version.split()[0],
                "records": "report.records.jsonl"},
        "games": games, "cases": cases, "gate": None,
    }
    return validate(report, f"{path} as a report"), records
