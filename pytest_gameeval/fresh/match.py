"""A fresh case set matched to a published list: one fresh twin per published case, the
candidate nearest to it by the game's difficulty measures, so the two sets' distributions agree
(docs/fresh-cases.md shows them side by side)."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence
from typing import Any

Measures = dict[str, Any]
NEAREST = 40  # a twin is drawn among this many nearest candidates (within MAX_DISTANCE): seeds differ widely
# the farthest a twin may lie from its published case (scaled measures: about 0.3 Zipf, or 0.1 in
# relatedness, or one step of crowd): a published case with none so near has no twin (the
# commonest nouns are mostly published already; docs/fresh-cases.md counts them per game)
MAX_DISTANCE = 0.12


def _spread(values: list[float]) -> float:
    lo, hi = min(values), max(values)
    return (hi - lo) or 1.0


def _scales(rows: Sequence[Measures], keys: Sequence[str]) -> dict[str, float]:
    return {k: _spread([r[k] for r in rows if r.get(k) is not None] or [0.0, 1.0]) for k in keys}


def _distance(a: Measures, b: Measures, keys: Sequence[str], scales: dict[str, float]) -> float:
    """Scaled distance over the measures both have (the published lists' domains are their own
    words, not WordNet's, so they are not compared)."""
    return sum(abs(a[k] - b[k]) / scales[k] for k in keys if a.get(k) is not None and b.get(k) is not None)


def _balanced(case: Measures, near: list[tuple[Measures, Any]], key: str, rng: random.Random) -> list:
    """The near candidates on one side of the case's first measure, the side drawn by a coin: rarer
    candidates outnumber commoner ones near any case, and a uniform draw among them would make the
    fresh set rarer than the published one on the whole."""
    if case.get(key) is None:
        return near
    sides = ([mc for mc in near if mc[0][key] <= case[key]], [mc for mc in near if mc[0][key] > case[key]])
    first = sides[rng.random() < 0.5]
    return first or sides[0] or sides[1]


def twins(published: list[Measures], candidates: list[tuple[Measures, Any]], keys: Sequence[str],
          rng: random.Random, words_of: Callable[[Any], set[str]]) -> list[tuple[int, Any]]:
    """(index of the published case, its twin) for each published case that has one: a candidate
    within MAX_DISTANCE by `keys`, chosen at random among the NEAREST nearest; no word is used twice
    across the set; in the published list's order. Cases in the sparsest neighbourhoods choose
    first (the commonest words are mostly published already: the few fresh ones left go to the
    published cases that need them), ties in a seeded order."""
    scales = _scales([m for m, _ in candidates], keys)
    used: set[str] = set()
    out: list[tuple[int, Any]] = []
    ties = list(range(len(published)))
    rng.shuffle(ties)

    def sparsity(i: int) -> float:
        near = heapq.nsmallest(NEAREST, (_distance(published[i], m, keys, scales) for m, _ in candidates))
        return -near[-1] if near else 0.0

    order = sorted(ties, key=sparsity)
    for i in order:
        free = [(m, c) for m, c in candidates if not words_of(c) & used]
        if not free:
            break
        nearest = [mc for mc in heapq.nsmallest(NEAREST, free, key=lambda mc: _distance(published[i], mc[0], keys, scales))
                   if _distance(published[i], mc[0], keys, scales) <= MAX_DISTANCE]
        if not nearest:
            continue
        _, chosen = rng.choice(_balanced(published[i], nearest, keys[0], rng))
        used |= words_of(chosen)
        out.append((i, chosen))
    return sorted(out, key=lambda ic: ic[0])
