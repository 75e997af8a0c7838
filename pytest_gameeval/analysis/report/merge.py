"""`gameeval report merge OUT REPORT...`: one report from the reports of the slices of one run
(`--gameeval-shard K/N` on N machines), equal to one machine's report of the same cases: the
same cases, seeds and scores, each game's entry rebuilt from the slices' records by the function
the plugin uses (analysis/report/game.py). Slices that overlap, are missing, or come from other
settings, models or game versions are refused with one line; nothing is written then.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pytest_gameeval.analysis.report.file import (
    game_version,
    read_report,
    records_beside,
    records_path_for,
    write_jsonl_atomic,
)
from pytest_gameeval.analysis.report.game import game_entry
from pytest_gameeval.analysis.report.schema import write_report
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.safe_io import refuse_output_among_inputs
from pytest_gameeval.games.registry import GAMES, get_spec

SAME_SETTINGS = ("games", "trials", "limit", "seed", "options", "cache")  # concurrency may differ by machine
SAME_GAME = ("options", "dataset", "version", "fingerprint", "cases_selected")


def _slices(paths: list[Path]) -> list[tuple[Path, dict[str, Any]]]:
    """The reports, in slice order; one line if one is no slice, a slice is given twice or missing."""
    reports = [(p, read_report(p)) for p in paths]
    for path, report in reports:
        if not isinstance(report.get("shard"), dict):
            raise GameEvalError(f"{path}: not a slice (written without --gameeval-shard K/N)")
    counts = {r["shard"]["count"] for _, r in reports}
    if len(counts) > 1:
        raise GameEvalError("the reports are slices of different splits: " + ", ".join(
            f"{p} is {r['shard']['index']}/{r['shard']['count']}" for p, r in reports))
    (count,) = counts
    seen: dict[int, Path] = {}
    for path, report in reports:
        index = report["shard"]["index"]
        if index in seen:
            raise GameEvalError(f"slices overlap: slice {index}/{count} is both {seen[index]} and {path}")
        seen[index] = path
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        raise GameEvalError(f"slice(s) {', '.join(missing)} missing: merge every slice 1/{count}..{count}/{count}")
    return sorted(reports, key=lambda pr: pr[1]["shard"]["index"])


def _check_same(reports: list[tuple[Path, dict[str, Any]]]) -> None:
    """Every slice from the same run: settings, models, package and each game's options, data and version."""
    first_path, first = reports[0]
    for path, report in reports[1:]:
        for key in SAME_SETTINGS:
            if report["settings"].get(key) != first["settings"].get(key):
                raise GameEvalError(f"{path} and {first_path} are slices of different runs: settings.{key} "
                                    f"{first['settings'].get(key)!r} vs {report['settings'].get(key)!r}")
        for key in ("models", "package"):
            if report[key] != first[key]:
                raise GameEvalError(
                    f"{path} and {first_path} are slices of different runs: {key} {first[key]} vs {report[key]}"
                )
    entries: dict[str, tuple[Path, dict[str, Any]]] = {}
    for path, report in reports:
        for name, game in report["games"].items():
            if name not in entries:
                entries[name] = (path, game)
                continue
            other_path, other = entries[name]
            for key in SAME_GAME:
                if key == "version" and game_version(game) != game_version(other):
                    raise GameEvalError(
                        f"{name}: slices of different game versions ({other_path}: {game_version(other)}, "
                        f"{path}: {game_version(game)}): play every slice with one version"
                    )
                if game.get(key) != other.get(key):
                    raise GameEvalError(f"{name}: {other_path} and {path} are slices of different runs ({key} differs)")


def _records(path: Path, report: dict[str, Any]) -> list[dict[str, Any]]:
    from pytest_gameeval.analysis.report.file import check_records_pair
    from pytest_gameeval.analysis.report.records import read_record_dicts

    name = (report.get("run") or {}).get("records")
    file = path.parent / str(name)
    if not name or not file.is_file():
        raise GameEvalError(
            f"{path}: its game records ({file.name if name else 'no records file named'}) are missing beside it: "
            "the merged metrics are computed from them"
        )
    return read_record_dicts(check_records_pair(report, path, required=True))


def _game(
    name: str, entry: dict[str, Any], cases: list[dict[str, Any]], records: list[dict[str, Any]]
) -> dict[str, Any]:
    if entry.get("data_error") or name not in GAMES:
        return entry
    spec = get_spec(name)
    if game_version(entry) != spec.version:
        raise GameEvalError(
            f"{name}: the slices were played with game version {game_version(entry)}, this pytest-gameeval "
            f"has version {spec.version}: merge with the pytest-gameeval that played them"
        )
    ids = [c["id"] for c in cases]
    if len(ids) != entry["cases_selected"]:
        raise GameEvalError(f"{name}: the slices hold {len(ids)} of its {entry['cases_selected']} selected cases: "
                            "a slice did not report all its cases (deselected with -k or -m?)")
    played = sorted(
        (GameRecord.from_dict(r) for r in records if r["game"] == name), key=lambda r: (r.instance_id, r.epoch)
    )
    return game_entry(
        spec, entry["options"], entry["dataset"], entry["cases_selected"], cases, played, entry["directions"]
    )


def merge_reports(paths: list[Path], out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The merged report (validated) and its records, not written. An output that is one of the
    slices (or their records) is refused before anything is read, and again once the slices name
    their records."""
    outputs = [out, records_path_for(out)]
    refuse_output_among_inputs(outputs, paths, "gameeval report merge: OUT")
    reports = _slices(paths)
    refuse_output_among_inputs(outputs, [records_beside(r, p) for p, r in reports], "gameeval report merge: OUT")
    _check_same(reports)
    cases: dict[str, dict[str, Any]] = {}
    owner: dict[str, Path] = {}
    records: dict[str, dict[str, Any]] = {}
    for path, report in reports:
        for case in report["cases"]:
            if case["id"] in cases:
                raise GameEvalError(f"slices overlap: case {case['id']} is in {owner[case['id']]} and {path}")
            cases[case["id"]], owner[case["id"]] = case, path
        for r in _records(path, report):
            records.setdefault(f"{r['game']}[{r['instance_id']}]#{r['epoch']}", r)
    ordered = sorted(cases.values(), key=lambda c: (c["game"], c["index"]))
    entries = {name: game for _, report in reports for name, game in report["games"].items()}
    games = {name: _game(name, entries[name], [c for c in ordered if c["game"] == name], list(records.values()))
             for name in sorted(entries)}
    first = reports[0][1]
    run = {
        **first["run"],
        "seconds": round(sum(r["run"].get("seconds") or 0 for _, r in reports), 2),
        "workers": sum(r["run"].get("workers") or 0 for _, r in reports),
        "records": records_path_for(out).name,
        "merged_from": [f"{p} (slice {r['shard']['index']}/{r['shard']['count']})" for p, r in reports],
    }
    merged = {
        **{k: v for k, v in first.items() if k != "shard"},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "run": run,
        "games": games,
        "cases": ordered,
        "gate": None,
    }
    from pytest_gameeval.analysis.cost.report import recost  # the run's cost over every slice (issue 46)
    from pytest_gameeval.analysis.report.file import validate

    recost(merged, [r for _, r in reports])
    return validate(merged, str(out)), [records[k] for k in sorted(records)]


def write_merged(paths: list[Path], out: Path) -> dict[str, Any]:
    from pytest_gameeval.analysis.report.file import records_seal

    report, records = merge_reports(paths, out)
    write_jsonl_atomic(records_path_for(out), records)
    report.setdefault("run", {}).update(records_seal(records_path_for(out)))
    write_report(out, report)
    return report
