"""Prompt scans over every SpyFall pair: no seat's prompt holds the other side's word, and no seat
ever sees another seat's private thought."""

import pytest
from prompt_scans import nested_pair, play_marked, scan

from pytest_gameeval.games.registry import get_spec


def test_only_the_milk_pair_is_nested():
    spec = get_spec("spyfall")
    nested = {
        r.data["pair_id"]
        for r in spec.rows(spec.parse_options({}))
        if nested_pair(r.data["spy_word"], r.data["villager_word"])
    }
    assert nested == {"milk-soy-milk"}


@pytest.mark.parametrize("strengths", [{"*": "strong"}, {"evaluated": "random", "*": "strong"}, {"*": "random"}])
def test_spyfall_prompts_never_leak_words_or_thoughts(strengths):
    spec = get_spec("spyfall")
    options = spec.parse_options({})
    rows = [r for r in spec.rows(options) if not nested_pair(r.data["spy_word"], r.data["villager_word"])]
    assert len(rows) >= 100
    for row in rows:
        record, players = play_marked(spec, row, options, strengths)
        scan(record, players)


def test_spyfall_public_voting_and_other_names_scan_clean():
    spec = get_spec("spyfall")
    options = spec.parse_options({"voting": "public", "naming": 2, "source": "paper"})
    for row in spec.rows(options):
        if nested_pair(row.data["spy_word"], row.data["villager_word"]):
            continue
        record, players = play_marked(spec, row, options, {"*": "random"})
        scan(record, players)
