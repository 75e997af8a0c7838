"""The difficulty of fresh cases beside the published ones, per game and measure (docs/fresh-cases.md):
the quartiles of each set and a two-sample Kolmogorov-Smirnov test (scipy) of published cases
with a twin against their fresh twins."""

from __future__ import annotations

from typing import Any

from scipy import stats

from pytest_gameeval.fresh.cases import fresh_rows, published_id, published_rows
from pytest_gameeval.fresh.difficulty import MEASURES, measure


def _quartiles(values: list[float]) -> str:
    if not values:
        return "–"
    q = [float(v) for v in stats.scoreatpercentile(values, [25, 50, 75])]
    return f"{q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f}"


def difficulty_rows(game: str, seed: int) -> list[dict[str, Any]]:
    """One row per measure of `game`: quartiles of the whole published list, of its cases with a
    fresh twin, of the fresh set; the KS p of the last two; cases and twins counted."""
    shipped = published_rows(game)
    fresh = fresh_rows(game, seed)
    twinned = {r["twin_of"] for r in fresh}
    published = [measure(game, r) for r in shipped]
    matched = [measure(game, r) for r in shipped if published_id(game, r) in twinned]
    drawn = [measure(game, r) for r in fresh]
    out = []
    for key in MEASURES[game]:
        sets = [[m[key] for m in ms if m[key] is not None] for ms in (published, matched, drawn)]
        ks = stats.ks_2samp(sets[1], sets[2]).pvalue if sets[1] and sets[2] else None
        out.append({"game": game, "measure": key, "published": len(shipped), "twinned": len(fresh),
                    "unmeasured": len(published) - len(sets[0]), "published_q": _quartiles(sets[0]),
                    "twinned_q": _quartiles(sets[1]), "fresh_q": _quartiles(sets[2]),
                    "ks_p": None if ks is None else round(float(ks), 3)})
    return out


def markdown(rows: list[dict[str, Any]], seed: int) -> str:
    head = ("| game | measure | published cases | with a twin | published: q1 / median / q3 | with a twin | "
            f"fresh (seed {seed}) | KS p (twinned vs fresh) |")
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        unmeasured = f" ({r['unmeasured']} unmeasured)" if r["unmeasured"] else ""
        lines.append(f"| {r['game']} | {r['measure']} | {r['published']}{unmeasured} | {r['twinned']} | "
                     f"{r['published_q']} | {r['twinned_q']} | {r['fresh_q']} | {r['ks_p']} |")
    return "\n".join(lines)
