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
# how fresh cases are drawn from the lexicon: bumped whenever the same seed and lexicon files would
# give other cases (fresh/data/README.md's changelog says what changed), so a fresh set stays named
# by (game, seed, lexicon_digest()) and runs of two draws are never compared as the same cases
DRAW_VERSION = 3
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
    """sha256 of the lexicon's files (the number forms among them) and the draw's version
    (DRAW_VERSION): a fresh case set is named by (game, seed, this)."""
    h = hashlib.sha256()
    for name in ("lexicon.jsonl", "taxonomy.json", "number_forms.json"):
        h.update((data_dir() / name).read_bytes())
    h.update(f"draw {DRAW_VERSION}".encode())
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


@lru_cache(maxsize=1)
def _number_forms() -> dict[str, list[str]]:
    """word -> its singular and plural by inflect (data/number_forms.json, scripts/build_number_forms.py):
    read from a file because importing inflect takes seconds."""
    return json.loads((data_dir() / "number_forms.json").read_text(encoding="utf-8"))


def _key(word: str) -> str:
    """Case, spacing and hyphens folded: `Ice-Cream`, `ice cream` and `icecream` alike."""
    return norm(word).replace(" ", "")


@lru_cache(maxsize=None)
def forms(word: str) -> frozenset[str]:
    """The word folded as a reader would hear it (`_key`) with the singular and plural of its last
    word (inflect's: `wings` and `wing`, `geese` and `goose`), for every word a fresh case may show.
    inflect's singular of a word already singular may be no word (`bus` -> `bu`): an extra form
    only makes the check stricter."""
    w = norm(word)
    if not w:
        return frozenset()
    head, _, last = w.rpartition(" ")
    variants = {last, *_number_forms().get(last, ())}
    return frozenset(_key(f"{head} {v}" if head else v) for v in variants)


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
def _published_keys() -> frozenset[str]:
    return frozenset(_key(w) for w in published_words())


def is_published(word: str) -> bool:
    """Whether `word` is a word of a list we ship, folding case, spacing, hyphens and number: the
    word, its singular or its plural (`forms`) is a shipped word folded alike. Only the word asked
    about is inflected (the shipped words are folded by `_key` alone): singular and plural are each
    other's inverse, so `wing` is found beside `wings` and `wings` beside `wing`."""
    return not forms(word).isdisjoint(_published_keys())


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
    """Lexicon words a fresh case may use: in `domains`, neither the word nor an alias a word we
    ship (folded by `forms`: `wing` is out beside Taboo's `wings`)."""
    return [e for w, e in sorted(lexicon().items())
            if e.domain in domains and not is_published(w) and not any(is_published(a) for a in e.aliases)]


def fresh_related(entry: Entry) -> tuple[str, ...]:
    """The entry's related words (Taboo's forbidden words) that are no word we ship."""
    return tuple(r for r in entry.related if not is_published(r))
