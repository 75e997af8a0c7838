"""The difficulty of fresh cases beside the published ones, per game and measure (docs/fresh-cases.md):
the quartiles of each set and two two-sample Kolmogorov-Smirnov tests (scipy) of the fresh set:
against the published cases with a twin (what it was matched to) and against the whole published
list (which the twinned cases may not represent: the commonest published words have no twin)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from scipy import stats

from pytest_gameeval.fresh.cases import fresh_rows, published_id, published_rows
from pytest_gameeval.fresh.difficulty import MEASURES, measure


def _quartiles(values: list[float]) -> str:
    if not values:
        return "–"
    q = [float(v) for v in stats.scoreatpercentile(values, [25, 50, 75])]
    return f"{q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f}"


# the side of each measure that makes a case harder: rarer words, more crowded kinds, closer pairs
HARDER_WHEN = {"zipf": "lower", "crowd": "higher", "relatedness": "higher"}


def _ks(a: list[float], b: list[float]) -> float | None:
    return round(float(stats.ks_2samp(a, b).pvalue), 3) if a and b else None


@lru_cache(maxsize=64)
def _rows(game: str, seed: int) -> tuple[dict[str, Any], ...]:
    return tuple(difficulty_rows(game, seed))


def twin_to_twin_note(game: str, seed: int, level: float = 0.05) -> str | None:
    """A line for the probe's output when the fresh set is harder than the whole published list
    (KS p below `level`, the medians on the harder side): its comparison is twin to twin."""
    for r in _rows(game, seed):
        whole, fresh = r["published_median"], r["fresh_median"]
        if r["ks_p_whole"] is None or r["ks_p_whole"] >= level or whole is None or fresh is None:
            continue
        if (fresh < whole) == (HARDER_WHEN[r["measure"]] == "lower") and fresh != whole:
            return (f"{game}: the fresh cases are harder than the whole published list by {r['measure']} (median "
                    f"{fresh:.2f} vs {whole:.2f}, KS p {r['ks_p_whole']}): the comparison above is twin to twin, "
                    f"the {r['twinned']} published cases with a twin (of {r['published']}) against their twins, "
                    "which are as hard as each other")
    return None


def _median(values: list[float]) -> float | None:
    return round(float(stats.scoreatpercentile(values, 50)), 3) if values else None


def difficulty_rows(game: str, seed: int) -> list[dict[str, Any]]:
    """One row per measure of `game`: quartiles of the whole published list, of its cases with a
    fresh twin, of the fresh set; the KS p of the fresh set against the twinned cases and against
    the whole list; cases and twins counted."""
    shipped = published_rows(game)
    fresh = fresh_rows(game, seed)
    twinned = {r["twin_of"] for r in fresh}
    published = [measure(game, r) for r in shipped]
    matched = [measure(game, r) for r in shipped if published_id(game, r) in twinned]
    drawn = [measure(game, r) for r in fresh]
    out = []
    for key in MEASURES[game]:
        sets = [[m[key] for m in ms if m[key] is not None] for ms in (published, matched, drawn)]
        out.append({"game": game, "measure": key, "published": len(shipped), "twinned": len(fresh),
                    "unmeasured": len(published) - len(sets[0]), "published_q": _quartiles(sets[0]),
                    "twinned_q": _quartiles(sets[1]), "fresh_q": _quartiles(sets[2]),
                    "ks_p": _ks(sets[1], sets[2]), "ks_p_whole": _ks(sets[0], sets[2]),
                    "published_median": _median(sets[0]), "fresh_median": _median(sets[2])})
    return out


def markdown(rows: list[dict[str, Any]], seed: int) -> str:
    head = ("| game | measure | published cases | with a twin | published: q1 / median / q3 | with a twin | "
            f"fresh (seed {seed}) | KS p: twinned vs fresh | KS p: whole list vs fresh |")
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        unmeasured = f" ({r['unmeasured']} unmeasured)" if r["unmeasured"] else ""
        lines.append(f"| {r['game']} | {r['measure']} | {r['published']}{unmeasured} | {r['twinned']} | "
                     f"{r['published_q']} | {r['twinned_q']} | {r['fresh_q']} | {r['ks_p']} | {r['ks_p_whole']} |")
    return "\n".join(lines)
