"""The pytest terminal summary's words: per game, its rates with 95% intervals; for the gate,
whether the sample was large enough to decide anything. Pure functions over the report."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.gate import NOT_REGRESSED, REGRESSED
from pytest_gameeval.metrics.stats import mean, rate

TOO_SMALL_HINT = "play more games (--gameeval-trials N, or --gameeval-limit 0 for every row)"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.3g}"


def _binary(values: list[float]) -> bool:
    return all(v in (0.0, 1.0) for v in values)


def estimate(values: list[float]) -> tuple[str, str]:
    """(value, 95% interval) as text: a Wilson interval for 0/1 values, Student t otherwise."""
    if _binary(values):
        r = rate(int(sum(values)), len(values))
        return _pct(r["value"]), f"[{_pct(r['ci'][0])}, {_pct(r['ci'][1])}]"
    m = mean(values)
    lo, hi = m["ci"]
    return _num(m["value"]), ("–" if lo is None else f"[{_num(lo)}, {_num(hi)}]")


def game_lines(name: str, game: dict[str, Any], cases: list[dict[str, Any]], headline: str | None = None) -> list[str]:
    """A game's block: counts, the headline metric and each outcome rate, with 95% intervals."""
    played = [c for c in cases if c.get("status") == "played" and isinstance(c.get("scores"), dict)]
    lines = [f"{name}: {game['cases_played']} played, {game['cases_error']} harness errors"]
    if not played:
        return lines + ["  no game was played: nothing to estimate"]
    keys = ([headline] if headline and headline not in game["rate_keys"] else []) + list(game["rate_keys"])
    width = max(len(k) for k in keys)
    lines.append(f"  {'metric':<{width}}  {'value':>7}  {'95% interval':<17} games")
    for key in keys:
        values = [float(c["scores"][key]) for c in played if isinstance(c["scores"].get(key), (int, float))]
        values = [v for v in values if v == v]  # NaN: undefined for that game
        if not values:
            continue
        value, interval = estimate(values)
        count = f"{int(sum(values))}/{len(values)}" if _binary(values) else str(len(values))
        mark = "  (headline)" if key == headline else ""
        lines.append(f"  {key:<{width}}  {value:>7}  {interval:<17} {count}{mark}")
    return lines


def undecided(gate: dict[str, Any]) -> list[str]:
    """Games whose every gated metric ended undecided (neither regressed nor shown not to be)."""
    out = []
    for name, g in sorted(gate["games"].items()):
        verdicts = [v["verdict"] for v in g["metrics"].values()]
        if verdicts and not any(v in (REGRESSED, NOT_REGRESSED) for v in verdicts):
            out.append(name)
    return out


def too_small_line(names: list[str], gate: dict[str, Any]) -> str:
    games = ", ".join(f"{n} ({gate['games'][n]['games_used']} games)" for n in names)
    return (f"  sample too small to decide: {games}: no gated metric was shown regressed or not regressed at "
            f"the stated error rates; {TOO_SMALL_HINT}")
