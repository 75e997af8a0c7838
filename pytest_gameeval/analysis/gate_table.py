"""The gate's result as a markdown table, for a pull request or a CI job summary.

Rendered from the gate's own results (`GameGate.to_dict()` per game, as the report's `gate` section
holds them), so a change to the gate's verdicts shows here without a second copy of its logic."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.gate import REGRESSED


def _num(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "–"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def regressed_metrics(gate: dict[str, Any]) -> list[str]:
    """GAME.METRIC for every metric the gate found regressed."""
    return [f"{n}.{m}" for n, g in sorted(gate["games"].items()) for m, v in g["metrics"].items() if v["verdict"] == REGRESSED]


def gate_markdown(gate: dict[str, Any]) -> list[str]:
    """The report's `gate` section as markdown lines: the verdict, one row per gated metric, one
    line per game saying how many games it took and why it failed, and games missing from the
    baseline or not gated."""
    verdict = "FAILED" if gate["verdict"] == "fail" else "passed"
    lines = [f"### Regression gate: {verdict}", "",
             f"Against `{gate['baseline']}` (alpha {gate['alpha']}, beta {gate['beta']}, tolerance {gate['tolerance']}).", ""]
    rows = [(name, metric, v) for name, g in sorted(gate["games"].items()) for metric, v in g["metrics"].items()]
    if rows:
        lines += ["| game.metric | better | baseline | new | change | interval | games | verdict |",
                  "|---|---|---:|---:|---:|---|---:|---|"]
        for name, metric, v in rows:
            lo, hi = v.get("ci") or (None, None)
            interval = "–" if lo is None else f"[{lo:+.3f}, {hi:+.3f}]"
            verdict_cell = f"**{v['verdict']}**" if v["verdict"] == REGRESSED else v["verdict"]
            lines.append(f"| {name}.{metric} | {v.get('direction', '')} | {_num(v.get('old'))} | {_num(v.get('new'))} | "
                         f"{_num(v.get('change'), signed=True)} | {interval} | {v.get('games', '')} | {verdict_cell} |")
        lines.append("")
    for name, g in sorted(gate["games"].items()):
        reason = f": {g['reason']}" if g.get("reason") else ""
        lines.append(f"- {name}: {g['verdict'].upper()} after {g['games_used']} of {g['cases_available']} games "
                     f"({g.get('games_played', g['games_used'])} played, {g.get('harness_errors', 0)} harness errors){reason}")
    for name in gate.get("missing_from_baseline", []):
        lines.append(f"- {name}: MISSING from the baseline" + (" (allowed)" if gate.get("allow_missing") else ""))
    for name in gate.get("not_gated", []):
        lines.append(f"- {name}: not gated (no metric has a direction)")
    regressed = regressed_metrics(gate)
    if regressed:
        lines += ["", f"**Regressed: {', '.join(regressed)}**"]
    return lines
