"""A report as rows for pandas: one row per game with its headline's value, 95% interval and count
(and legal_first_try's), the way the terminal summary states them. `pytest_gameeval.read_report`
returns these; `gameeval history compare --format csv` writes them for many runs, one row per
run x game."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.history.meta import game_measures, headline_key
from pytest_gameeval.engine.spec import FIRST_TRY

COLUMNS = ("game", "version", "model", "headline", "value", "ci_low", "ci_high", "n", "legal_first_try",
           "legal_first_try_ci_low", "legal_first_try_ci_high", "legal_first_try_n", "cases_played")


def _ends(entry: dict[str, Any] | None) -> tuple[Any, Any, Any, Any]:
    if not entry:
        return None, None, None, 0
    ci = entry.get("ci") or [None, None]
    return entry.get("value"), ci[0], ci[1], entry.get("n", 0)


def game_row(name: str, game: dict[str, Any], measures: dict[str, Any], model: Any, played: int) -> dict[str, Any]:
    headline = headline_key(name, game)
    value, low, high, n = _ends(measures.get(headline) if headline else None)
    fvalue, flow, fhigh, fn = _ends(measures.get(FIRST_TRY))
    return {"game": name, "version": game.get("version"), "model": model, "headline": headline, "value": value,
            "ci_low": low, "ci_high": high, "n": n, "legal_first_try": fvalue, "legal_first_try_ci_low": flow,
            "legal_first_try_ci_high": fhigh, "legal_first_try_n": fn, "cases_played": played}


def report_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per game of a (checked) report."""
    model = (report.get("models") or {}).get("evaluated")
    return [game_row(name, game, game_measures(report, name), model,
                     sum(1 for c in report["cases"] if c["game"] == name and c["status"] == "played"))
            for name, game in sorted(report["games"].items())]


def read_report(path: str) -> list[dict[str, Any]]:
    """`pytest_gameeval.read_report(path)`: a gameeval report as rows for pandas, one per game:
    `game`, `version`, `model`, `headline`, `value`, `ci_low`, `ci_high` (95%), `n`, the same for
    `legal_first_try`, and `cases_played`. The file is checked as `--gameeval-baseline` checks it
    (one error line naming it when it is not a report, a value is out of range or its records are
    not the ones written with it).

        import pandas as pd, pytest_gameeval
        df = pd.DataFrame(pytest_gameeval.read_report("reports/gameeval-report.json"))
    """
    from pytest_gameeval.analysis.report.file import read_report as read_checked

    return report_rows(read_checked(path))
