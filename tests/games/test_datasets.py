"""Checks for the hand-written game datasets shipped in pytest_gameeval/games/GAME/data/ (plain pytest + json)."""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from pytest_gameeval.engine.data import game_data_dir
from pytest_gameeval.games.registry import GAMES


class _Data:
    """`DATA / "GAME/FILE"`: FILE in the data/ folder of GAME's package."""

    def __truediv__(self, rel: str) -> Path:
        game, _, name = rel.partition("/")
        return game_data_dir(GAMES[game]) / name


DATA = _Data()

ID_RE = re.compile(r"[a-z0-9-]+")

AGE_TOPICS = [
    "business", "entertainment", "sports", "technology", "science",
    "health", "politics", "world", "food", "travel",
]

PAPER_PAIRS = [
    ("ipad", "iphone"), ("guitar", "lute"), ("BMW", "BENZ"), ("eyebrow", "beard"),
    ("grape", "raisins"), ("sea lion", "seal"), ("spider-man", "batman"), ("nike", "adidas"),
    ("milk", "soy milk"), ("motorcycle", "electromobile"), ("tiger", "lion"),
]


def load_jsonl(rel):
    path = DATA / rel
    assert path.is_file(), f"missing dataset file {path}"
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                pytest.fail(f"{rel}:{n}: blank line")
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                pytest.fail(f"{rel}:{n}: invalid JSON: {e}")
            if not isinstance(row, dict):
                pytest.fail(f"{rel}:{n}: not a JSON object")
            rows.append(row)
    return rows


def check_rows(rel, rows, schema):
    """Every row has the keys with the given types; ids are unique and well formed."""
    for n, row in enumerate(rows, start=1):
        for key, typ in schema.items():
            assert key in row, f"{rel}:{n}: missing key {key!r}"
            assert isinstance(row[key], typ), f"{rel}:{n}: {key!r} should be {typ}, got {row[key]!r}"
            if typ is str:
                assert row[key].strip(), f"{rel}:{n}: empty {key!r}"
        if "id" in schema:
            assert ID_RE.fullmatch(row["id"]), f"{rel}:{n}: bad id {row['id']!r}"
    if "id" in schema:
        dup = [i for i, c in Counter(r["id"] for r in rows).items() if c > 1]
        assert not dup, f"{rel}: duplicate ids {dup}"


def str_list(value, where):
    assert isinstance(value, list), f"{where}: not a list"
    for v in value:
        assert isinstance(v, str) and v.strip(), f"{where}: bad entry {v!r}"


def pair_key(a, b):
    return frozenset((a.strip().lower(), b.strip().lower()))


# ---------------------------------------------------------------- spyfall


def test_spyfall_pairs():
    rel = "spyfall/pairs.jsonl"
    rows = load_jsonl(rel)
    check_rows(rel, rows, {"id": str, "spy": str, "villager": str, "domain": str, "source": str})
    got = [(r["spy"], r["villager"]) for r in rows[: len(PAPER_PAIRS)]]
    assert got == PAPER_PAIRS, "the first rows must be the 11 GameEval paper pairs, in order"
    assert all(r["source"] == "paper" for r in rows[: len(PAPER_PAIRS)])
    assert all(r["source"] == "ours" for r in rows[len(PAPER_PAIRS):])
    assert sum(r["source"] == "ours" for r in rows) >= 40
    keys = [pair_key(r["spy"], r["villager"]) for r in rows]
    assert all(len(k) == 2 for k in keys), "a pair has the same word twice"
    assert len(set(keys)) == len(keys), "repeated spyfall pair"
    assert len({r["domain"] for r in rows if r["source"] == "ours"}) >= 6


# ---------------------------------------------------------------- spygame


