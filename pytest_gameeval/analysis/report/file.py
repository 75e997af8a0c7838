"""The report JSON: schema, atomic writing, validated reading, comparability and the diff.

A report holds, per game, the game's own summary (`spec.summarize`, every metric with its
interval) and, per case, the game's own per-game numbers (`spec.score`). The diff and the gate
compare those per-case numbers, so a report can be compared without the game's code.
It never holds API keys or environment variables: pytest arguments are stored with anything
that looks like a secret redacted, and model arguments likewise.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import subprocess
from pathlib import Path
from typing import Any, Iterable

import jsonlines

from pytest_gameeval.analysis.verdicts.game import MISSING, WORSE, decide, fails, no_played_game
from pytest_gameeval.analysis.verdicts.judge import judge
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.options import GameOptions
from pytest_gameeval.engine.safe_io import TEXT, atomic_write, beside, chunks, open_regular
from pytest_gameeval.engine.spec import FIRST_TRY, GameSpec
from pytest_gameeval.engine.untrusted_json import read_json_file
from pytest_gameeval.fresh.resolve import fresh_origin

SCHEMA = "pytest-gameeval/report"
SCHEMA_VERSION = 1

# options that choose *which* cases are played, not *how* a game is played: runs that differ
# only in these are still comparable (the dataset digest covers the data itself)
SAMPLING_OPTIONS = ("seed", "limit", "shuffle")
# options compared by their effect instead: `structured=auto` means on or off depending on the model,
# so reports compare the decoding their games actually used (the game's "structured" entry)
EFFECT_OPTIONS = ("structured",)

_SECRET_NAME = re.compile(r"(api[_-]?key|token|secret|password|passwd|auth|credential)", re.I)
_SECRET_VALUE = re.compile(r"\b(sk-[A-Za-z0-9_-]{8,}|[A-Za-z0-9_-]*key-[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{12,})")


# -- JSON helpers --------------------------------------------------------------------------


def clean(value: Any) -> Any:
    """JSON-safe: NaN/inf become None (strict JSON has no NaN), tuples become lists."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write to a temporary file beside `path`, then rename over it: never a half-written file."""
    def dump(f: Any) -> None:
        json.dump(clean(data), f, indent=1, sort_keys=False, allow_nan=False)
        f.write("\n")

    write_atomic(path, dump)


def write_jsonl_atomic(path: str | Path, rows: Iterable[dict[str, Any]]) -> None:
    def dump(f: Any) -> None:
        with jsonlines.Writer(f, dumps=lambda o: json.dumps(clean(o), allow_nan=False)) as writer:
            writer.write_all(rows)

    write_atomic(path, dump, "records")


def write_atomic(path: str | Path, dump: Any, what: str = "report") -> None:
    """dump(f) into a text file written whole or not at all (the reports, the plugin's markdown
    summary); an unwritable path is one error line."""
    def write(tmp: str) -> None:
        with open(tmp, "w", **TEXT) as f:  # a lone surrogate is written as its escape, never a crash
            dump(f)

    atomic_write(path, write, what)  # an unwritable path (a full disk too) is one line, not a traceback


# -- what a report says about a game's data -------------------------------------------------


def dataset_digest(spec: GameSpec, options: GameOptions) -> dict[str, Any]:
    """A digest of the game's rows (before sampling): equal digests = the same data."""
    every_row = {name: type(options).declared()[name].default for name in SAMPLING_OPTIONS}
    rows = spec.rows(dataclasses.replace(options, **every_row))
    blob = json.dumps([[r.id, r.data] for r in rows], sort_keys=True, default=str).encode()
    info: dict[str, Any] = {"sha256": hashlib.sha256(blob).hexdigest(), "rows": len(rows)}
    version = getattr(spec, "dataset_version", None)
    if version is not None:
        info["version"] = version
    origin = fresh_origin(getattr(options, "data", None))
    if origin is not None:  # a fresh case set: its seed and the lexicon it was drawn from (docs/fresh-cases.md)
        info["fresh"] = origin
    return info


