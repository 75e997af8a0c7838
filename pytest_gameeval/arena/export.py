"""`gameeval arena export --db URL OUT.eval [--report OUT.json] [--model M]`: the finished arena
sessions as an inspect log (one per game: OUT.eval, or OUT-GAME.eval when several games were
played) and a report JSON in the pytest plugin's schema, so `inspect view`, inspect's scorers
and `gameeval report diff` read human games like model-only runs.

Each session is one sample: its record in the metadata (as the solver stores it), the game as the
evaluated seat saw it in the Messages tab, scored by the game's own scorer (inspect's `score`).
Sample ids are a digest of the session id, never the id itself (the id opens the session).
People's text is untrusted: the log asks inspect view to show its content as plain text
(ViewerConfig(trust_content=False)), so a person's markdown, links or HTML never render.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

from pytest_gameeval.analysis.cost.prices import add_usage
from pytest_gameeval.arena.store import FINISHED, Session, Store
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.seating import played_as
from pytest_gameeval.engine.spec import GameSpec
from pytest_gameeval.engine.views import render
from pytest_gameeval.games.registry import get_spec

RULE_OPTIONS_EXCLUDED = ("seed",)  # each session draws its own seed (kept in its record)


def sample_id(session: Session) -> str:
    return hashlib.sha256(session.id.encode()).hexdigest()[:16]


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat()


def _options(sessions: list[Session]) -> dict[str, Any]:
    return {k: v for k, v in sessions[0].options.as_dict().items() if k not in RULE_OPTIONS_EXCLUDED}


def played_version(spec: GameSpec, sessions: list[Session]) -> tuple[str, str | None]:
    """(version, fingerprint) of the game the sessions were played with, from their records
    ("unknown version" for sessions from before versions); sessions of several versions measured
    different games: one error line."""
    from pytest_gameeval.analysis.report.file import UNKNOWN_VERSION

    seen = {
        ((s.record or {}).get("game_version") or UNKNOWN_VERSION, (s.record or {}).get("game_fingerprint"))
        for s in sessions
    }
    if len({v for v, _ in seen}) > 1:
        raise GameEvalError(
            f"{spec.name}: the finished sessions were played with game versions "
            f"{', '.join(sorted({v for v, _ in seen}))}, which do not compare; export from a store of one version"
        )
    return next(iter(seen))


def eval_log(spec: GameSpec, model: str, sessions: list[Session]) -> Any:
    """The scored EvalLog of one game's sessions against one model (not written)."""
    from inspect_ai import score
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, EvalStats
    from inspect_ai.model import get_model
    from inspect_ai.viewer import ViewerConfig

    from pytest_gameeval.arena.live import case_row
    from pytest_gameeval.inspect_ext.scorer import game_scorer, mean_defined
    from pytest_gameeval.inspect_ext.solver import RECORD_KEY
    from pytest_gameeval.players.model import to_inspect

    samples = []
    for s in sessions:
        record = GameRecord.from_dict(s.record or {})
        row = case_row(spec, s)
        game, _ = spec.setup(row, 0, s.options)
        seat = game.evaluated_seat
        view = render(s.options.style, game.system_prompt(seat), record.events, seat)
        samples.append(
            EvalSample(
                id=sample_id(s),
                epoch=1,
                input=f"{spec.title}: {row.id}",
                target="",
                messages=to_inspect(view),
                metadata={
                    "row_id": row.id,
                    "row": row.data,
                    RECORD_KEY: record.to_dict(),
                    "arena": {
                        "player": s.player or "people",
                        "started": _iso(s.created_at),
                        "finished": _iso(s.finished_at or s.updated_at),
                        "model_errors": s.model_errors,
                    },
                },
            )
        )
    ids = [str(x.id) for x in samples]
    version, fingerprint = played_version(spec, sessions)
    log = EvalLog(
        version=2, status="success",
        eval=EvalSpec(
            created=_iso(min(s.created_at for s in sessions)), task=spec.name, task_version=version,
            dataset=EvalDataset(name=f"{spec.name} (gameeval arena)", samples=len(ids), sample_ids=ids),
            model=model, model_roles=None, config=EvalConfig(), viewer=ViewerConfig(trust_content=False),
            metadata={"gameeval_game": spec.name, "gameeval_options": _options(sessions), "gameeval_arena": True,
                      "gameeval_version": version, "gameeval_fingerprint": fingerprint,
                      "gameeval_user_seat": "people in a browser (gameeval arena)"},
        ),
        stats=EvalStats(started_at=_iso(min(s.created_at for s in sessions)),
                        completed_at=_iso(max(s.finished_at or s.updated_at for s in sessions))),
        samples=samples,
    )
    # the game's scorer reads each sample's record and calls no model: a keyless stand-in model;
    # its reducer, as the task's: inspect's default mean would read an undefined (null) value as 0
    return score(log, game_scorer(spec), epochs_reducer=mean_defined(), model=get_model("mockllm/model"),
                 action="overwrite", display="none", copy=False)


