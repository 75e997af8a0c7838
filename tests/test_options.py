"""Game options: declared once per game (a frozen keyword-only dataclass), built by the front
ends from strings, checked once (type, choices, bounds), stored as plain JSON."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.options import DataGameOptions, GameOptions
from pytest_gameeval.games.registry import GAMES, get_spec

GAMES_DIR = Path(__file__).resolve().parents[1] / "pytest_gameeval" / "games"


@pytest.mark.parametrize("game", list(GAMES))
def test_each_game_declares_its_options_as_a_frozen_dataclass(game):
    spec = get_spec(game)
    cls = spec.options_class
    assert dataclasses.is_dataclass(cls) and issubclass(cls, GameOptions) and cls is not GameOptions
    params = cls.__dataclass_params__
    assert params.frozen and all(f.kw_only for f in dataclasses.fields(cls))
    # a game with a shipped data file takes data=FILE; one without does not
    assert issubclass(cls, DataGameOptions) == bool(spec.data_file) == ("data" in spec.all_options())
    options = spec.parse_options()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.seed = 1  # type: ignore[misc]
    for name, opt in spec.all_options().items():
        assert getattr(options, name) == opt.default and opt.kind in (int, float, bool, str, list), name


@pytest.mark.parametrize("game", list(GAMES))
def test_options_are_stored_as_plain_json_and_read_back(game):
    spec = get_spec(game)
    options = spec.parse_options({"protocol": "paper", "seed": "7"})
    stored = json.loads(json.dumps(options.as_dict()))
    assert stored == options.as_dict() and stored["seed"] == 7
    assert spec.parse_options(stored) == options  # an old record's or session's options type again
    with pytest.raises(TypeError):  # one face: attributes, not keys
        options["seed"]  # type: ignore[index]


@pytest.mark.parametrize("game, given, message", [
    ("askguess", {"max_rounds": "0"}, "task argument max_rounds=0 must be at least 1"),
    ("akinator", {"max_questions": 0}, "task argument max_questions=0 must be at least 1"),
    ("bluffing", {"max_questions": "-2"}, "task argument max_questions=-2 must be at least 1"),
    ("taboo", {"max_rounds": "0"}, "task argument max_rounds=0 must be at least 1"),
    ("tofukingdom", {"games": "0"}, "task argument games=0 must be at least 1"),
    ("spygame", {"max_words": "-1"}, "task argument max_words=-1 must be at least 0"),
    ("spygame", {"max_rounds": "0"}, "task argument max_rounds=0 must be at least 1"),
    ("spyfall", {"players": "13"}, "task argument players=13 must be between 3 and 12"),
    ("age", {"players": "9"}, "task argument players=9 must be between 2 and 8"),
])
def test_a_bound_is_checked_once_when_options_are_built(game, given, message):
    with pytest.raises(GameEvalError) as error:
        get_spec(game).parse_options(given)
    assert str(error.value) == message


def test_no_game_checks_a_bound_again_in_its_spec():
    """The declaration's bounds are the only range checks of options (issue 29)."""
    for spec_file in GAMES_DIR.glob("*/__init__.py"):
        assert "must be at least" not in spec_file.read_text(encoding="utf-8"), spec_file