# -- what a report may say about the run -------------------------------------------------------


def redact_args(args: Iterable[str]) -> list[str]:
    """pytest arguments with values of secret-looking names and key-looking strings removed."""
    out: list[str] = []
    hide_next = False
    for arg in map(str, args):
        if hide_next:
            out.append("<redacted>")
            hide_next = False
            continue
        name, eq, _ = arg.partition("=")
        if _SECRET_NAME.search(name):
            if eq:
                out.append(f"{name}=<redacted>")
            else:
                out.append(arg)
                hide_next = arg.startswith("-")
            continue
        out.append(_SECRET_VALUE.sub("<redacted>", arg))
    return out


def redact_mapping(values: dict[str, Any]) -> dict[str, Any]:
    return {k: ("<redacted>" if _SECRET_NAME.search(k) else v) for k, v in values.items()}


def git_info(root: str | Path) -> dict[str, Any] | None:
    """The commit of the checkout (and whether it had local changes), when git is there."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if commit.returncode != 0:
            return None
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                capture_output=True, text=True, timeout=10)
        return {
            "commit": commit.stdout.strip(),
            "dirty": bool(status.stdout.strip()) if status.returncode == 0 else None,
        }
    except (OSError, subprocess.SubprocessError):
        return None


# -- per-case numbers ---------------------------------------------------------------------------


def cases_of(report: dict[str, Any], game: str) -> list[dict[str, Any]]:
    return [c for c in report["cases"] if c["game"] == game]


# -- validation -----------------------------------------------------------------------------------

_TOP = {"schema": str, "schema_version": int, "package": dict, "models": dict, "settings": dict,
        "games": dict, "cases": list}
_GAME = {"options": dict, "dataset": dict, "metrics": dict, "rate_keys": list, "mean_keys": list,
         "directions": dict, "usage": dict}
_CASE = {"id": str, "game": str, "case": str, "status": str}


def validate(report: Any, where: str = "report") -> dict[str, Any]:
    """Check a report's shape; one GameEvalError line naming the first problem."""
    if not isinstance(report, dict):
        raise GameEvalError(f"{where}: not a gameeval report (expected a JSON object)")
    if report.get("schema") != SCHEMA:
        raise GameEvalError(f"{where}: not a gameeval report (schema is {report.get('schema')!r}, expected {SCHEMA!r})")
    if report.get("schema_version") != SCHEMA_VERSION:
        raise GameEvalError(f"{where}: report schema version {report.get('schema_version')!r} is not supported "
                            f"(this pytest-gameeval reads version {SCHEMA_VERSION})")
    for key, typ in _TOP.items():
        if not isinstance(report.get(key), typ):
            raise GameEvalError(f"{where}: report field {key!r} is missing or not a {typ.__name__}")
    for name, game in report["games"].items():
        if not isinstance(game, dict):
            raise GameEvalError(f"{where}: game {name!r} is not an object")
        for key, typ in _GAME.items():
            if not isinstance(game.get(key), typ):
                raise GameEvalError(f"{where}: game {name!r} field {key!r} is missing or not a {typ.__name__}")
    for i, case in enumerate(report["cases"]):
        if not isinstance(case, dict):
            raise GameEvalError(f"{where}: case #{i} is not an object")
        for key, typ in _CASE.items():
            if not isinstance(case.get(key), typ):
                raise GameEvalError(f"{where}: case #{i} field {key!r} is missing or not a {typ.__name__}")
        if case["game"] not in report["games"]:
            raise GameEvalError(
                f"{where}: case {case['id']!r} names game {case['game']!r}, which the report does not describe"
            )
        if case["status"] == "played" and not isinstance(case.get("scores"), dict):
            raise GameEvalError(f"{where}: played case {case['id']!r} has no scores")
    return report


