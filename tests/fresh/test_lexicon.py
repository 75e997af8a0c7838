"""The lexicon in the wheel (issue 61): well-formed, its paths reach the root, its measures mean
what docs/fresh-cases.md says, its licence notice ships beside it."""

from __future__ import annotations

from pytest_gameeval.fresh.lexicon import (
    DRAWABLE,
    data_dir,
    fresh_entries,
    lexicon,
    lexicon_digest,
    path,
    published_words,
    relatedness,
)

ROOT = 1740  # WordNet 3.0's entity.n.01


def test_every_entry_is_well_formed_and_its_path_reaches_entity():
    entries = lexicon()
    assert len(entries) > 4000
    for word, e in entries.items():
        assert word == e.word and word.strip() == word and word
        assert 0 < e.zipf < 8 and e.category and e.domain
        assert path(e.synset)[0] == ROOT and path(e.synset)[-1] == e.synset
        assert all(isinstance(a, str) and a for a in e.aliases + e.related)


def test_enough_nouns_can_be_drawn_in_every_domain():
    drawable = fresh_entries()
    assert len(drawable) > 2000
    assert {e.domain for e in drawable} == set(DRAWABLE)
    assert not {e.word for e in drawable} & published_words()


def test_relatedness_orders_pairs_as_a_reader_would():
    lx = lexicon()
    close = relatedness(lx["tea"], lx["coffee"])
    assert close > relatedness(lx["tea"], lx["chair"]) > 0
    assert relatedness(lx["tea"], lx["tea"]) == 1.0
    assert relatedness(lx["apple"], lx["pear"]) > relatedness(lx["apple"], lx["dog"])


def test_published_words_are_every_shipped_list():
    words = published_words()
    for w in ("apple", "aquarium fish", "tea", "coffee", "bmw", "dog"):
        assert w in words


def test_licence_notice_and_readme_ship_beside_the_data():
    names = {p.name for p in data_dir().iterdir()}
    assert {"lexicon.jsonl", "taxonomy.json", "published_zipf.json", "README.md", "WORDNET-LICENSE"} <= names
    assert "Princeton University" in (data_dir() / "WORDNET-LICENSE").read_text(encoding="utf-8")
    assert len(lexicon_digest()) == 64
