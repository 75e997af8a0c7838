"""What a stored run's meta.json says, built from its report: enough to list runs and pick a
comparable baseline without opening any report (model and seat bindings, each game's version,
data digest, options and decoding, its headline with interval and count, the gate's verdict, the
git commit, the date, the run's NAME)."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.report.measures import measure
from pytest_gameeval.engine.spec import FIRST_TRY

# what analysis.report.file.incomparable reads from a game's entry: kept so a run can be judged
# comparable from its meta.json alone
_COMPARED = ("version", "fingerprint", "dataset", "options", "structured", "opponents", "rejudged")


def headline_key(name: str, game: dict[str, Any]) -> str | None:
    from pytest_gameeval.analysis.report.file import headline_of

    return headline_of(name, game)


def game_measures(report: dict[str, Any], name: str) -> dict[str, Any]:
    """The game's headline and legal_first_try, each with value, 95% interval and count, from the
    report's cases (the terminal summary's numbers: Wilson for 0/1 values, Student t otherwise)."""
    game = report["games"][name]
    cases = [c for c in report["cases"] if c["game"] == name]
    out: dict[str, Any] = {}
    headline = headline_key(name, game)
    if headline:
        out[headline] = measure(cases, headline, "headline")
    if FIRST_TRY in set(game.get("rate_keys") or []) | set(game.get("mean_keys") or []):
        out.setdefault(FIRST_TRY, measure(cases, FIRST_TRY, "gated"))
    return out


def meta_of(report: dict[str, Any], *, name: str = "", source: str = "pytest") -> dict[str, Any]:
    games = {}
    for game_name, game in sorted(report["games"].items()):
        games[game_name] = {
            **{k: game[k] for k in _COMPARED if k in game},
            "headline": headline_key(game_name, game),
            "cases_played": sum(1 for c in report["cases"] if c["game"] == game_name and c["status"] == "played"),
            "measures": game_measures(report, game_name),
        }
    gate = report.get("gate") or None
    return {
        "name": name,
        "source": source,
        "created": report.get("created"),
        "git": report.get("git"),
        "models": report.get("models"),
        "settings": report.get("settings"),
        "package": report.get("package"),
        "pytest_args": (report.get("run") or {}).get("pytest_args"),
        "games": games,
        "gate": None if gate is None else {"verdict": _gate_verdict(gate), "baseline": gate.get("baseline")},
    }


def _gate_verdict(gate: dict[str, Any]) -> str | None:
    """The report's pass/fail, except that a gate which judged no game (every gate item deselected,
    `-k "not gate"`) passed nothing: "not applied", as the run's last line says, not "pass"."""
    verdict = gate.get("verdict")
    return "not applied" if verdict == "pass" and not gate.get("games") else verdict
