"""Every registered game: one line per game, imported lazily."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pytest_gameeval.engine.errors import GameEvalError

if TYPE_CHECKING:  # the pytest plugin imports GAMES in every pytest run: keep this module light
    from collections.abc import Mapping
    from typing import Any

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


# -- the scripted provider's model names, as the front ends resolve them ----------------------
# `gameeval/scripted[/STRENGTH]` plays each seat it is given with the game's scripted policy of that
# strength (backends/scripted_provider.py); the engine and the specs know strengths, not models.
SCRIPTED_MODEL = "gameeval/scripted"
REFERENCE_STRENGTH = "reference"  # the strength that plays a game's reference opponents
REFERENCE_MODEL = f"{SCRIPTED_MODEL}/{REFERENCE_STRENGTH}"  # the model name of every game's reference policy


def scripted_strengths() -> list[str]:
    """Every STRENGTH of `gameeval/scripted/STRENGTH` (some games have only some of them)."""
    return sorted({s for spec in all_specs() for s in spec.scripted})


def scripted_strength(model: str) -> str | None:
    """The strength a model name asks of the scripted provider ("random" by default), or None."""
    if model == SCRIPTED_MODEL:
        return "random"
    prefix = SCRIPTED_MODEL + "/"
    return model[len(prefix):] if model.startswith(prefix) else None


def reference_model(spec: GameSpec, role: str, options: Mapping[str, Any]) -> str | None:
    """The model name that plays an unbound `role`: the game's reference policy, or None where
    the evaluated model plays it."""
    return REFERENCE_MODEL if spec.plays_reference(role, options) else None


def check_scripted_model(model: str, spec: GameSpec | None = None) -> None:
    """`gameeval/scripted/STRENGTH` must name a known strength, and one `spec`'s game has when
    given: checked before play, so a typo is one line naming the strengths, not an error per game."""
    strength = scripted_strength(model)
    if spec is not None:
        if strength is not None and strength not in spec.scripted:
            raise GameEvalError(f"{model}: {spec.name} has no scripted strength {strength!r}; "
                                f"its strengths: {', '.join(sorted(spec.scripted))}")
    elif model.startswith(SCRIPTED_MODEL + "/") and strength not in scripted_strengths():
        raise GameEvalError(
            f"unknown model {model!r}: gameeval/scripted/STRENGTH takes one of {', '.join(scripted_strengths())}"
        )