def test_spygame_pairs():
    rel = "spygame/pairs.jsonl"
    rows = load_jsonl(rel)
    check_rows(rel, rows, {"id": str, "word_a": str, "word_b": str, "domain": str})
    assert len(rows) >= 56
    counts = Counter(r["domain"] for r in rows)
    for dom in ["food", "people", "objects", "places", "animals", "brands", "concepts"]:
        assert counts[dom] >= 8, f"spygame domain {dom} has {counts[dom]} pairs"
    keys = [pair_key(r["word_a"], r["word_b"]) for r in rows]
    assert all(len(k) == 2 for k in keys)
    assert len(set(keys)) == len(keys), "repeated spygame pair"
    spyfall = {pair_key(r["spy"], r["villager"]) for r in load_jsonl("spyfall/pairs.jsonl")}
    both = [sorted(k) for k in keys if k in spyfall]
    assert not both, f"spygame pairs also in spyfall: {both}"


# ---------------------------------------------------------------- spygpt


def test_spygpt_targets():
    rel = "spygpt/targets.jsonl"
    rows = load_jsonl(rel)
    check_rows(rel, rows, {"id": str, "target": str, "distractors": list, "domain": str})
    assert len(rows) >= 44
    assert len({r["domain"] for r in rows}) >= 6
    for n, r in enumerate(rows, start=1):
        str_list(r["distractors"], f"{rel}:{n}")
        ds = [d.lower() for d in r["distractors"]]
        assert len(ds) == 3 and len(set(ds)) == 3, f"{rel}:{n}: need 3 distinct distractors"
        assert r["target"].lower() not in ds, f"{rel}:{n}: target listed as distractor"
    targets = [r["target"].lower() for r in rows]
    assert len(set(targets)) == len(targets), "repeated spygpt target"


# ---------------------------------------------------------------- AGE

AGE_SCHEMA = {"id": str, "topic": str, "word_a": str, "word_b": str,
              "synonyms_a": list, "synonyms_b": list}


def load_age():
    files = {}
    for topic in ["list_a"] + AGE_TOPICS:
        rel = f"age/{topic}.jsonl"
        rows = load_jsonl(rel)
        check_rows(rel, rows, AGE_SCHEMA)
        for n, r in enumerate(rows, start=1):
            assert r["topic"] == topic, f"{rel}:{n}: topic {r['topic']!r}"
            str_list(r["synonyms_a"], f"{rel}:{n} synonyms_a")
            str_list(r["synonyms_b"], f"{rel}:{n} synonyms_b")
        files[topic] = rows
    return files


def test_age_counts():
    files = load_age()
    assert len(files["list_a"]) >= 45
    for topic in AGE_TOPICS:
        assert 49 <= len(files[topic]) <= 60, f"age/{topic}.jsonl has {len(files[topic])} pairs"
    assert sum(len(rows) for rows in files.values()) >= 531


def test_age_unique_ids_and_pairs():
    files = load_age()
    ids = Counter(r["id"] for rows in files.values() for r in rows)
    dup = [i for i, c in ids.items() if c > 1]
    assert not dup, f"AGE ids repeated across files: {dup}"
    seen = {}
    for topic, rows in files.items():
        for n, r in enumerate(rows, start=1):
            k = pair_key(r["word_a"], r["word_b"])
            assert k not in seen, f"age/{topic}.jsonl:{n}: pair {sorted(k)} already in {seen.get(k)}"
            seen[k] = f"age/{topic}.jsonl"


def test_age_no_synonym_pairs():
    files = load_age()
    for topic, rows in files.items():
        for n, r in enumerate(rows, start=1):
            where = f"age/{topic}.jsonl:{n}"
            a, b = r["word_a"].strip().lower(), r["word_b"].strip().lower()
            syn_a = {s.strip().lower() for s in r["synonyms_a"]}
            syn_b = {s.strip().lower() for s in r["synonyms_b"]}
            assert a != b, f"{where}: same word twice"
            assert b not in syn_a, f"{where}: {r['word_b']!r} listed as synonym of {r['word_a']!r}"
            assert a not in syn_b, f"{where}: {r['word_a']!r} listed as synonym of {r['word_b']!r}"
            assert not (syn_a & syn_b), f"{where}: shared synonyms {syn_a & syn_b}"
            assert a not in syn_a and b not in syn_b, f"{where}: word listed as its own synonym"


# ---------------------------------------------------------------- akinator


