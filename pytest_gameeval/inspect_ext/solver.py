"""The inspect solver: plays one game per sample through the shared `play_case`."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import Model, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

from pytest_gameeval.engine.errors import ProviderError
from pytest_gameeval.engine.game import Seat
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Player
from pytest_gameeval.engine.roles import lookup_role
from pytest_gameeval.engine.seating import REFERENCE, SELF_PLAY, Seating
from pytest_gameeval.engine.spec import GameSpec, Row
from pytest_gameeval.games.registry import REFERENCE_MODEL, get_spec
from pytest_gameeval.inspect_ext.cli_errors import say_provider_failure
from pytest_gameeval.inspect_ext.decoding import model_player
from pytest_gameeval.inspect_ext.observer import TranscriptObserver
from pytest_gameeval.inspect_ext.progress import progress_of
from pytest_gameeval.players.model import to_inspect
from pytest_gameeval.transport import heap

RECORD_KEY = "gameeval_record"
# why a sample's game was not started (gameeval compare --budget): it has no record and no outcome
NOT_STARTED_KEY = "gameeval_not_started"


def bound_model(role: str) -> Model | None:
    """The model bound to a role expression with --model-role (see roles.lookup_role)."""
    return lookup_role(role, model_roles())


def seating(spec: GameSpec, options: dict[str, Any], evaluated: Model, notes: list[str]) -> Seating[Model | str]:
    """Who plays each seat (engine/seating.py): --model-role, else the game's reference policy,
    else the evaluated model (self-play); an unbound role is said in the log's notes."""
    return Seating(spec, options, evaluated=evaluated, bound=model_roles(), reference=REFERENCE_MODEL,
                   self_play=evaluated, flag="--model-role", notes=notes)


def resolve_role(role: str, evaluated: Model, notes: list[str], spec: GameSpec, options: dict[str, Any]) -> Model:
    """The model that plays `role` (see `seating`)."""
    plays = seating(spec, options, evaluated, notes).choose(role).plays
    return get_model(plays) if isinstance(plays, str) else plays  # type: ignore[return-value]


@solver
def play_game(game: str, options: dict[str, Any]) -> Solver:
    spec = get_spec(game)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        notes: list[str] = []
        choices = seating(spec, options, get_model(), notes)
        observer = TranscriptObserver(str(state.input), progress_of(game))

        def bind(seat: Seat, role: str) -> Player:
            choice = choices.choose(role)
            model = get_model(choice.plays) if isinstance(choice.plays, str) else choice.plays
            observer.bound(seat.name, role, str(model), choice.played_as)
            return model_player(model, options.structured, reference=choice.played_as == REFERENCE,  # type: ignore[arg-type]
                                self_play=choice.played_as == SELF_PLAY)

        row = Row(state.metadata["row_id"], state.metadata["row"])
        progress = progress_of(game)
        progress.game_started()
        try:
            with heap.playing():  # full garbage collections rare while games are in play: transport/heap.py
                record = await play_case(spec, row, state.epoch - 1, options, bind, observer=observer, notes=notes)
        except ProviderError as e:  # the sample errors (inspect stops the task): its cause on one line
            say_provider_failure(e)
            raise
        finally:
            progress.game_finished()
            # a game cut short (Ctrl-C cancels it mid-round) leaves its round's span open: closed
            # here, in the game's own task, or asyncio closes it later from another context and
            # inspect warns "Exiting span created in another context" once per game in flight
            await observer.close()
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
