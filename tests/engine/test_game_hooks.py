"""Game hooks declared with abc (issue 39): what a game must implement is abstract, what the engine
relies on is final (and a subclass overriding it fails when defined), for `Game` and for the two
families, GameArena's `ArenaGame` and the voting games' `SpyWordGame`; docs/adding-a-game.md names
every one of them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from pytest_gameeval.engine.game import Game, Seat, Turn
from pytest_gameeval.games.arena.rules import ArenaGame
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.games.voting import SpyWordGame

DOC = (Path(__file__).resolve().parents[2] / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
MUST = {
    Game: {"system_prompt", "pending", "apply", "forfeit"},
    ArenaGame: {
        "system_prompt",
        "pending_move",
        "apply_move",
        "forfeit_move",
        "after_round",
        "probe_instruction",
        "parse_probe",
    },
    SpyWordGame: {"system_prompt", "describe_turn", "vote_turn"},
}
SEALED = {
    Game: {"host", "say", "judge", "act", "log", "failures", "finished", "abort"},
    ArenaGame: {"pending", "apply", "forfeit", "round_done", "queue_record_only"},
    SpyWordGame: {"pending", "apply", "forfeit", "on_description"},
}


def _final(cls: type, name: str) -> bool:
    member = vars(cls)[name]
    return bool(getattr(member, "__final__", False) or getattr(getattr(member, "fget", None), "__final__", False))


@pytest.mark.parametrize("cls", list(MUST), ids=lambda c: c.__name__)
def test_what_a_game_must_implement_is_abstract_and_named_in_the_docs(cls):
    assert cls.__abstractmethods__ == MUST[cls]
    assert all(f"`{name}" in DOC for name in MUST[cls]), [n for n in MUST[cls] if f"`{n}" not in DOC]


@pytest.mark.parametrize("cls", list(SEALED), ids=lambda c: c.__name__)
def test_what_the_engine_drives_is_final_and_named_in_the_docs(cls):
    assert {name for name in vars(cls) if _final(cls, name)} == SEALED[cls]
    assert all(f"`{name}" in DOC for name in SEALED[cls] if cls is Game)


def test_a_game_missing_a_hook_cannot_be_created():
    class NoForfeit(Game):
        def system_prompt(self, seat: str) -> str:
            return ""

        def pending(self) -> list[Turn]:
            return []

        def apply(self, turn: Turn, text: str, action: Any) -> None:
            pass

    with pytest.raises(TypeError, match="forfeit"):
        NoForfeit([Seat("A", "a")], random.Random(0), {})


@pytest.mark.parametrize(
    "base, name", [(Game, "say"), (Game, "finished"), (ArenaGame, "pending"), (SpyWordGame, "apply")]
)
def test_overriding_a_final_method_fails_when_the_class_is_defined(base, name):
    with pytest.raises(TypeError, match=f"overrides {base.__name__}.{name}, which is final"):
        type("Sneaky", (base,), {name: lambda self, *args: None})


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_implements_its_hooks(game):
    spec = get_spec(game)
    row = spec.select_rows(spec.parse_options({}))[0]
    created, _ = spec.setup(row, 0, spec.parse_options({}))
    assert not type(created).__abstractmethods__