def test_akinator():
    path = DATA / "akinator/attributes.json"
    with open(path, encoding="utf-8") as f:
        attributes = json.load(f)
    assert isinstance(attributes, dict) and 16 <= len(attributes) <= 40
    for name, question in attributes.items():
        assert re.fullmatch(r"[a-z_]+", name), name
        assert isinstance(question, str) and question.strip().endswith("?"), name
    rel = "akinator/objects.jsonl"
    rows = load_jsonl(rel)
    check_rows(rel, rows, {"id": str, "object": str, "aliases": list, "category": str, "attributes": dict})
    assert len(rows) >= 260
    names = [r["object"].lower() for r in rows]
    assert len(set(names)) == len(names), "repeated akinator object"
    for n, r in enumerate(rows, start=1):
        str_list(r["aliases"], f"{rel}:{n} aliases")
        assert all(a == a.lower() for a in r["aliases"]), f"{rel}:{n}: aliases must be lowercase"
        attrs = r["attributes"]
        missing = set(attributes) - set(attrs)
        extra = set(attrs) - set(attributes)
        assert not missing, f"{rel}:{n}: {r['object']} missing attributes {sorted(missing)}"
        assert not extra, f"{rel}:{n}: {r['object']} unknown attributes {sorted(extra)}"
        bad = [k for k, v in attrs.items() if not isinstance(v, bool)]
        assert not bad, f"{rel}:{n}: non-boolean attributes {bad}"
    vectors = Counter(tuple(r["attributes"][a] for a in attributes) for r in rows)
    unique = sum(1 for r in rows if vectors[tuple(r["attributes"][a] for a in attributes)] == 1)
    assert unique > len(rows) / 2, f"only {unique} of {len(rows)} objects have a unique attribute vector"


# ---------------------------------------------------------------- taboo


def test_taboo_words():
    rel = "taboo/words.jsonl"
    rows = load_jsonl(rel)
    check_rows(rel, rows, {"id": str, "word": str, "category": str, "related": list})
    assert len(rows) >= 210
    assert len({r["category"] for r in rows}) >= 8
    words = [r["word"].lower() for r in rows]
    assert len(set(words)) == len(words), "repeated taboo word"
    for n, r in enumerate(rows, start=1):
        where = f"{rel}:{n}"
        assert " " not in r["word"].strip(), f"{where}: target should be a single word"
        str_list(r["related"], where)
        assert 3 <= len(r["related"]) <= 5, f"{where}: need 3-5 related words"
        for rel_word in r["related"]:
            assert r["word"].lower() not in rel_word.lower(), \
                f"{where}: related word {rel_word!r} contains target {r['word']!r}"


# ---------------------------------------------------------------- bluffing


def test_bluffing_statements():
    rel = "bluffing/statements.jsonl"
    rows = load_jsonl(rel)
    check_rows(rel, rows, {"id": str, "statement": str, "label": bool, "topic": str, "persona": dict})
    assert len(rows) >= 64
    trues = sum(1 for r in rows if r["label"] is True)
    assert trues * 2 == len(rows), f"{trues} true of {len(rows)}: must be exactly half"
    for n, r in enumerate(rows, start=1):
        where = f"{rel}:{n}"
        p = r["persona"]
        assert isinstance(p.get("name"), str) and p["name"].strip(), f"{where}: persona name"
        str_list(p.get("facts"), f"{where} facts")
        assert 4 <= len(p["facts"]) <= 6, f"{where}: need 4-6 facts"
        assert r["statement"].startswith("I"), f"{where}: statement should be first person"
    statements = [r["statement"] for r in rows]
    assert len(set(statements)) == len(statements), "repeated bluffing statement"


# ---------------------------------------------------------------- README


@pytest.mark.parametrize("game", sorted(set(GAMES) - {"tofukingdom"}))  # TofuKingdom deals from the seed: no data
def test_each_games_data_readme_says_how_each_file_was_made(game):
    folder = game_data_dir(GAMES[game])
    files = sorted(p.name for p in folder.glob("*.json*"))
    assert files, f"{folder}: no data files"
    names = ["*.jsonl"] if game == "age" else files  # AGE's eleven lists share one section
    text = (folder / "README.md").read_text(encoding="utf-8")
    missing = [name for name in names if name not in text]
    assert not missing, f"{folder}/README.md has no section for {missing}"