def _seat_usage(records: list[GameRecord]) -> dict[str, dict[str, Any]]:
    """Per seat: its role, the models that played it and their summed tokens and calls."""
    usage: dict[str, dict[str, Any]] = {}
    for r in records:
        for seat in r.seats:
            agg = usage.setdefault(
                seat["name"], {"role": seat["role"], "models": []}
            )
            if seat["model"] not in agg["models"]:
                agg["models"].append(seat["model"])
            add_usage(agg, r.usage.get(seat["name"], {}))
    return usage


def _game_entry(spec: GameSpec, sessions: list[Session], records: list[GameRecord]) -> dict[str, Any]:
    from pytest_gameeval.analysis.report.file import dataset_digest

    failures: dict[str, int] = defaultdict(int)
    for r in records:
        for kind, n in r.failure_totals().items():
            failures[kind] += n
    decodings = {r.structured for r in records}
    version, fingerprint = played_version(spec, sessions)
    higher = getattr(spec, "higher_is_better", None) or {}
    n = len(sessions)
    return {
        "title": spec.title, "version": version, "fingerprint": fingerprint, "options": _options(sessions),
        "dataset": dataset_digest(spec, sessions[0].options),
        "cases_selected": n, "cases_reported": n, "cases_played": n, "cases_error": 0,
        "metrics": spec.summarize(records), "rate_keys": list(spec.outcome_labels), "mean_keys": list(spec.mean_keys),
        "directions": {k: ("higher" if v else "lower") for k, v in higher.items()},
        "usage": _seat_usage(records), "failures": dict(failures),
        "notes": sorted({note for r in records for note in r.notes}),
        "structured": decodings.pop() if len(decodings) == 1 else "mixed",
    }


def _case_entry(name: str, spec: GameSpec, index: int, s: Session, r: GameRecord) -> dict[str, Any]:
    from pytest_gameeval.inspect_ext.scorer import score_record

    seats = {x["name"]: {"role": x["role"], "model": x["model"], "structured": bool(x.get("structured")),
                         "played_as": played_as(x)} for x in r.seats}  # as the pytest plugin's report says it
    return {
        "id": f"{name}[{sample_id(s)}]", "game": name, "case": r.instance_id, "row": r.instance_id,
        "trial": 0, "index": index, "status": "played",
        "seconds": round((s.finished_at or s.updated_at) - s.created_at, 3),
        "seed": r.seed, "outcome": r.label, "winner": r.outcome.get("winner"), "scores": score_record(spec, r),
        "failures": r.failures, "usage": r.usage, "structured": r.structured, "seats": seats,
    }


def report(sessions_by_game: dict[str, list[Session]], model: str) -> dict[str, Any]:
    """The report JSON as the pytest plugin writes it (analysis/report/file.py validates it)."""
    from pytest_gameeval import __version__
    from pytest_gameeval.analysis.report.file import SCHEMA, SCHEMA_VERSION, validate

    games: dict[str, Any] = {}
    cases: list[dict[str, Any]] = []
    for name, sessions in sorted(sessions_by_game.items()):
        spec = get_spec(name)
        records = [GameRecord.from_dict(s.record or {}) for s in sessions]
        games[name] = _game_entry(spec, sessions, records)
        cases += [_case_entry(name, spec, i, s, r) for i, (s, r) in enumerate(zip(sessions, records))]
    settings = {"games": sorted(games), "trials": 1, "limit": None, "seed": None, "options": [], "concurrency": None,
                "cache": False, "source": "gameeval arena"}
    data = {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "package": {"name": "pytest-gameeval", "version": __version__}, "git": None,
        "models": {"evaluated": model, "roles": {"user": "people (gameeval arena)"}, "model_args": {}},
        "settings": settings,
        "run": {"pytest_args": [], "workers": 0, "seconds": 0, "python": sys.version.split()[0], "records": None},
        "games": games, "cases": cases, "gate": None,
    }
    return validate(data, "arena report")


def finished_by_game(store: Store, model: str | None) -> tuple[str, dict[str, list[Session]]]:
    sessions = store.sessions(FINISHED)
    models = sorted({s.model for s in sessions})
    if model is None and len(models) > 1:
        raise GameEvalError(f"the store holds games against {', '.join(models)}: choose one with --model")
    model = model or (models[0] if models else None)
    chosen = [s for s in sessions if s.model == model]
    if not chosen:
        raise GameEvalError("no finished game in the store" + (f" against {model}" if model else ""))
    by_game: dict[str, list[Session]] = defaultdict(list)
    for s in chosen:
        by_game[s.game].append(s)
    return model, dict(by_game)
