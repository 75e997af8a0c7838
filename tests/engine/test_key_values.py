"""KEY=VALUE arguments: one reader for every front end and command (engine/key_values.py)."""

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.key_values import key_value_pairs


def test_pairs_keep_their_order_and_are_stripped_and_the_value_may_hold_an_equals_sign():
    assert key_value_pairs([" a = 1", "b=x=y", "a=2"], "-T") == [("a", "1"), ("b", "x=y"), ("a", "2")]
    assert dict(key_value_pairs(["a=1", "a=2"], "-T")) == {"a": "2"}  # the later one wins


@pytest.mark.parametrize("bad", ["novalue", "=1", " =1", "a=", "a= "])
def test_a_malformed_pair_is_one_line_naming_the_flag(bad):
    with pytest.raises(GameEvalError, match=r"^--gameeval-option .*: expected KEY=VALUE$"):
        key_value_pairs(["ok=1", bad], "--gameeval-option")


def test_an_empty_value_only_where_the_command_allows_it():
    assert key_value_pairs(["hint="], "-T", allow_empty_value=True) == [("hint", "")]
    with pytest.raises(GameEvalError):
        key_value_pairs(["=x"], "-T", allow_empty_value=True)
