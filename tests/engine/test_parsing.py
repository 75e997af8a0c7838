"""The tolerant chain-of-thought JSON extractor."""

import pytest

from pytest_gameeval.engine.errors import ParseError
from pytest_gameeval.engine.parsing import json_objects, last_json_object, parse_cot, plain_text


def test_plain_object():
    assert parse_cot('{"thought": "t", "speak": "s"}', "thought", "speak") == {"thought": "t", "speak": "s"}


def test_code_fence_and_prose_around():
    text = 'Sure!\n```json\n{"thought": "hmm", "speak": "Is it red?"}\n```\nHope that helps.'
    assert parse_cot(text, "thought", "speak")["speak"] == "Is it red?"


def test_last_complete_object_wins():
    text = '{"thought": "a", "speak": "first"} wait, correction: {"thought": "b", "speak": "second"} {"broken": '
    assert parse_cot(text, "thought", "speak")["speak"] == "second"


def test_nested_objects_belong_to_their_parent():
    text = '{"thought": "x", "speak": "y", "extra": {"speak": "inner"}}'
    assert json_objects(text) == [{"thought": "x", "speak": "y", "extra": {"speak": "inner"}}]


def test_numbers_are_read_as_strings():
    assert parse_cot('{"thought": "t", "speak": 5}', "thought", "speak")["speak"] == "5"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("no json here", "no JSON object"),
        ('{"thought": "t"}', "lacks the field(s) 'speak'"),
        ('{"thought": "t", "speak": ["a"]}', "must be a string"),
        ('{"thought": "t", "speak": "unterminated', "no JSON object"),
        ("[1, 2, 3]", "no JSON object"),
    ],
)
def test_format_errors_name_the_problem(text, problem):
    with pytest.raises(ParseError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_cot(text, "thought", "speak")


def test_plain_text_rules():
    assert plain_text("  hi  ") == "hi"
    with pytest.raises(ParseError):
        plain_text("   ")
    with pytest.raises(ParseError):
        plain_text("x" * 2000)
    with pytest.raises(ParseError):
        last_json_object("")
