"""One entry point both front ends call: play one case (row, epoch) of a game."""

from __future__ import annotations

from typing import Any, Callable

from pytest_gameeval.engine.game import Seat
from pytest_gameeval.engine.player import Player
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.runner import Observer, play
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row

# (seat, model role) -> the player for that seat. The caller brings it (players.scripted.scripted_binder,
# the front ends' model binders): the engine plays whoever it is given.
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
    record = await play(
        game, players, instance_id=row.id, seed=seed, epoch=epoch,
        style=options.style, observer=observer, notes=notes,
        evaluated={name for name, role in roles.items() if role == EVALUATED},
    )
    for seat in record.seats:  # who played what: reports compare the opponents of two runs by it
        seat["model_role"] = roles[seat["name"]]
    record.game_version, record.game_fingerprint = spec.version, spec.fingerprint  # what this record measured
    return record

