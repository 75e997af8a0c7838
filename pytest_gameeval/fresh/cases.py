"""Fresh cases per game, in the game's own row format, each the twin of a published case by the
game's difficulty measures (difficulty.py, match.py). Same (game, seed, lexicon) -> same rows on
any machine: every choice comes from one `random.Random` seeded by a string, over sorted lists."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from functools import lru_cache
from itertools import combinations
from typing import Any

from pytest_gameeval.engine.data import game_data_dir, load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.fresh.difficulty import MEASURES, crowd, measure
from pytest_gameeval.fresh.lexicon import Entry, fresh_entries, fresh_related, path, relatedness
from pytest_gameeval.fresh.match import twins

# what a target may be: things a player can picture (Ask-Guess's CIFAR-100 classes are such)
THINGS = ("animal", "artifact", "food", "plant", "object")
PAIRED = (*THINGS, "person")  # pair games also pair people (teacher-student)
# the published list each game's fresh set is matched to (its shipped default)
PUBLISHED = {"askguess": "cifar100.jsonl", "spyfall": "pairs.jsonl", "spygame": "pairs.jsonl",
             "spygpt": "targets.jsonl", "taboo": "words.jsonl", "age": "list_a.jsonl"}
SpyGPTCandidate = tuple[dict[str, Any], tuple[Entry, list[Entry]]]  # (measures, (target, distractors))
TABOO_FORBIDDEN = 4  # forbidden words per Taboo card: the published cards have 4 (two have 5)
GROUP_CAP = 30  # the commonest words of a category family that pair with each other
# the share of the fresh pool a seed draws from, per game (others: all of it). Near the commonest
# published words the pool holds one to five candidates, so with the whole pool every seed would
# give those cases the same twins (seeds 0, 7 and 999999999 all twinned `apple` with `studio`);
# each seed keeping its own half spreads the sets at the cost of the cases left with no candidate
# (docs/fresh-cases.md: twins and the words two seeds share, per game). Taboo's pool (940 nouns) is
# large enough to keep a fifth: at a half its seeds shared 38 % of their cards, at a fifth 17 %,
# with as many twins a seed as its old half-pool gave (61-84 a seed, 59-83 before)
KEEP = {"askguess": 0.5, "taboo": 0.2, "spygpt": 0.5}
# the keys of each game's fresh rows holding a word a player is dealt, shown or may say
SHOWN = {"askguess": ("label", "aliases", "category"), "taboo": ("word", "related", "category"),
         "spygpt": ("target", "distractors", "domain"), "spyfall": ("spy", "villager", "domain"),
         "spygame": ("word_a", "word_b", "domain"), "age": ("word_a", "word_b", "synonyms_a", "synonyms_b")}
# the one kind of shown word that may be a word we ship: a fresh word's kind (Ask-Guess's category,
# the answerer's hint: its WordNet hypernym, "room" for "bedroom"; a domain: animal, food, plant, ...).
# A kind is shared by many words and is never the answer, so naming it leaks no published case
KIND_KEYS = ("category", "domain")


def shown_words(game: str, row: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, word) for every word a fresh row of `game` shows a player."""
    out = []
    for key in SHOWN[game]:
        value = row.get(key)
        out += [(key, v) for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
    return out


def published_rows(game: str) -> list[dict[str, Any]]:
    return load_jsonl(game_data_dir(f"pytest_gameeval.games.{game}") / PUBLISHED[game], {})


def _target_measures(e: Entry) -> dict[str, Any]:
    return {"zipf": e.zipf, "crowd": crowd(e), "domain": e.domain}


def _askguess(e: Entry) -> dict[str, Any]:
    return {"label": e.word, "aliases": list(e.aliases), "homograph": e.homograph, "category": e.category}


def _taboo(e: Entry) -> dict[str, Any]:
    return {"id": e.word, "word": e.word, "category": e.domain, "related": list(fresh_related(e)[:TABOO_FORBIDDEN])}


def _families(entries: list[Entry]) -> dict[int, list[Entry]]:
    """Words grouped by their grandparent in WordNet (tea and coffee: beverage's kin), each group
    its GROUP_CAP commonest words."""
    groups: dict[int, list[Entry]] = defaultdict(list)
    for e in entries:
        p = path(e.synset)
        if len(p) >= 4:
            groups[p[-3]].append(e)
    return {k: sorted(v, key=lambda e: (-e.zipf, e.word))[:GROUP_CAP] for k, v in sorted(groups.items())}


def _pair(a: Entry, b: Entry) -> tuple[dict[str, Any], tuple[Entry, Entry]] | None:
    if a.word == b.word or a.category == b.word or b.category == a.word or a.word in b.word or b.word in a.word:
        return None  # one is the other's kind, or contains it: no pair to tell apart
    return {"relatedness": relatedness(a, b), "zipf": round((a.zipf + b.zipf) / 2, 3), "domain": a.domain}, (a, b)


def _pairs(entries: list[Entry], rng: random.Random) -> list[tuple[dict[str, Any], tuple[Entry, Entry]]]:
    """Close pairs (two words of one family) and, as many, looser ones (two words of one domain
    drawn at random): published pairs range from near-synonyms to words of one broad field."""
    close = [p for g in _families(entries).values() for a, b in combinations(sorted(g, key=lambda e: e.word), 2)
             if (p := _pair(a, b))]
    by_domain: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        by_domain[e.domain].append(e)
    domains = sorted(by_domain)
    loose = []
    for _ in range(len(close)):
        words = by_domain[rng.choice(domains)]
        if (p := _pair(rng.choice(words), rng.choice(words))):
            loose.append(p)
    return close + loose


def _pair_row(game: str, a: Entry, b: Entry) -> dict[str, Any]:
    if game == "spyfall":
        return {"id": f"{a.word}-{b.word}", "spy": a.word, "villager": b.word, "domain": a.domain, "source": "fresh"}
    if game == "spygame":
        return {"id": f"{a.word}-{b.word}", "word_a": a.word, "word_b": b.word, "domain": a.domain}
    return {"id": f"fresh-{a.word}-{b.word}", "topic": "fresh", "word_a": a.word, "word_b": b.word,
            "synonyms_a": [s for s in a.aliases if s != b.word], "synonyms_b": [s for s in b.aliases if s != a.word]}


def _spygpt_candidate(target: Entry, near: list[Entry]) -> SpyGPTCandidate:
    rel = round(sum(relatedness(target, e) for e in near) / 3, 3)
    return {"zipf": target.zipf, "relatedness": rel, "domain": target.domain}, (target, near)


def _spygpt_candidates(entries: list[Entry], rng: random.Random) -> list[SpyGPTCandidate]:
    """Each target with its three closest kin (close distractors) and, as often, with three words
    of its domain drawn at random (loose ones): the published sets hold both."""
    out = []
    by_domain: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        by_domain[e.domain].append(e)
    for group in _families(entries).values():
        for target in group:
            near = sorted((e for e in group if _pair(target, e)),
                          key=lambda e: (-relatedness(target, e), -e.zipf, e.word))
            if len(near) >= 3:
                out.append(_spygpt_candidate(target, near[:3]))
            loose = [e for e in rng.sample(by_domain[target.domain], 6) if _pair(target, e)]
            if len(set(e.word for e in loose[:3])) == 3:
                out.append(_spygpt_candidate(target, loose[:3]))
    return out


def _imputed(rows: list[dict[str, Any]], keys: tuple[str, ...], rng: random.Random) -> list[dict[str, Any]]:
    """A published case a measure cannot reach (a brand WordNet lacks: BMW-BENZ) takes that
    measure from another published case drawn at random, so its twin follows the list's
    distribution rather than any candidate's."""
    out = []
    for row in rows:
        row = dict(row)
        for k in keys:
            known = [r[k] for r in rows if r.get(k) is not None]
            if row.get(k) is None and known:
                row[k] = rng.choice(known)
        out.append(row)
    return out


def _seed_share(game: str, entries: list[Entry], rng: random.Random) -> list[Entry]:
    """The part of the fresh pool this seed draws from (KEEP)."""
    keep = KEEP.get(game, 1.0)
    return [e for e in entries if rng.random() < keep] if keep < 1 else entries


def published_id(game: str, row: dict[str, Any]) -> str:
    return str(row["label"] if game == "askguess" else row["id"])


def fresh_rows(game: str, seed: int) -> list[dict[str, Any]]:
    """The fresh case set of `game` for `seed`: one case per published case that has a twin by the
    game's measures (match.MAX_DISTANCE), in the published list's order; `twin_of` names it."""
    return [json.loads(r) for r in _fresh_lines(game, seed)]


@lru_cache(maxsize=64)
def _fresh_lines(game: str, seed: int) -> tuple[str, ...]:
    """The drawn set, once per process (a draw takes a second or two), as text nobody can mutate."""
    shipped = published_rows(game)
    return tuple(json.dumps({**row, "twin_of": published_id(game, shipped[i])}, sort_keys=True)
                 for i, row in _twins(game, seed, shipped))


def _twins(game: str, seed: int, shipped: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    if game not in MEASURES:
        raise GameEvalError(f"{game}: no fresh cases (docs/fresh-cases.md says which games have them, and why)")
    rng = random.Random(f"gameeval-fresh:{game}:{seed}")
    keys = MEASURES[game]
    published = _imputed([measure(game, r) for r in shipped], keys, rng)
    if game in ("askguess", "taboo"):
        # Taboo's published words include jobs and people: its fresh ones may be people too
        pool = _seed_share(game, fresh_entries(THINGS) if game == "askguess" else [
            e for e in fresh_entries(PAIRED) if len(fresh_related(e)) >= TABOO_FORBIDDEN], rng)
        make = _askguess if game == "askguess" else _taboo
        chosen = twins(published, [(_target_measures(e), e) for e in pool], keys, rng, lambda e: {e.word})
        return [(i, make(e)) for i, e in chosen]
    if game == "spygpt":
        cands = _spygpt_candidates(_seed_share(game, fresh_entries(THINGS), rng), rng)
        chosen = twins(published, cands, keys, rng, lambda c: {c[0].word, *(e.word for e in c[1])})
        return [(i, {"id": t.word, "target": t.word, "distractors": [e.word for e in d], "domain": t.domain})
                for i, (t, d) in chosen]
    chosen = twins(published, _pairs(fresh_entries(PAIRED), rng), keys, rng, lambda ab: {ab[0].word, ab[1].word})
    return [(i, _pair_row(game, *(ab if rng.random() < 0.5 else ab[::-1]))) for i, ab in chosen]
