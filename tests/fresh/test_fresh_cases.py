"""Fresh case sets (issue 61): the game's own format and checks, the same set for a seed on any
machine, another set for another seed, no word of any list we ship, and the published list's
difficulty (docs/fresh-cases.md's table)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.user_data import check_no_blank_words
from pytest_gameeval.fresh.cases import fresh_rows, published_rows
from pytest_gameeval.fresh.difficulty import MEASURES
from pytest_gameeval.fresh.resolve import fresh_file, fresh_origin, resolve_data
from pytest_gameeval.fresh.table import difficulty_rows
from pytest_gameeval.games.registry import get_spec

GAMES = list(MEASURES)
# the key naming a case: its target, or its pair's id
CASE_KEY = {"askguess": "label", "taboo": "word", "spygpt": "target", "spyfall": "id", "spygame": "id", "age": "id"}


@pytest.mark.parametrize("game", GAMES)
def test_a_fresh_set_is_the_games_own_format_and_passes_its_checks(game, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEEVAL_FRESH_CACHE", str(tmp_path))
    spec = get_spec(game)
    path = resolve_data(game, "fresh:11")
    check_no_blank_words(path)
    rows = spec.select_rows(spec.parse_options({"data": path}))
    # a Taboo seed draws from a fifth of its pool (unpublished nouns with four unpublished neighbours),
    # the common published words find few twins: docs/fresh-cases.md counts the twins per game (61-84)
    assert len(rows) >= (0.25 if game == "taboo" else 0.45) * len(published_rows(game))
    assert fresh_origin(path)["seed"] == 11


# the most two seeds' sets share on average (docs/fresh-cases.md states the measured share over 20 seeds:
# Ask-Guess 24 %, Taboo 17 %, SpyGPT 19 %): near the commonest published words the pools hold few
# candidates
SHARED_AT_MOST = {"askguess": 0.3, "taboo": 0.25, "spygpt": 0.25, "spyfall": 0.1, "spygame": 0.1, "age": 0.1}


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_cases_other_seed_other_cases(game):
    assert fresh_rows(game, 5) == fresh_rows(game, 5)
    sets = [{r[CASE_KEY[game]] for r in fresh_rows(game, seed)} for seed in range(5)]
    shares = [len(a & b) / min(len(a), len(b)) for i, a in enumerate(sets) for b in sets[i + 1:]]
    assert sum(shares) / len(shares) < SHARED_AT_MOST[game], shares


def test_the_same_set_in_another_process_with_other_hash_seeds(tmp_path):
    """Any machine: another interpreter, other string hashing, another cache folder -> the same bytes."""
    code = ("import sys; from pytest_gameeval.fresh.resolve import fresh_file; "
            "sys.stdout.write(fresh_file('spyfall', 4).read_text())")
    texts = []
    for hash_seed in ("1", "987"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "GAMEEVAL_FRESH_CACHE": str(tmp_path / hash_seed)}
        texts.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout)
    assert texts[0] == texts[1] and texts[0].count("\n") > 30


def test_a_tampered_cache_file_is_rewritten(tmp_path, monkeypatch):
    """A file we did not write is not believed: the cached set is compared with the draw."""
    monkeypatch.setenv("GAMEEVAL_FRESH_CACHE", str(tmp_path))
    fresh_file.cache_clear()
    path = fresh_file("askguess", 2)
    good = path.read_text(encoding="utf-8")
    path.write_text('{"label": "apple", "aliases": [], "homograph": false}\n', encoding="utf-8")
    fresh_file.cache_clear()
    assert fresh_file("askguess", 2).read_text(encoding="utf-8") == good
    fresh_file.cache_clear()


@pytest.mark.parametrize("value", ["fresh:", "fresh:x", "fresh:-1", "fresh:1.5", "fresh:1 2"])
def test_a_bad_fresh_value_is_one_clear_error(value):
    with pytest.raises(GameEvalError, match="fresh:SEED"):
        resolve_data("askguess", value)


@pytest.mark.parametrize("game", ["akinator", "bluffing", "tofukingdom"])
def test_a_game_without_fresh_cases_says_why(game):
    with pytest.raises(GameEvalError, match=f"{game}: no fresh cases: "):
        resolve_data(game, "fresh:1")


@pytest.mark.parametrize("game", GAMES)
def test_fresh_cases_are_as_hard_as_their_published_twins(game):
    """Each measure's distribution: published cases with a twin vs the fresh set, Kolmogorov-Smirnov
    p above 0.01 on three seeds (docs/fresh-cases.md prints the table)."""
    for seed in range(3):
        for row in difficulty_rows(game, seed):
            assert row["ks_p"] is not None and row["ks_p"] > 0.01, row


def test_each_fresh_case_names_its_published_twin():
    for game in GAMES:
        ids = [r["twin_of"] for r in fresh_rows(game, 0)]
        assert len(ids) == len(set(ids))
        shipped = [json.dumps(r, sort_keys=True) for r in published_rows(game)]
        assert ids and all(any(i in s for s in shipped) for i in ids)


def test_the_docs_difficulty_table_is_the_commands_output():
    """docs/fresh-cases.md's table is `gameeval fresh difficulty --seed 0`, both KS columns."""
    from pathlib import Path

    from pytest_gameeval.fresh.table import markdown

    doc = (Path(__file__).resolve().parents[2] / "docs" / "fresh-cases.md").read_text(encoding="utf-8")
    table = markdown([row for game in GAMES for row in difficulty_rows(game, 0)], 0)
    assert table in doc


def test_the_probe_says_twin_to_twin_where_fresh_is_harder_than_the_whole_list():
    from pytest_gameeval.fresh.table import twin_to_twin_note

    note = twin_to_twin_note("taboo", 0)
    assert note is not None and "the comparison above is twin to twin" in note and "KS p 0.0" in note
    assert twin_to_twin_note("age", 0) is None  # AGE's fresh pairs match the whole list (KS p 0.897)
