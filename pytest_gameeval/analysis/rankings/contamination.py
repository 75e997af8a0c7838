"""`gameeval contamination MODEL`: one model on the published cases that have a fresh twin and on
those twins (fresh/), per game the difference of its headline (published − fresh) with interval
and a verdict (probe_test.py): a memorisation signal beyond δ, no sign of memorisation beyond δ,
or undecided with the twins a side that would likely decide it (docs/fresh-cases.md).
"""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.rankings.probe_test import NO_SIGN, SIGNAL, UNDECIDED, probe, twin_means
from pytest_gameeval.fresh.resolve import published_twins_file, resolve_data
from pytest_gameeval.games.registry import get_spec

FRESH, PUBLISHED = "A", "B"  # compare's sides: A the reference (fresh), B the one tested (published)
__all__ = ["FRESH", "NO_SIGN", "PUBLISHED", "SIGNAL", "UNDECIDED", "headline_line", "probe_game", "side_args"]


def side_args(games: list[str], seed: int) -> dict[str, dict[str, dict[str, Any]]]:
    """game -> side -> task arguments: the fresh side plays `fresh:SEED`, the published side the
    published cases that have a twin there, in the same order, so `--limit N` plays N twins on
    each side (a game without fresh cases is one error line before anything is played)."""
    return {game: {FRESH: {"data": resolve_data(game, f"fresh:{seed}")},
                   PUBLISHED: {"data": str(published_twins_file(game, seed))}} for game in games}


def probe_game(game: str, cases: dict[tuple[str, str], list[dict[str, Any]]], *, alpha: float,
               delta: float) -> dict[str, Any]:
    """One game's probe over the played cases of both sides (compare.cases_from_logs' form)."""
    metric = get_spec(game).headline
    result = probe(twin_means(cases.get((game, PUBLISHED), []), metric),
                   twin_means(cases.get((game, FRESH), []), metric), alpha=alpha, delta=delta)
    return {"metric": metric, **result}


def _why(r: dict[str, Any], twins_available: int | None) -> str:
    level = f"{r['confidence']:.0%} interval"
    if r["verdict"] == SIGNAL:
        return f"{level}: the published cases were easier than their fresh twins by more than {r['delta']:g}"
    if r["verdict"] == NO_SIGN:
        return (f"{level}: both one-sided tests at alpha {r['alpha']:g} put the difference within "
                f"±{r['delta']:g}")
    if "ci" not in r:
        return r.get("reason", "nothing to test")
    if r.get("fresh_easier"):
        return (f"{level}: the fresh twins were easier by more than {r['delta']:g}: for this model they are not as "
                "hard as the published cases, and the probe cannot tell memorisation from that")
    need = r.get("twins_needed")
    if need is None:
        return f"{level}: the difference sits at about ±{r['delta']:g}; more twins would hardly decide it"
    have = min(r["n_published"], r["n_fresh"])
    more = (f"about {need} twins a side would likely decide it ({max(need - have, 1)} more)" if need > have
            else "a few more twins a side would likely decide it")
    if twins_available is not None and need > twins_available:
        more += (f"; the game has {twins_available} at this seed: play each more often (--epochs lowers the "
                 "spread of a twin's mean) or widen --tolerance")
    return f"{level}: neither a gap beyond ±{r['delta']:g} nor its absence is shown yet: {more}"


def headline_line(game: str, r: dict[str, Any], twins_available: int | None = None) -> str:
    """`askguess: no sign of memorisation beyond ±0.1: played_quality published 0.41 (82 twins) vs
    fresh 0.43 (82 twins), difference -0.02 [-0.08, +0.04] (why)`."""
    verdict = f"{r['verdict']} beyond ±{r['delta']:g}" if r["verdict"] == NO_SIGN else r["verdict"]
    if "gap" not in r:
        return f"{game}: {verdict} ({_why(r, twins_available)})"
    ci = f" [{r['ci'][0]:+.2f}, {r['ci'][1]:+.2f}]" if "ci" in r else ""
    return (f"{game}: {verdict}: {r['metric']} published {r['published']:.2f} ({r['n_published']} twins) vs fresh "
            f"{r['fresh']:.2f} ({r['n_fresh']} twins), difference {r['gap']:+.2f}{ci} ({_why(r, twins_available)})")
