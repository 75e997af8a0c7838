"""The inspect solver: plays one game per sample through the shared `play_case`."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import Model, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

from pytest_gameeval.engine.game import Seat
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row
from pytest_gameeval.games.registry import get_spec, reference_model
from pytest_gameeval.inspect_ext.observer import TranscriptObserver
from pytest_gameeval.inspect_ext.progress import progress_of
from pytest_gameeval.engine.play import play_case, unbound_note
from pytest_gameeval.engine.player import Player
from pytest_gameeval.inspect_ext.decoding import model_player
from pytest_gameeval.players.model import to_inspect
from pytest_gameeval.engine.roles import how_to_bind, lookup_role

RECORD_KEY = "gameeval_record"


def bound_model(role: str) -> Model | None:
    """The model bound to a role expression with --model-role (see roles.lookup_role)."""
    return lookup_role(role, model_roles())


def resolve_role(role: str, evaluated: Model, notes: list[str], spec: GameSpec, options: dict[str, Any]) -> Model:
    """The model bound to `role` with --model-role, else the game's reference policy for it
    (opponents=reference), else the evaluated model (self-play); said in the log."""
    if role == EVALUATED:
        return evaluated
    model = bound_model(role)
    if model is not None:
        return model
    reference = reference_model(spec, role, options)
    model = get_model(reference) if reference else evaluated
    notes.append(unbound_note(spec, role, str(model), str(evaluated), how_to_bind(role), options))
    return model


@solver
def play_game(game: str, options: dict[str, Any]) -> Solver:
    spec = get_spec(game)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        evaluated = get_model()
        notes: list[str] = []
        models: dict[str, Model] = {}
        observer = TranscriptObserver(str(state.input), progress_of(game))

        def bind(seat: Seat, role: str) -> Player:
            if role not in models:
                models[role] = resolve_role(role, evaluated, notes, spec, options)
            observer.bound(seat.name, role, str(models[role]))
            unbound = role != EVALUATED and bound_model(role) is None
            reference = unbound and spec.plays_reference(role, options)
            return model_player(models[role], options["structured"], reference=reference,
                                self_play=unbound and not reference)

        row = Row(state.metadata["row_id"], state.metadata["row"])
        progress = progress_of(game)
        progress.game_started()
        try:
            record = await play_case(spec, row, state.epoch - 1, options, bind, observer=observer, notes=notes)
        finally:
            progress.game_finished()
        seats = ", ".join(f"{s['name']} {'on' if s.get('structured') else 'off'}" for s in record.seats)
        transcript().info(f"**{record.structured}** ({seats})", source="Structured decoding")
        for note in notes:
            transcript().info(note, source="Note")
        transcript().info(spec.explain(record), source="Outcome")
        view = observer.evaluated_view()
        if view:  # the Messages tab: the game as the evaluated seat saw it
            state.messages = to_inspect(view)
        state.metadata[RECORD_KEY] = record.to_dict()
        state.completed = True
        return state

    return solve
