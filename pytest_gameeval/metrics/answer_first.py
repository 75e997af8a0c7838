"""A game's result as a reader wants it first (issue 68): the headline with its 95% interval and n,
the outcomes that explain it, the turn-level measure, the cost; each front passes its numbers in
(inspect's metrics, the plugin's report) and prints these lines before any detail. Pure text."""

from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH = 80  # the narrowest terminal a reader has: every line fits in it


@dataclass
class Estimate:
    """One score key over a run's games: its mean, 95% interval (None where not computed) and n."""

    value: float
    n: int
    low: float | None = None
    high: float | None = None


def _num(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.3f}"


def _usable(est: Estimate | None) -> bool:
    """An estimate with a value: no game finished (a sample limit stopped them all) gives NaN."""
    return est is not None and est.n > 0 and math.isfinite(est.value)


def headline_line(game: str, key: str, est: Estimate | None) -> str:
    if not _usable(est):
        return f"{game}: {key}: no game was played"
    interval = "" if est.low is None else f" [{_num(est.low)}, {_num(est.high)}]"
    return f"{game}: {key} {_num(est.value)}{interval} over n={est.n} games  (headline)"


def outcomes_line(outcomes: dict[str, Estimate], played: Estimate | None, quality: Estimate | None) -> list[str]:
    """The outcomes that happened, most frequent first, then the ones that never did: why the
    headline is what it is (and whether the games were played at all)."""
    parts = []
    if played is not None and _usable(played):
        parts.append(f"played {round(played.value * played.n)}/{played.n}")
        if quality is not None and _usable(quality):
            parts[-1] += f" (quality {_num(quality.value)})"
    seen = sorted(((round(e.value * e.n), k, e.n) for k, e in outcomes.items() if _usable(e) and e.value > 0),
                  reverse=True)
    parts += [f"{k} {count}/{n}" for count, k, n in seen]
    never = [k for k, e in outcomes.items() if not (_usable(e) and e.value > 0)]
    if never:
        parts.append("none " + " ".join(never))
    return _wrap("  outcomes  ", parts)


def _wrap(head: str, parts: list[str]) -> list[str]:
    lines, line = [], head
    for part in parts:
        piece = part if line == head else f", {part}"
        if len(line) + len(piece) > WIDTH and line != head:
            lines.append(line + ",")
            line = " " * len(head) + part
        else:
            line += piece
    return [*lines, line]


def turn_line(key: str, est: Estimate | None) -> str | None:
    if not _usable(est):
        return None
    interval = "" if est.low is None else f" [{_num(est.low)}, {_num(est.high)}]"
    return f"  turns     {key} {_num(est.value)}{interval} over {est.n} games"


def cost_line(total: float | None, priced: int) -> str:
    if total is None or not priced:
        return "  cost      not priced (no price for a model: --model-cost-config)"
    return f"  cost      ${total:.4f} over {priced} games (${total / priced:.4f} a game)"


def answer_lines(game: str, headline: str, estimates: dict[str, Estimate], outcome_labels: tuple[str, ...],
                 turn_key: str | None, cost: tuple[float | None, int]) -> list[str]:
    """The block a front prints first for one game: headline, outcomes, turn-level measure, cost."""
    lines = [headline_line(game, headline, estimates.get(headline))]
    outcomes = {k: estimates[k] for k in outcome_labels if k in estimates}
    lines += outcomes_line(outcomes, estimates.get("played"), estimates.get("quality"))
    turns = turn_line(turn_key, estimates.get(turn_key)) if turn_key else None
    if turns:
        lines.append(turns)
    lines.append(cost_line(*cost))
    return lines
