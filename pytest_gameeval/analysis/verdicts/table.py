"""How a per-game verdict reads: one renderer for the gate's terminal lines, `report diff`'s and
`gameeval compare`'s markdown tables, so all three say the same thing the same way.

A game result is a game_verdict.GameVerdict as reports store it (`as_dict()`, or the gate's form,
gate.GameGate.to_dict): "result", "reason", "paired", "metrics" (per tested metric: old, new,
change, ci, p, test, verdict) and "outcomes" (the breakdown and its one test). Nothing here decides
a verdict; every line names both models.
"""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.verdicts.game import BETTER, MISSING, SAME, UNDECIDED, WORSE, fails, gate_failures

TOO_SMALL_HINT = "play more games (--gameeval-trials N, or --gameeval-limit 0 for every row)"


def model_of(report: dict[str, Any]) -> str:
    """The evaluated model a report names (a local GGUF by its identity, file@sha)."""
    return str((report.get("models") or {}).get("evaluated") or "?")


def _num(x: Any, signed: bool = False) -> str:
    if x is None:
        return "–"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def interval(ci: Any) -> str:
    if not ci or ci[0] is None or ci[1] is None:
        return "–"
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _p(p: Any) -> str:
    return "–" if p is None else f"{p:.3g}"


def outcomes_text(outcomes: dict[str, Any] | None) -> str:
    """`ST 0->2, RLE 8->6 (Bowker p=0.16)`: the breakdown and its one test, as evidence."""
    if not outcomes:
        return "–"
    counts = ", ".join(f"{label} {c['old']}->{c['new']}" for label, c in outcomes["counts"].items())
    test = f" ({'paired' if outcomes.get('test', '').startswith('Bowker') else 'chi-square'} p={_p(outcomes['p'])})" \
        if outcomes.get("p") is not None else ""
    return counts + test


def metric_rows(game: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"metric": name, **m} for name, m in game["metrics"].items()]


