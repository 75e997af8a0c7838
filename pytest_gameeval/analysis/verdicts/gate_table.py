"""The gate's result as a markdown table, for a pull request or a CI job summary.

Rendered from the gate's own results (`GameGate.to_dict()` per game, as the report's `gate` section
holds them) with the pieces the terminal lines use (analysis/verdicts/table.py), so a change to the
gate's verdicts shows here without a second copy of its logic."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.verdicts.game import fails, gate_failures
from pytest_gameeval.analysis.verdicts.table import _num, interval, model_of, outcomes_text


def gate_markdown(gate: dict[str, Any], new_model: str = "?") -> list[str]:
    """The report's `gate` section as markdown lines: the verdict naming both models, one row per
    gated metric, one line per game with its verdict, how many games it took and why it failed,
    and games missing from the baseline, not gated or with a data error."""
    old_model = model_of({"models": gate.get("baseline_models") or {}})
    verdict = "FAILED" if gate["verdict"] == "fail" else "passed"
    if gate.get("version_changes"):
        verdict += (" (game versions differ, compared anyway by --gameeval-allow-version-change: "
                    + ", ".join(gate["version_changes"]) + ")")
    lines = [f"### Regression gate: {verdict}", "",
             f"`{new_model}` against the baseline `{old_model}` (`{gate['baseline']}`; alpha {gate['alpha']}, "
             f"beta {gate['beta']}, tolerance {gate['tolerance']}).", ""]
    rows = [(name, metric, v) for name, g in sorted(gate["games"].items()) for metric, v in g["metrics"].items()]
    if rows:
        lines += ["| game.metric | better | baseline | new | change | interval | games | design | verdict |",
                  "|---|---|---:|---:|---:|---|---:|---|---|"]
        for name, metric, v in rows:
            verdict_cell = f"**{v['verdict']}**" if fails(v["verdict"]) else v["verdict"]
            design = "paired" if v.get("paired") else "independent"
            lines.append(
                f"| {name}.{metric} | {v.get('direction', '')} | {_num(v.get('old'))} | {_num(v.get('new'))} | "
                f"{_num(v.get('change'), signed=True)} | {interval(v.get('ci'))} | {v.get('games', '')} | "
                f"{design} | {verdict_cell} |"
            )
        lines.append("")
    for name, g in sorted(gate["games"].items()):
        reason = f": {g['reason']}" if g.get("reason") else ""
        outcomes = f"; outcomes {outcomes_text(g['outcomes'])}" if g.get("outcomes") else ""
        lines.append(f"- {name}: **{g.get('result', g['verdict']).upper()}** after {g['games_used']} of "
                     f"{g['cases_available']} games ({g.get('games_played', g['games_used'])} played, "
                     f"{g.get('harness_errors', 0)} harness errors){outcomes}{reason}")
    for name in gate.get("missing_from_baseline", []):
        lines.append(f"- {name}: not in the baseline" + (" (allowed)" if gate.get("allow_missing") else ""))
    for name in gate.get("not_gated", []):
        lines.append(f"- {name}: not gated (no headline and no --gameeval-gate-metric)")
    for name in gate.get("data_errors", []):
        lines.append(f"- {name}: not played (data error)")
    failing = gate_failures(gate)
    if failing:
        lines += ["", f"**Failed ({new_model} vs {old_model}): {'; '.join(failing)}**"]
    return lines
