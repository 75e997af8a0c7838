"""Host-side word matching (Ask-Guess correctness, AME) and the AGE Jaro rule."""

import pytest

from pytest_gameeval.engine.matching import jaro_match, mentions, normalize, squash


@pytest.mark.parametrize(
    ("text", "label", "expected"),
    [
        ("Is it an apple?", "apple", True),
        ("Apples.", "apple", True),
        ("Is it a pineapple?", "apple", False),
        ("the apple's core", "apple", True),
        ("APPLE", "apple", True),
        ("Is it a lawn-mower?", "lawn_mower", True),
        ("lawn mowers", "lawn_mower", True),
        ("a lawnmower", "lawn_mower", True),
        ("lawn_mower", "lawn_mower", True),
        ("a lawn", "lawn_mower", False),
        ("Is it a maple tree?", "maple_tree", True),
        ("wolves howl", "wolf", True),
        ("three mice", "mouse", True),
        ("a mousetrap", "mouse", False),
        ("two babies", "baby", True),
        ("foxes", "fox", True),
        ("women", "woman", True),
        ("a man", "woman", False),
        ("Is it a kind of bear?", "bear", True),
        ("the bearded man", "bear", False),
        ("Is it a Cafe?", "café", True),
    ],
)
def test_mentions(text, label, expected):
    assert mentions(text, label) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Can it fly?", False),
        ("I can see it. Can you?", False),
        ("Is it a can?", True),
        ("Is it a tin can?", True),
        ("cans", True),
        ("Can", True),
        ("Is it the can of soup?", True),
    ],
)
def test_homograph_can(text, expected):
    assert mentions(text, "can", homograph=True) is expected


def test_aliases_count():
    assert mentions("Is it a sofa?", "couch", ["sofa"])
    assert not mentions("Is it a sofabed?", "couch", ["sofa"])


@pytest.mark.parametrize(
    ("guess", "target", "synonyms", "expected"),
    [
        ("Mercedes-Benz", "Mercedes Benz", [], True),
        ("mercedes benz", "Mercedes Benz", [], True),
        ("Benz", "Mercedes Benz", ["Benz"], True),
        ("lion", "lion", [], True),
        ("tiger", "lion", [], False),
        ("", "lion", [], False),
    ],
)
def test_jaro_match(guess, target, synonyms, expected):
    assert jaro_match(guess, target, synonyms) is expected


# -- the normal form defeats lookalike letters and invisible characters (issue 18) -------------
@pytest.mark.parametrize("disguised", [
    "\u0430pple",  # Cyrillic a
    "\u0430\u0440\u0440l\u0435",  # Cyrillic a, p, p, e
    "\u03b1pple",  # Greek alpha
    "ap\u200bple",  # zero-width space
    "ap\u00adple",  # soft hyphen
    "\u200eapple\u200f",  # bidi marks
    "\uff41pple",  # fullwidth a
])
def test_lookalikes_and_invisible_characters_mention_the_word(disguised):
    assert mentions(f"It is an {disguised}.", "apple")
    assert squash(disguised) == "apple"


def test_lookalike_normal_form_keeps_other_words_apart():
    assert not mentions("pine\u0430pple", "apple")  # still whole words only
    assert normalize("\u0410PPLE") == "apple"
