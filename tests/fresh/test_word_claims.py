"""docs/fresh-cases.md's claims word by word (issue 69): no word a fresh case shows (secrets, pairs,
aliases, Taboo's forbidden words, distractors, synonyms) is a word we ship, folding case, spacing,
hyphens and number; only a kind (KIND_KEYS: a category or domain) may be one. Seeds up to 2**63-1
are taken, and two seeds share the cases the docs say."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.fresh.cases import KIND_KEYS, SHOWN, fresh_rows, shown_words
from pytest_gameeval.fresh.lexicon import data_dir, forms, is_published
from pytest_gameeval.fresh.resolve import MAX_SEED, NO_FRESH, fresh_seed

GAMES = list(SHOWN)
ROOT = Path(__file__).resolve().parents[2]


def shipped_words_shown(game: str, seed: int) -> list[tuple[str, str]]:
    """(key, word) of every shown word of the set that is a word we ship, kinds left out."""
    return [(k, w) for row in fresh_rows(game, seed) for k, w in shown_words(game, row)
            if k not in KIND_KEYS and is_published(w)]


def test_folding_catches_what_the_audit_found():
    # issue 69's cases: Taboo's `wings` beside a fresh `wing`, a published word as a forbidden one
    assert is_published("wing") and is_published("Wings") and is_published("supermarket")
    assert forms("Ice-Cream") == forms("ice cream") >= {"icecream"}
    assert {"goose", "geese"} <= forms("goose")  # irregular plurals, by inflect
    assert not is_published("studio")


@pytest.mark.parametrize("game", GAMES)
def test_no_shown_word_is_a_word_we_ship_on_three_seeds(game):
    for seed in range(3):
        assert not shipped_words_shown(game, seed), (game, seed)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_no_shown_word_is_a_word_we_ship_on_100_seeds(game):
    """The claim over 100 seeds per game (~20-60 s a game on 2 cores)."""
    found = {seed: words for seed in range(100) if (words := shipped_words_shown(game, seed))}
    assert not found, found


def test_taboo_cards_forbid_four_unshipped_words():
    for row in fresh_rows("taboo", 0):
        assert len(row["related"]) == 4 and not any(is_published(w) for w in row["related"]), row


@pytest.mark.slow  # inflect's import and 15,000 calls: 8 s idle, 40 s on 2 busy cores
def test_the_number_forms_file_is_what_inflect_gives():
    """data/number_forms.json is scripts/build_number_forms.py's output on the shipped lexicon."""
    spec = importlib.util.spec_from_file_location("build_number_forms", ROOT / "scripts" / "build_number_forms.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (data_dir() / "number_forms.json").read_text(encoding="utf-8") == module.render()


@pytest.mark.parametrize("seed", [0, 10**9, 2**63 - 1])
def test_any_seed_up_to_2_63_is_taken(seed):
    assert fresh_seed("askguess", f"fresh:{seed}") == seed
    assert fresh_rows("spyfall", seed)


@pytest.mark.parametrize("seed", [str(2**63), "9" * 5000])
def test_a_seed_past_the_limit_names_the_limit(seed):
    with pytest.raises(GameEvalError, match=f"from 0 to 2\\*\\*63-1 \\({MAX_SEED}\\)"):
        fresh_seed("askguess", f"fresh:{seed}")


def test_akinator_says_its_true_attribute_count():
    import json

    from pytest_gameeval.engine.data import game_data_dir

    attributes = json.loads((game_data_dir("pytest_gameeval.games.akinator") / "attributes.json").read_text())
    assert f"with {len(attributes)} yes/no attributes" in NO_FRESH["akinator"]


def test_the_commands_name_the_seed_limit_in_one_line():
    import subprocess
    import sys

    for argv in (["fresh", "show", "askguess", "--seed", str(2**63)], ["contamination", "m", "--fresh-seed", "-1"]):
        run = subprocess.run([sys.executable, "-m", "pytest_gameeval.cli", *argv], capture_output=True, text=True)
        assert run.returncode == 2 and run.stderr.strip().endswith(f"from 0 to 2**63-1 ({MAX_SEED})"), run.stderr
