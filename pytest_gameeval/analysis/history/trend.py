"""Many stored runs read as a trend: per game, each run's headline and legal_first_try with their
intervals, and the verdict between each consecutive pair of runs that hold the game, by the same
statistics `gameeval report diff` uses (analysis/verdicts/judge: paired where both runs played the
same cases with the same seeds, else independent; tolerance and alpha as `report diff`'s). A pair
whose game versions, data or rule options differ is not compared, and says why: versions are never
crossed silently. How many comparisons were made, and what that does to the chance of a false
alarm, is part of the result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_gameeval.analysis.history.rows import COLUMNS, report_rows
from pytest_gameeval.analysis.history.store import RunStore, StoredRun

NOT_COMPARED = "not compared"


def load_runs(store: RunStore, runs: Sequence[StoredRun], scratch: Any = None) -> list[tuple[StoredRun, dict]]:
    """Each run's report, checked (a stored run edited by hand: one line naming the file)."""
    return [(run, store.load(run, scratch)[0]) for run in runs]


def _pair_verdict(name: str, old: dict[str, Any], new: dict[str, Any], alpha: float,
                  tolerance: float) -> dict[str, Any]:
    from pytest_gameeval.analysis.report.file import (
        cases_of,
        fixed_tolerances,
        incomparable,
        missing_sides,
        tested_metrics,
        version_changes,
    )
    from pytest_gameeval.analysis.verdicts.judge import judge

    changed = version_changes(old, new, [name])
    if changed:  # never crossed: the game itself changed between the two runs
        return {"result": NOT_COMPARED, "reason": f"game version {changed[0].split(' ', 1)[1]}", "paired": None,
                "compared": False}
    reasons = incomparable(old, new, games=[name])
    if reasons:
        return {"result": NOT_COMPARED, "reason": reasons[0], "paired": None, "compared": False}
    missing = missing_sides(old, new).get(name)
    if missing:
        return {"result": NOT_COMPARED, "reason": missing, "paired": None, "compared": False}
    tested = fixed_tolerances(tested_metrics(name, old["games"][name], new["games"][name], tolerance),
                              cases_of(old, name))
    verdict = judge(name, cases_of(old, name), cases_of(new, name), tested, alpha / 2, alpha / 2).as_dict()
    return {"result": verdict["result"], "reason": verdict["reason"], "paired": verdict["paired"], "compared": True}


def trend(loaded: Sequence[tuple[StoredRun, dict[str, Any]]], games: Sequence[str] | None = None,
          alpha: float = 0.05, tolerance: float = 0.1) -> dict[str, Any]:
    """Rows (one per run x game, oldest run first) with the verdict against the game's previous run."""
    rows: list[dict[str, Any]] = []
    previous: dict[str, dict[str, Any]] = {}
    comparisons = 0
    for run, report in loaded:
        for row in report_rows(report):
            name = row["game"]
            if games and name not in games:
                continue
            verdict = {"result": "", "reason": "first run of this game here", "paired": None, "compared": False}
            if name in previous:
                verdict = _pair_verdict(name, previous[name]["report"], report, alpha, tolerance)
                verdict["against"] = previous[name]["run"]
                comparisons += verdict["compared"]
            previous[name] = {"report": report, "run": run.id}
            rows.append({"run": run.id, "name": run.name, "created": run.meta.get("created"),
                         "commit": run.commit, **row, "verdict": verdict["result"],
                         "verdict_reason": verdict["reason"], "paired": verdict["paired"],
                         "against": verdict.get("against", "")})
    return {"rows": rows, "comparisons": comparisons, "alpha": alpha, "tolerance": tolerance,
            "false_alarm": false_alarm_line(comparisons, alpha)}


def false_alarm_line(k: int, alpha: float) -> str:
    if k == 0:
        return "0 comparisons were made (no two comparable runs of a game): no verdict, no false alarm."
    independent = 1 - (1 - alpha) ** k
    bound = min(1.0, k * alpha)
    return (f"{k} comparison{'s' if k > 1 else ''} made, each at alpha={alpha:g} (two-sided): were nothing to change, "
            f"the chance that at least one says better or worse is {100 * independent:.0f}% if they were independent, "
            f"at most {100 * bound:.0f}% in any case (union bound); --alpha {alpha / k:.2g} (= alpha / {k}) keeps the "
            f"whole table's false-alarm chance under {alpha:g}.")


CSV_COLUMNS = ("run", "name", "created", "commit", *COLUMNS, "verdict", "verdict_reason", "paired", "against")


def _num(v: Any) -> str:
    if v is None:
        return "–"
    return f"{v:.3f}"


def markdown(result: dict[str, Any]) -> str:
    out = []
    for game in sorted({r["game"] for r in result["rows"]}):
        rows = [r for r in result["rows"] if r["game"] == game]
        headline = rows[-1]["headline"]
        out += [f"### {game} ({headline})", "",
                f"| run | name | model | version | {headline} [95% CI] | n | legal_first_try [95% CI] | vs previous |",
                "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            verdict = r["verdict"] or "–"
            if r["verdict"] == NOT_COMPARED:
                verdict = f"not compared ({r['verdict_reason']})"
            elif r["verdict"]:
                verdict += " (paired)" if r["paired"] else " (independent)"
            verdict = verdict.replace("|", "/")
            out.append(f"| {r['run']} | {r['name'] or ''} | {r['model']} | {r['version']} | {_num(r['value'])} "
                       f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}] | {r['n']} | {_num(r['legal_first_try'])} "
                       f"[{_num(r['legal_first_try_ci_low'])}, {_num(r['legal_first_try_ci_high'])}] | {verdict} |")
        out.append("")
    out.append(result["false_alarm"])
    return "\n".join(out)
