"""A report's numbers at game level, so `jq` or pandas read them without recomputing: each game's
headline and every gated measure with its value, 95% interval and count (the numbers the terminal
summary prints: Wilson for 0/1 values, Student t otherwise, over the played games that define the
key), and, when the run was gated, the game's verdict.

`games.GAME.measures.KEY = {"value", "ci": [low, high], "n", "k" (0/1 values), "method", "role"}`;
`games.GAME.verdict = {"verdict": "pass"|"fail", "result", "reason"}` (the schema:
analysis/report/schema.json, docs/report-schema.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pytest_gameeval.metrics.stats import mean, rate

HEADLINE, GATED = "headline", "gated"


def _values(cases: Iterable[Mapping[str, Any]], key: str) -> list[float]:
    out = []
    for c in cases:
        scores = c.get("scores")
        if c.get("status") != "played" or not isinstance(scores, dict):
            continue
        v = scores.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out.append(float(v))
    return out


def measure(cases: Iterable[Mapping[str, Any]], key: str, role: str) -> dict[str, Any]:
    """One score key over the played cases that define it: value, 95% interval, count."""
    values = _values(cases, key)
    if values and all(v in (0.0, 1.0) for v in values):
        est = rate(int(sum(values)), len(values))
    else:
        est = mean(values)
    return {**est, "role": role}


def game_measures(headline: str | None, gated: Sequence[str], cases: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The headline and the measures gated beside it, each measured over `cases` (one game's)."""
    out: dict[str, Any] = {}
    if headline:
        out[headline] = measure(cases, headline, HEADLINE)
    for key in gated:
        out.setdefault(key, measure(cases, key, GATED))
    return out


def attach_verdicts(report: dict[str, Any]) -> None:
    """With a gate: each game's verdict in its entry, and every metric the gate judged among its
    measures (a --gameeval-gate-metric beside the game's own)."""
    gate = report.get("gate")
    if not gate:
        return
    for name, game in report["games"].items():
        entry = (gate.get("games") or {}).get(name)
        if entry is not None:
            game["verdict"] = {"verdict": entry["verdict"], "result": entry["result"], "reason": entry.get("reason")}
            cases = [c for c in report["cases"] if c["game"] == name]
            for key in entry.get("metrics") or {}:
                game.setdefault("measures", {}).setdefault(key, measure(cases, key, GATED))
        elif name in gate.get("missing_from_baseline", []):
            allowed = bool(gate.get("allow_missing"))
            game["verdict"] = {"verdict": "pass" if allowed else "fail", "result": "not in the baseline",
                               "reason": "allowed (--gameeval-gate-allow-missing)" if allowed else None}
        elif name in gate.get("data_errors", []):
            game["verdict"] = {"verdict": "fail", "result": "not played (data error)", "reason": game.get("data_error")}