def _bad_number(value: Any, unit: bool) -> str | None:
    """Why a metric value cannot be believed, or None. None (no value) is allowed."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"not a number ({type(value).__name__})"
    if not math.isfinite(value):
        return "not finite"
    if unit and not 0.0 <= value <= 1.0:
        return f"{value!r} is outside [0, 1]"
    return None


def _unit_keys(game: dict[str, Any]) -> set[str]:
    """Scores whose declared range is [0, 1]: the rates, the headline, the turn-level measure."""
    keys = {FIRST_TRY, *map(str, game.get("rate_keys") or [])}
    if isinstance(game.get("headline"), str):
        keys.add(game["headline"])
    return keys


# a seat's usage entry: counts, beside the seat's role and models (said, not counted)
USAGE_LABELS = ("role", "models", "model")


def bad_usage(usage: Any) -> str | None:
    """Why a usage entry ({seat: {counter: n}}) cannot be believed, or None: every counter a finite
    number >= 0 (`"calls": "many"` would be added to other seats' counts further on)."""
    if usage is None:
        return None
    if not isinstance(usage, dict):
        return f"usage is not an object ({type(usage).__name__})"
    for seat, counts in usage.items():
        if not isinstance(counts, dict):
            return f"usage of {seat!r} is not an object ({type(counts).__name__})"
        for key, value in counts.items():
            if key in USAGE_LABELS:
                continue
            why = _bad_number(value, False) if value is not None else "null"
            if why or value < 0:
                return f"usage {seat}.{key} is {value!r}: {why or 'negative'}, not a count"
    return None


def validate_values(report: dict[str, Any], where: str) -> None:
    """Every per-case score (what the gate, the diff and the merge compute from) and every game
    metric's value and interval: a finite number in its range, or null. One line names the first
    bad one: a corrupt baseline must never pass a gate by overflowing its statistics."""
    for case in report["cases"]:
        game = report["games"][case["game"]]
        unit = _unit_keys(game)
        for key, value in (case.get("scores") or {}).items():
            why = _bad_number(value, key in unit)
            if why:
                raise GameEvalError(f"{where}: case {case['id']!r}, metric {key!r}: {why}")
        why = bad_usage(case.get("usage"))
        if why:
            raise GameEvalError(f"{where}: case {case['id']!r}: {why}")
    for name, game in report["games"].items():
        why = bad_usage(game.get("usage"))
        if why:
            raise GameEvalError(f"{where}: game {name!r}: {why}")
        unit = _unit_keys(game)
        for key, metric in _metric_values(game["metrics"]):
            why = _bad_number(metric, key in unit)
            if why:
                raise GameEvalError(f"{where}: game {name!r}, metric {key!r}: {why}")


def _metric_values(metrics: dict[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    """(metric name, number) for every value and interval end in a game's `metrics` summary."""
    for key, entry in metrics.items():
        if isinstance(entry, dict) and ("value" in entry or "ci" in entry):
            yield key, entry.get("value")
            ci = entry.get("ci") or []
            for end in ci if isinstance(ci, list) else [ci]:
                yield key, end
        elif isinstance(entry, dict) and key == "rates":
            yield from _metric_values(entry)


def records_seal(records_path: Path) -> dict[str, Any]:
    """What ties a report to its records file: their count and digest (kept in the report's `run`)."""
    digest, lines = hashlib.sha256(), 0
    with open_regular(records_path, "rb", "records") as f:  # hashed as read: memory stays bounded
        for chunk in chunks(f):
            digest.update(chunk)
            lines += chunk.count(b"\n")
    return {"records_count": lines, "records_sha256": digest.hexdigest()}


def records_path_for(report_path: str | Path) -> Path:
    """Where a report written now keeps its records: `REPORT.records.jsonl` from the report's whole
    name (`r.json.records.jsonl`), never shared with another report's (`r.txt`, `r`)."""
    return beside(report_path, ".records.jsonl")


def records_beside(report: dict[str, Any], path: Path) -> Path:
    """The records a report names (`run.records`, every report since the seal: the committed
    baselines' `NAME.records.jsonl` too); a report too old to name them, by the old stem rule."""
    return path.parent / str(report.get("run", {}).get("records") or path.with_suffix(".records.jsonl").name)


def check_records_pair(report: dict[str, Any], path: Path, *, required: bool = False) -> Path:
    """The records file beside a report must be the one written with it (a kill between the two
    renames, or a file copied from another run, leaves a pair that does not belong together)."""
    records = records_beside(report, path)
    if not records.is_file():
        if required:
            raise GameEvalError(f"{path}: its records {records.name} are not beside it")
        return records
    run = report.get("run") or {}
    if "records_sha256" not in run:  # a report from before the seal: nothing to check it by
        return records
    try:
        seal = records_seal(records)
    except OSError as e:  # a read error mid-file
        raise GameEvalError(f"{records}: cannot read records ({e.strerror or e})") from None
    if seal["records_sha256"] != run["records_sha256"]:
        raise GameEvalError(
            f"{path} and {records} do not belong together: the report was written with "
            f"{run.get('records_count')} records (sha256 {str(run['records_sha256'])[:12]}), the file holds "
            f"{seal['records_count']} (sha256 {seal['records_sha256'][:12]}); rerun, or restore the pair")
    return records


def read_report(path: str | Path) -> dict[str, Any]:
    """A report from a file, checked: its shape, every metric value, its records (when beside it)."""
    path = Path(path)
    data = read_json_file(path, "report")  # a FIFO is an error, not a wait; any hostile JSON one line
    report = validate(data, str(path))
    validate_values(report, str(path))
    check_records_pair(report, path)
    return report


# -- comparability ------------------------------------------------------------------------------


def rule_options(game: dict[str, Any]) -> dict[str, Any]:
    # a user's data file is compared by the dataset digest, not by where it lies
    return {k: v for k, v in game["options"].items() if k not in SAMPLING_OPTIONS + EFFECT_OPTIONS and k != "data"}


def decoding(game: dict[str, Any]) -> str:
    """Structured decoding a report's game used; reports from before the option used none."""
    return game.get("structured") or "off"


UNKNOWN_VERSION = "unknown version"  # a report from before game versions (issue 36)


def game_version(game: dict[str, Any]) -> str:
    """The game's version a report's game entry names ("unknown version" in older reports)."""
    version = game.get("version")
    return UNKNOWN_VERSION if version in (None, "") else str(version)


def version_changes(old: dict[str, Any], new: dict[str, Any], games: Iterable[str] | None = None) -> list[str]:
    """`GAME OLD -> NEW` for every game (of `games`, default both reports') whose version differs
    or is unknown: such runs measured different games, so their difference is not the model's."""
    names = sorted(set(old["games"]) & set(new["games"])) if games is None else games
    out = []
    for name in names:
        if name in old["games"] and name in new["games"]:
            vo, vn = game_version(old["games"][name]), game_version(new["games"][name])
            if vo != vn or UNKNOWN_VERSION in (vo, vn):
                out.append(f"{name} {vo} -> {vn}")
    return out


def version_reason(change: str, flag: str) -> str:
    name, _, versions = change.partition(" ")
    vo, _, vn = versions.partition(" -> ")
    return (
        f"{name}: incomparable game versions (old: {vo}, new: {vn}): the game itself changed (its README's changelog "
        f"says what), so a difference would not be the model's; re-make the baseline with {name} version {vn} "
        f"(or pass {flag} to compare anyway)"
    )


def incomparable(old: dict[str, Any], new: dict[str, Any], games: Iterable[str] | None = None, *,
                 allow_structured_mismatch: bool = False, allow_version_change: bool = False,
                 version_flag: str = "--allow-version-change") -> list[str]:
    """Why two reports cannot be compared (empty when they can). `games`: only these games
    (default: the games both hold; a game only one side holds is *missing*, see `missing_sides`).
    Different game versions come first: nothing else about such runs compares."""
    if games is None:
        games = sorted(set(old["games"]) & set(new["games"]))
    games = list(games)
    reasons = (
        [] if allow_version_change else [version_reason(c, version_flag) for c in version_changes(old, new, games)]
    )
    reasons += [] if allow_version_change else rejudged_problems(old, games)
    for name in games:
        if name not in old["games"]:
            reasons.append(f"{name} is not in the baseline")
            continue
        o, n = old["games"][name], new["games"][name]
        if o["dataset"].get("sha256") != n["dataset"].get("sha256") and not other_fresh_seed(o, n):
            reasons.append(f"{name}: different dataset (sha256 {str(o['dataset'].get('sha256'))[:12]} vs "
                           f"{str(n['dataset'].get('sha256'))[:12]})")
        if decoding(o) != decoding(n) and not allow_structured_mismatch:
            reasons.append(f"{name}: structured decoding differs (old: {decoding(o)}, new: {decoding(n)}; "
                           "format errors mean different things; --allow-structured-mismatch compares anyway)")
        if o.get("opponents") and n.get("opponents") and o["opponents"] != n["opponents"]:  # {}: no game played
            reasons.append(
                f"{name}: different opponents (old: {_seats(o['opponents'])}; new: {_seats(n['opponents'])}): "
                "a score against one opponent says nothing about the other"
            )
        ro, rn = rule_options(o), rule_options(n)
        changed = sorted(k for k in set(ro) | set(rn) if ro.get(k) != rn.get(k))
        if changed:
            reasons.append(
                f"{name}: different game options " + ", ".join(f"{k}={ro.get(k)!r}->{rn.get(k)!r}" for k in changed)
            )
    return reasons


def other_fresh_seed(old_game: dict[str, Any], new_game: dict[str, Any]) -> tuple[int, int] | None:
    """(old seed, new seed) when both runs played fresh cases of one lexicon with other seeds: other
    cases of the same data version, compared unpaired (docs/fresh-cases.md); else None."""
    fo, fn = old_game["dataset"].get("fresh"), new_game["dataset"].get("fresh")
    if not (isinstance(fo, dict) and isinstance(fn, dict)) or fo.get("lexicon") != fn.get("lexicon"):
        return None
    return None if fo.get("seed") == fn.get("seed") else (fo.get("seed"), fn.get("seed"))


def fresh_notes(old: dict[str, Any], new: dict[str, Any], games: Iterable[str] | None = None) -> list[str]:
    """`GAME: fresh cases of seed 7 (baseline) and 8 (this run): other cases, compared unpaired` per such game."""
    names = sorted(set(old["games"]) & set(new["games"])) if games is None else games
    out = []
    for name in names:
        if name in old["games"] and name in new["games"] and (seeds := other_fresh_seed(old["games"][name],
                                                                                        new["games"][name])):
            out.append(f"{name}: fresh cases of seed {seeds[0]} (old) and {seeds[1]} (new): other cases, compared "
                       "unpaired")
    return out


def rejudged_problems(baseline: dict[str, Any], games: Iterable[str]) -> list[str]:
    """Why a baseline's re-judged games cannot stand in for a rerun (`gameeval rejudge`): their
    models were shown other prompts than the installed game shows."""
    out = []
    for name in games:
        rejudged = baseline["games"].get(name, {}).get("rejudged")
        if rejudged and not rejudged.get("stands_in"):
            out.append(f"{name}: the baseline was re-judged from version {rejudged.get('from_version')} "
                       f"(gameeval rejudge), which cannot stand in for a rerun: {rejudged.get('why')}; re-make the "
                       f"baseline with {name} version {rejudged.get('to_version')}")
    return out


def rejudged_notes(baseline: dict[str, Any], games: Iterable[str] | None = None) -> list[str]:
    """`GAME re-judged from version N (prompts unchanged)` for each baseline game that stands in."""
    names = sorted(baseline["games"]) if games is None else games
    return [f"{name} re-judged from version {baseline['games'][name]['rejudged'].get('from_version')} "
            "(prompts unchanged)" for name in names
            if (baseline["games"].get(name, {}).get("rejudged") or {}).get("stands_in")]


def _seats(opponents: dict[str, str]) -> str:
    return ", ".join(f"{role}={who}" for role, who in opponents.items()) or "none"


# -- the diff -------------------------------------------------------------------------------------


def _missing_side(report: dict[str, Any], name: str) -> str | None:
    """Why one side has no evidence on a game (None when it has played games)."""
    if name not in report["games"]:
        return "not in the report"
    return no_played_game(cases_of(report, name))


def missing_sides(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """game -> one line saying which side has no played game of it, for every game of either report."""
    out: dict[str, str] = {}
    for name in sorted(set(old["games"]) | set(new["games"])):
        sides = [
            f"{side}: {why}" for side, report in (("old", old), ("new", new)) if (why := _missing_side(report, name))
        ]
        if sides:
            out[name] = "; ".join(sides)
    return out


def headline_of(name: str, game: dict[str, Any]) -> str | None:
    """The game's headline as its report says it (reports from before issue 25: the registered
    game's headline, else its first higher-is-better metric)."""
    if game.get("headline"):
        return str(game["headline"])
    from pytest_gameeval.games.registry import GAMES, get_spec

    if name in GAMES:
        return get_spec(name).headline
    return next((k for k, d in game["directions"].items() if d == "higher"), None)  # None: nothing to test


def tested_metrics(
    name: str,
    old_game: dict[str, Any],
    new_game: dict[str, Any],
    tolerance: float,
    extra: dict[str, dict[str, tuple[bool | None, float | None]]] | None = None,
) -> list[tuple[str, bool, float]]:
    """(metric, higher is better, tolerance): the metrics the new report's game is gated on by
    default (its headline and turn-level measure), then the metrics the user names."""
    headline = headline_of(name, new_game)
    default = new_game.get("gated") or ([headline] if headline else [])
    wanted: dict[str, tuple[bool | None, float | None]] = {key: (True, None) for key in default}
    named = (extra or {}).get(name, {})
    wanted.update(named)
    known = set(old_game["rate_keys"]) | set(old_game["mean_keys"])
    out = []
    for metric, (higher, tol) in wanted.items():
        if higher is None:
            continue
        if metric not in known and metric in named:  # a default one the old report lacks: judge_game says so
            raise GameEvalError(
                f"metric {name}.{metric}: not a score of {name} in the old report "
                f"(rates: {', '.join(old_game['rate_keys'])}; means: {', '.join(old_game['mean_keys'])})"
            )
        out.append((metric, higher, tolerance if tol is None else tol))
    return out


def fixed_tolerances(tested: list[tuple[str, bool, float]], old_cases: list[dict[str, Any]]) -> list[tuple[str, bool,
                                                                                                             float]]:
    """A relative tolerance (`higher:5%`) in the metric's units, from the old (baseline) report alone."""
    from pytest_gameeval.analysis.verdicts.gate_config import absolute_tolerance

    return [(metric, higher, absolute_tolerance(tol, metric, old_cases)) for metric, higher, tol in tested]


def diff_reports(old: dict[str, Any], new: dict[str, Any], alpha: float = 0.05, tolerance: float = 0.1, *,
                 metrics: dict[str, dict[str, tuple[bool | None, float | None]]] | None = None,
                 allow_structured_mismatch: bool = False, allow_version_change: bool = False) -> dict[str, Any]:
    """Per game one verdict (analysis/verdicts/judge.judge, game_verdict.decide) on its headline and the named metrics,
    at two-sided level alpha: better, worse, same, undecided, too few games or missing."""
    reasons = incomparable(old, new, allow_structured_mismatch=allow_structured_mismatch,
                           allow_version_change=allow_version_change)
    if reasons:
        raise GameEvalError("reports are not comparable: " + "; ".join(reasons))
    games: dict[str, dict[str, Any]] = {}
    missing = missing_sides(old, new)
    for name in sorted(set(old["games"]) | set(new["games"])):
        if name in missing:
            games[name] = decide(name, missing=missing[name]).as_dict()
            continue
        tested = fixed_tolerances(tested_metrics(name, old["games"][name], new["games"][name], tolerance, metrics),
                                  cases_of(old, name))
        games[name] = judge(name, cases_of(old, name), cases_of(new, name), tested, alpha / 2, alpha / 2).as_dict()
    # missing games are listed apart ("missing")
    failing = [f"{n}: {g['reason'] or g['result']}" for n, g in games.items()
               if fails(g["result"]) and g["result"] != MISSING]
    return {"alpha": alpha, "tolerance": tolerance, "confidence": 1 - alpha, "games": games, "failing": failing,
            "worse": [n for n, g in games.items() if g["result"] == WORSE], "missing": missing,
            "version_changes": version_changes(old, new), "rejudged": rejudged_notes(old),
            "fresh": fresh_notes(old, new),
            "old": _identity(old), "new": _identity(new)}


def _identity(report: dict[str, Any]) -> dict[str, Any]:
    return {"models": report["models"], "model": report["models"].get("evaluated"), "git": report.get("git"),
            "created": report.get("created"), "structured": {name: decoding(g) for name, g in report["games"].items()},
            "versions": {name: game_version(g) for name, g in report["games"].items()}}


def render_markdown(diff: dict[str, Any]) -> str:
    from pytest_gameeval.analysis.verdicts.table import markdown

    old_model, new_model = str(diff["old"]["model"]), str(diff["new"]["model"])
    if diff["failing"]:
        tail = f"Verdict ({new_model} vs {old_model}): " + "; ".join(diff["failing"]) + "."
    else:
        tail = f"Verdict ({new_model} vs {old_model}): no game worse beyond its tolerance."
    if diff.get("version_changes"):
        tail += (
            " Game versions differ, compared anyway (--allow-version-change): "
            + ", ".join(diff["version_changes"])
            + ": a difference may be the game's, not the model's."
        )
    if diff.get("rejudged"):
        tail += (" The baseline's games were re-judged by the installed rules (gameeval rejudge), a fair "
                 "stand-in for a rerun: " + ", ".join(diff["rejudged"]) + ".")
    if diff.get("fresh"):
        tail += " " + "; ".join(diff["fresh"]) + "."
    if diff.get("missing"):
        tail += " Missing: " + "; ".join(f"{g} ({why})" for g, why in diff["missing"].items()) + "."
    note = (
        "Each game's headline (and any --metric named) tested once: paired (exact McNemar with Newcombe's paired "
        "interval "
        f"for 0/1 values, paired t otherwise) where both reports played the same cases with the same seeds, else "
        f"independent (Fisher with Newcombe's interval, Welch's t); {round(100 * diff['confidence'])}% intervals, "
        f"alpha={diff['alpha']} two-sided, tolerance=±{diff['tolerance']} ('same' = the whole distribution-free "
        "'same' interval inside it). "
        "Outcome shares: one test over the whole distribution, evidence only."
    )
    decodings = sorted(
        {f"{g} {diff['old']['structured'].get(g, 'missing')} -> {d}" for g, d in diff["new"]["structured"].items()}
    )
    note += " Structured decoding (old -> new): " + "; ".join(decodings) + "."
    return "\n".join([markdown(diff["games"], old_model, new_model), "", tail, note])
