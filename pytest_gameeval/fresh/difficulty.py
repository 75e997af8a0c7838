"""How hard a case is, per game, by measures that a fresh case and a published one share.

- a target (Ask-Guess, Taboo, SpyGPT's target): how common the word is (`zipf`: wordfreq's Zipf
  frequency, log10 uses per billion words; rarer words are harder to reach) and how crowded its
  category is (`crowd`: log2 of how many lexicon words share its direct hypernym; more
  near-alternatives to tell apart). SpyGPT adds how close its distractors are (`relatedness`).
- a pair (SpyFall, SpyGame, AGE): how related the two words are (`relatedness`: Wu & Palmer over
  WordNet's hypernyms, fresh/lexicon.py; closer words are harder to tell apart) and how common
  they are (`zipf`, their mean).

A measure a published word cannot have (a brand or phrase WordNet lacks) is None, and is left
out of that measure's distribution (docs/fresh-cases.md counts how many).
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any

from pytest_gameeval.fresh.lexicon import Entry, category_sizes, data_dir, lexicon, norm, relatedness

MEASURES = {
    "askguess": ("zipf", "crowd"), "taboo": ("zipf", "crowd"), "spygpt": ("zipf", "relatedness"),
    "spyfall": ("relatedness", "zipf"), "spygame": ("relatedness", "zipf"), "age": ("relatedness", "zipf"),
}
# the keys of a game's row holding its target, or its two words
TARGET_KEY = {"askguess": "label", "taboo": "word", "spygpt": "target"}
PAIR_KEYS = {"spyfall": ("spy", "villager"), "spygame": ("word_a", "word_b"), "age": ("word_a", "word_b")}


@lru_cache(maxsize=1)
def _published_zipf() -> dict[str, float]:
    return json.loads((data_dir() / "published_zipf.json").read_text(encoding="utf-8"))


def zipf(word: str) -> float | None:
    w = norm(word)
    entry = lexicon().get(w)
    return entry.zipf if entry else _published_zipf().get(w)


def crowd(entry: Entry | None) -> float | None:
    return None if entry is None else round(math.log2(category_sizes()[entry.category]), 3)


def pair_relatedness(a: str, b: str) -> float | None:
    ea, eb = lexicon().get(norm(a)), lexicon().get(norm(b))
    return None if ea is None or eb is None else relatedness(ea, eb)


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 3) if len(known) == len(values) and known else None


def measure(game: str, row: dict[str, Any]) -> dict[str, float | None]:
    """The game's difficulty measures of one data row (its shipped format)."""
    if game in PAIR_KEYS:
        a, b = (row[k] for k in PAIR_KEYS[game])
        return {"relatedness": pair_relatedness(a, b), "zipf": _mean([zipf(a), zipf(b)])}
    target = row[TARGET_KEY[game]]
    if game == "spygpt":
        rel = [pair_relatedness(target, d) for d in row["distractors"]]
        return {"zipf": zipf(target), "relatedness": _mean(rel)}
    return {"zipf": zipf(target), "crowd": crowd(lexicon().get(norm(target)))}
