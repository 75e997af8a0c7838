"""Every registered game: one line per game, imported lazily."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pytest_gameeval.engine.errors import GameEvalError

if TYPE_CHECKING:  # the pytest plugin imports GAMES in every pytest run: keep this module light
    from pytest_gameeval.engine.spec import GameSpec

GAMES: dict[str, str] = {
    "askguess": "pytest_gameeval.games.askguess",
    "akinator": "pytest_gameeval.games.akinator",
    "taboo": "pytest_gameeval.games.taboo",
    "bluffing": "pytest_gameeval.games.bluffing",
    "tofukingdom": "pytest_gameeval.games.tofukingdom",
    "spygpt": "pytest_gameeval.games.spygpt",
    "age": "pytest_gameeval.games.age",
    "spyfall": "pytest_gameeval.games.spyfall",
    "spygame": "pytest_gameeval.games.spygame",
}


def get_spec(name: str) -> GameSpec:
    if name not in GAMES:
        raise GameEvalError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    return importlib.import_module(GAMES[name]).SPEC


def all_specs() -> list[GameSpec]:
    return [get_spec(name) for name in GAMES]


def scripted_strengths() -> list[str]:
    """Every STRENGTH of `gameeval/scripted/STRENGTH` (some games have only some of them)."""
    return sorted({s for spec in all_specs() for s in spec.scripted})


def check_scripted_model(model: str) -> None:
    """`gameeval/scripted/STRENGTH` must name a known strength (a typo is an error up front)."""
    prefix = "gameeval/scripted/"
    if model.startswith(prefix) and model[len(prefix):] not in scripted_strengths():
        raise GameEvalError(f"unknown model {model!r}: gameeval/scripted/STRENGTH takes one of {', '.join(scripted_strengths())}")
