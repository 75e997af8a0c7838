"""A fresh case set matched to a published list: one fresh twin per published case, a candidate
near it by the game's difficulty measures, so the two sets' distributions agree
(docs/fresh-cases.md shows them side by side)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Measures = dict[str, Any]
NEAREST = 40  # a twin is drawn among this many nearest candidates (within MAX_DISTANCE): seeds differ widely
# the farthest a twin may lie from its published case (each measure scaled by its range: about 0.2 Zipf,
# 0.07 relatedness or half a step of crowd): a published case with none so near has no twin (the
# commonest nouns are mostly published already; docs/fresh-cases.md counts them per game)
MAX_DISTANCE = 0.08


def _matrix(rows: Sequence[Measures], keys: Sequence[str]) -> np.ndarray:
    """rows x keys, NaN where a measure is unknown."""
    return np.array([[np.nan if r.get(k) is None else float(r[k]) for k in keys] for r in rows], dtype=float)


def _distances(case: np.ndarray, cands: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Scaled L1 distance of every candidate to the case, over the measures the case has (the
    published lists' domains are their own words, not WordNet's, so they are not compared)."""
    known = ~np.isnan(case)
    return (np.abs(cands[:, known] - case[known]) / scales[known]).sum(axis=1)


def _balanced(case: np.ndarray, cands: np.ndarray, near: np.ndarray, rng: random.Random) -> np.ndarray:
    """The near candidates on one side of the case's first measure, the side drawn by a coin: rarer
    candidates outnumber commoner ones near any case, and a uniform draw among them would make the
    fresh set rarer than the published one on the whole."""
    if np.isnan(case[0]):
        return near
    below, above = near[cands[near, 0] <= case[0]], near[cands[near, 0] > case[0]]
    first = (below, above)[rng.random() < 0.5]
    return first if len(first) else (below if len(below) else above)


def twins(published: list[Measures], candidates: list[tuple[Measures, Any]], keys: Sequence[str],
          rng: random.Random, words_of: Callable[[Any], set[str]]) -> list[tuple[int, Any]]:
    """(index of the published case, its twin) for each published case that has one: a candidate
    within MAX_DISTANCE by `keys`, drawn among the NEAREST nearest; no word is used twice across
    the set; in the published list's order. Cases in the sparsest neighbourhoods choose first (the
    few fresh words near the commonest published ones go to the cases that need them), ties in a
    seeded order."""
    if not candidates:
        return []
    cands = _matrix([m for m, _ in candidates], keys)
    spread = np.nanmax(cands, axis=0) - np.nanmin(cands, axis=0)
    scales = np.where(spread > 0, spread, 1.0)
    cases = _matrix(published, keys)
    holders: dict[str, list[int]] = defaultdict(list)  # word -> the candidates that use it
    for j, (_, c) in enumerate(candidates):
        for w in words_of(c):
            holders[w].append(j)
    free = np.ones(len(candidates), dtype=bool)
    ties = list(range(len(published)))
    rng.shuffle(ties)
    k = min(NEAREST, len(candidates)) - 1
    sparsity = {i: float(np.partition(_distances(cases[i], cands, scales), k)[k]) for i in ties}
    out: list[tuple[int, Any]] = []
    for i in sorted(ties, key=lambda i: -sparsity[i]):
        d = np.where(free, _distances(cases[i], cands, scales), np.inf)
        near = np.argsort(d, kind="stable")[:NEAREST]
        near = near[d[near] <= MAX_DISTANCE]
        if not len(near):
            continue
        j = int(rng.choice(list(_balanced(cases[i], cands, near, rng))))
        for w in words_of(candidates[j][1]):
            free[holders[w]] = False
        out.append((i, candidates[j][1]))
    return sorted(out, key=lambda ic: ic[0])