def markdown(games: dict[str, dict[str, Any]], old_model: str, new_model: str, note: str = "",
             sides: tuple[str, str] = ("old", "new")) -> str:
    """One row per game and tested metric (the headline first), then the verdict's evidence."""
    o, n = sides
    lines = [
        f"{o.capitalize()}: `{old_model}`; {n}: `{new_model}`. Change = {n} − {o}; the verdict says how {n} compares "
        f"with {o}.",
        "",
        f"| game | {o} model → {n} model | metric (better) | {o} (n) | {n} (n) | change | interval | p | test | "
        f"outcomes {o}→{n} (one test, evidence only) | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, g in games.items():
        verdict = f"**{g['result']}**" if fails(g["result"]) else g["result"]
        reason = (g.get("reason") or "").removeprefix(f"{g['result']}: ")
        if reason:
            verdict += f" ({reason})"
        pair = f"`{old_model}` → `{new_model}`"
        rows = metric_rows(g) or [{"metric": "–"}]
        for i, m in enumerate(rows):
            design = "paired" if m.get("paired") else ("independent" if "paired" in m else "–")
            lines.append(
                f"| {name} | {pair} | {m['metric']} ({m.get('direction', '–')}) | "
                f"{_num(m.get('old'))} ({m.get('n_old', '–')}) | {_num(m.get('new'))} ({m.get('n_new', '–')}) | "
                f"{_num(m.get('change'), True)} | {interval(m.get('ci'))} | {_p(m.get('p'))} | "
                f"{design}: {m.get('test') or '–'} | {outcomes_text(g.get('outcomes')) if i == 0 else ''} | "
                f"{verdict if i == 0 else m.get('verdict', '')} |")
    if note:
        lines += ["", note]
    return "\n".join(lines)


def _caveats(gate: dict[str, Any]) -> str:
    """What the verdict line must say besides the verdict: versions compared anyway, fresh cases of
    other seeds (unpaired), a re-judged baseline."""
    changed = gate.get("version_changes") or []
    out = (f" [game versions differ, compared anyway (--gameeval-allow-version-change): {', '.join(changed)}: "
           "a difference may be the game's, not the model's]") if changed else ""
    if gate.get("fresh"):
        out += f" [{'; '.join(gate['fresh'])}]"
    if gate.get("rejudged"):
        out += f" [baseline re-judged by the installed rules, a fair stand-in: {', '.join(gate['rejudged'])}]"
    return out


def _unjudged_lines(gate: dict[str, Any], old_model: str) -> list[tuple[str, dict[str, bool]]]:
    """The games the gate did not judge, each with why."""
    out: list[tuple[str, dict[str, bool]]] = []
    for name in gate.get("missing_from_baseline", []):
        allowed = gate.get("allow_missing")
        hint = " (allowed)" if allowed else " (--gameeval-gate-allow-missing to accept)"
        out.append((f"  {name}: not in the baseline {old_model}{hint}", {"red": not allowed}))
    for name in gate.get("not_gated", []):
        out.append((f"  {name}: not gated (no headline and no --gameeval-gate-metric)", {}))
    for name in gate.get("not_selected", []):
        out.append((f"  {name}: not gated: its gate item was not selected "
                    "(-k, -m, --deselect, node ids, --lf or --sw)", {}))
    for name, why in (gate.get("not_reached") or {}).items():
        out.append((f"  {name}: not gated: its gate item was not reached: {why}", {"yellow": True}))
    for name in gate.get("data_errors", []):
        out.append((f"  {name}: not played (data error)", {"red": True}))
    return out


def _own_tolerance(v: dict[str, Any], gate: dict[str, Any]) -> str:
    """A metric's tolerance when it is its own (GAME.METRIC=higher:TOL; a relative one as fixed from the baseline)."""
    tol = v.get("tolerance")
    return f" (tolerance ±{tol:.3g})" if tol is not None and tol != gate["tolerance"] else ""


def gate_lines(gate: dict[str, Any], new_model: str) -> list[tuple[str, dict[str, bool]]]:
    """The gate's terminal block: (text, markup) per line; markup as pytest's TerminalWriter takes it."""
    old_model = model_of({"models": gate.get("baseline_models") or {}})
    out: list[tuple[str, dict[str, bool]]] = [
        (f"regression gate: {new_model} against the baseline {old_model} ({gate['baseline']}; "
         f"alpha={gate['alpha']}, beta={gate['beta']}, tolerance={gate['tolerance']}, {gate['looks']} looks):", {}),
        (f"  {'game.metric':<26} {'better':<7} {'baseline':>9} {'new':>9} {'change':>8}  {'interval*':<19} "
         f"{'games':>5}  {'design':<11} verdict", {}),
    ]
    for name, g in sorted(gate["games"].items()):
        for metric, v in g["metrics"].items():
            design = "paired" if v.get("paired") else "independent"
            text = (f"  {name + '.' + metric:<26} {v['direction']:<7} {_num(v['old']):>9} {_num(v['new']):>9} "
                    f"{_num(v['change'], True):>8}  {interval(v['ci']):<19} {v.get('games', g['games_used']):>5}  "
                    f"{design:<11} {v['verdict']}")
            text += _own_tolerance(v, gate)
            out.append((text, {"red": v["verdict"] == WORSE, "bold": v["verdict"] == WORSE}))
        if g.get("outcomes"):
            out.append((f"  {name} outcomes (evidence, never decides): {outcomes_text(g['outcomes'])}", {}))
        result = g.get("result", "")
        tail = f": {g['reason']}" if g.get("reason") else ""
        left_out = (f"; {g['cases_deselected']} of its {g['cases_available'] + g['cases_deselected']} cases "
                    "deselected") if g.get("cases_deselected") else ""
        games = (f" after {g['games_used']} of {g['cases_available']} games ({g['games_played']} played, "
                 f"{g['harness_errors']} harness errors; {g['looks_done']} of {g['looks_planned']} looks{left_out})"
                 ) if result != MISSING else ""
        out.append((f"  {name}: {result.upper()} — {new_model} vs {old_model}{games}{tail}",
                    {"red": g["verdict"] == "fail", "green": result in (BETTER, SAME), "yellow": result == UNDECIDED}))
    out.append(("  * two-sided interval of the change at the level of the metric's last test "
                "(1 - 2 x its share of alpha)", {}))
    out += _unjudged_lines(gate, old_model)
    failing = gate_failures(gate)
    results = sorted({g.get("result", "") for g in gate["games"].values()})
    undecided = [n for n, g in sorted(gate["games"].items()) if g.get("result") == UNDECIDED]
    if undecided:
        games = ", ".join(f"{n} ({gate['games'][n]['games_used']} games)" for n in undecided)
        out.append((f"  sample too small to decide: {games}: neither better, worse nor the same within the "
                    f"tolerance at the stated error rates; {TOO_SMALL_HINT}", {"yellow": True}))
    versions = _caveats(gate)
    if failing:
        out.append((f"gameeval gate FAILED ({new_model} vs {old_model}): {'; '.join(failing)}{versions}",
                    {"red": True, "bold": True}))
    elif not results:  # nothing judged, so nothing passed: every gate item left out or not reached
        out.append((f"gameeval gate not applied ({new_model} vs {old_model}): no game judged{versions}",
                    {"yellow": True}))
    else:
        out.append((f"gameeval gate passed ({new_model} vs {old_model}): every game "
                    f"{' or '.join(results)}; none worse beyond its tolerance{versions}",
                    {"green": True, "yellow": bool(gate.get("version_changes"))}))
    return out
