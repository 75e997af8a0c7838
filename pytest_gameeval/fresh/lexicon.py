"""The lexicon in the wheel and what is measured on it: a word's entry, its hypernym path,
how related two words are, and every word our shipped lists (the published ones) hold."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pytest_gameeval.engine.data import game_data_dir, load_jsonl

PACKAGE = "pytest_gameeval.fresh"
DRAWABLE = ("animal", "artifact", "food", "plant", "object", "body", "substance", "person")


@dataclass(frozen=True)
class Entry:
    word: str
    aliases: tuple[str, ...]
    category: str  # the word's direct hypernym, e.g. "pot" for "teapot"
    domain: str  # WordNet's broad domain (lexicographer file) of its main sense: animal, food, ...
    zipf: float  # wordfreq's Zipf frequency: log10 of uses per billion words
    homograph: bool
    synset: int
    related: tuple[str, ...]


def data_dir() -> Path:
    return Path(str(resources.files(PACKAGE) / "data"))


@lru_cache(maxsize=1)
def lexicon() -> dict[str, Entry]:
    rows = load_jsonl(data_dir() / "lexicon.jsonl", {"word": str, "zipf": float, "synset": int}, unique="word")
    return {r["word"]: Entry(r["word"], tuple(r["aliases"]), r["category"], r["domain"], r["zipf"],
                             r["homograph"], r["synset"], tuple(r["related"])) for r in rows}


@lru_cache(maxsize=1)
def _parents() -> dict[int, int]:
    raw = json.loads((data_dir() / "taxonomy.json").read_text(encoding="utf-8"))
    return {int(k): int(v) for k, v in raw.items()}


@lru_cache(maxsize=1)
def lexicon_digest() -> str:
    """sha256 of the lexicon's two files: a fresh case set is named by (game, seed, this)."""
    h = hashlib.sha256()
    for name in ("lexicon.jsonl", "taxonomy.json"):
        h.update((data_dir() / name).read_bytes())
    return h.hexdigest()


@lru_cache(maxsize=None)
def path(synset: int) -> tuple[int, ...]:
    """The synset's hypernym path from the root (entity) down to itself."""
    parents, out = _parents(), [synset]
    while out[-1] in parents:
        out.append(parents[out[-1]])
    return tuple(reversed(out))


def relatedness(a: Entry, b: Entry) -> float:
    """Wu & Palmer's similarity over the lexicon's hypernym paths: 2 x depth of the deepest
    common ancestor / (depth of a + depth of b), depths counted from the root as 1. 1.0 for one
    synset; tea-coffee 0.89, apple-pear 0.92, guitar-lute 0.91 (co-kinds), dog-chair 0.38."""
    pa, pb = path(a.synset), path(b.synset)
    common = 0
    for x, y in zip(pa, pb):
        if x != y:
            break
        common += 1
    return round(2 * common / (len(pa) + len(pb)), 4)


@lru_cache(maxsize=1)
def category_sizes() -> dict[str, int]:
    """category -> how many lexicon words share it (a target's crowd: how many near-alternatives)."""
    sizes: dict[str, int] = {}
    for e in lexicon().values():
        sizes[e.category] = sizes.get(e.category, 0) + 1
    return sizes


def norm(word: str) -> str:
    return " ".join(word.lower().replace("_", " ").replace("-", " ").split())


# the keys of each game's shipped rows that hold words a player sees or says
WORD_KEYS = {
    "askguess": ("label", "aliases"), "spyfall": ("spy", "villager"), "spygame": ("word_a", "word_b"),
    "spygpt": ("target", "distractors"), "taboo": ("word", "related"),
    "age": ("word_a", "word_b", "synonyms_a", "synonyms_b"), "akinator": ("object", "aliases"),
}


def _words_of(row: dict, keys: tuple[str, ...]) -> set[str]:
    out: set[str] = set()
    for key in keys:
        value = row.get(key)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str):
                out.add(norm(v))
    return out


@lru_cache(maxsize=1)
def published_words() -> frozenset[str]:
    """Every word of every list we ship (the papers' lists and ours), normalised: a fresh case
    uses none of them, nor a word whose aliases are among them."""
    out: set[str] = set()
    for game, keys in WORD_KEYS.items():
        folder = game_data_dir(f"pytest_gameeval.games.{game}")
        for file in sorted(folder.glob("*.jsonl")):
            for row in load_jsonl(file, {}):
                out |= _words_of(row, keys)
    return frozenset(out)


def fresh_entries(domains: tuple[str, ...] = DRAWABLE) -> list[Entry]:
    """Lexicon words a fresh case may use: in `domains`, not published, no alias published."""
    taken = published_words()
    return [e for w, e in sorted(lexicon().items())
            if e.domain in domains and w not in taken and not taken & {norm(a) for a in e.aliases}]
