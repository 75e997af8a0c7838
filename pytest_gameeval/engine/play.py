"""One entry point both front ends call: play one case (row, epoch) of a game."""

from __future__ import annotations

from typing import Any, Callable

from pytest_gameeval.engine.game import Seat
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.engine.runner import Observer, play
from pytest_gameeval.engine.spec import GameSpec, Row
from pytest_gameeval.players.base import Player
from pytest_gameeval.players.scripted import ScriptedPlayer

# (seat, model role) -> the player for that seat
SeatBinder = Callable[[Seat, str], Player]


async def play_case(
    spec: GameSpec,
    row: Row,
    epoch: int,
    options: dict[str, Any],
    bind: SeatBinder,
    *,
    observer: Observer | None = None,
    notes: list[str] | None = None,
) -> GameRecord:
    game, seed = spec.setup(row, epoch, options)
    roles = spec.seat_model_roles(game)
    players = {name: bind(seat, roles[name]) for name, seat in game.seats.items()}
    return await play(
        game, players, instance_id=row.id, seed=seed, epoch=epoch,
        style=options.get("style", "chat"), observer=observer, notes=notes,
    )


def scripted_binder(spec: GameSpec, strengths: dict[str, str], seed: int = 0) -> SeatBinder:
    """Seats played by the game's scripted policies; `strengths` maps model role -> strength
    (key "*" for any role not named)."""

    def bind(seat: Seat, model_role: str) -> Player:
        strength = strengths.get(model_role, strengths.get("*", "random"))
        policies = spec.scripted.get(strength)
        if policies is None or seat.role not in policies:
            raise KeyError(f"{spec.name}: no scripted {strength!r} policy for role {seat.role!r}")
        return ScriptedPlayer(policies[seat.role], derive_seed(seed, seat.name), f"scripted/{strength}")

    return bind
