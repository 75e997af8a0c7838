"""One game's entry of a report, from its cases and records: the pytest plugin's report and a
report merged from slices (`gameeval report merge`) are built by the same function, so a merged
report says what one machine's report of the same cases says."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.cost.prices import add_usage
from pytest_gameeval.analysis.report.measures import game_measures
from pytest_gameeval.analysis.report.prompt_digest import prompt_digest
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import GameSpec


def _usage(cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    usage: dict[str, dict[str, Any]] = {}
    for c in cases:
        for seat, u in (c.get("usage") or {}).items():
            agg = usage.setdefault(
                seat,
                {"role": c["seats"][seat]["role"], "models": []},
            )
            if c["seats"][seat]["model"] not in agg["models"]:
                agg["models"].append(c["seats"][seat]["model"])
            add_usage(agg, u)
    return usage


def _failures(cases: list[dict[str, Any]]) -> dict[str, int]:
    failures: dict[str, int] = {}
    for c in cases:
        for per_seat in (c.get("failures") or {}).values():
            for kind, n in per_seat.items():
                failures[kind] = failures.get(kind, 0) + n
    return failures


def game_entry(spec: GameSpec, options: dict[str, Any], dataset: dict[str, Any], selected: int,
               cases: list[dict[str, Any]], records: list[GameRecord], directions: dict[str, str]) -> dict[str, Any]:
    """The report's `games.GAME`: what was measured (version, options, data), the game's own
    summary of its records and what the cases cost. `cases` in report order, `records` sorted by
    (instance id, epoch)."""
    decodings = {r.structured for r in records}
    opponents: dict[str, set[str]] = {}  # who played each model role but the evaluated one
    for r in records:
        for role, who in r.opponents().items():
            opponents.setdefault(role, set()).add(who)
    return {
        "title": spec.title,
        # what the report measured: the game's version and fingerprint (docs/versions.md)
        "version": spec.version,
        "fingerprint": spec.fingerprint,
        # what the models were shown (analysis/report/prompt_digest.py): a re-judged baseline stands in for
        # a rerun only where this is unchanged (gameeval rejudge)
        "prompts": prompt_digest(spec, options),
        "options": options,
        "dataset": dataset,
        "cases_selected": selected,
        "cases_reported": len(cases),
        "cases_played": sum(c["status"] == "played" for c in cases),
        "cases_error": sum(c["status"] == "error" for c in cases),
        "metrics": spec.summarize(records) if records else {},
        "headline": spec.headline,  # what the gate, report diff and gameeval compare test
        # its value, interval and count, and each gated measure's (analysis/report/measures.py)
        "measures": game_measures(spec.headline, list(spec.default_gated), cases),
        "gated": list(spec.default_gated),  # ... beside the headline, one verdict over them
        "rate_keys": list(spec.rate_keys),
        "mean_keys": list(spec.other_mean_keys),
        "directions": directions,
        "usage": _usage(cases),
        "failures": _failures(cases),
        "notes": sorted({n for r in records for n in r.notes}),
        # structured decoding as actually used by the game's seats: "on", "off" or "mixed"
        "structured": decodings.pop() if len(decodings) == 1 else ("mixed" if decodings else None),
        # model role -> who played it ("self": the evaluated model); runs with other opponents do not compare
        "opponents": {role: ",".join(sorted(who)) for role, who in sorted(opponents.items())},
    }
