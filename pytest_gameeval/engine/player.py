"""The player contract: what a seat's policy receives (`TurnContext`) and returns (`Reply`).

It lives beside the turn loop that calls it (clemcore keeps its Player beside the game master):
`players/` implements it (model-backed, scripted, replay), front ends add their own (the arena's
live seat, a human at a terminal), and the engine never imports any of them.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pytest_gameeval.engine.events import Event
from pytest_gameeval.engine.game import Seat, Turn
from pytest_gameeval.engine.views import Message

if TYPE_CHECKING:  # options.py imports the engine's lower modules; only the annotation is needed
    from pytest_gameeval.engine.options import GameOptions


@dataclass
class TurnContext:
    game: str
    seat: Seat
    turn: Turn
    messages: list[Message]  # the rendered prompt (only what this seat may see)
    events: list[Event]  # the same view as events, for scripted policies
    attempt: int = 0
    game_seed: int = 0
    options: GameOptions | None = None  # the game's typed options (None only for a context made outside a game)
    # a re-prompt is sampled anew (the default protocol): a seat decoding deterministically gets a
    # raised temperature and a seed of its own per attempt, since replaying the same sample to a
    # corrected prompt gets the rejected text back; protocol=paper keeps each paper's replay
    resample: bool = False


@dataclass
class Reply:
    text: str
    error: str | None = None  # set when the call failed after retries (a chat error)
    input_tokens: int = 0
    output_tokens: int = 0
    # any further token counts the provider billed (cache read/write, reasoning), by the record's key:
    # summed into the seat's usage as they come (transport/usage.py says which)
    tokens: dict[str, int] = field(default_factory=dict)
    sampling: dict[str, Any] | None = None  # how this attempt was sampled (temperature, seed), for the record
    # the prompt did not fit the model's context: no reply can come of asking again, so the game
    # ends (outcome aborted, kind "context") instead of a late chat error
    context_overflow: bool = False
    # the provider's content filter withheld the reply: recorded as its own kind (not the model's
    # forfeit), and the game ends there (outcome aborted, kind "content_filter")
    content_filter: bool = False


@runtime_checkable
class Player(Protocol):
    """A seat's policy. Subclass it to inherit the defaults below, or declare the same attributes.

    The record keeps all four attributes per seat; they are settled when the player is made
    (front ends decide `structured` from the option and the model, once) and never change.
    """

    label: str  # the model or policy behind the seat, as recorded
    # the seat decodes with each turn's reply schema (constrained decoding, engine/replies.py): the
    # runner then reads a plain-text turn's reply from its JSON field
    structured: bool = False
    reference: bool = False  # a game's fixed reference opponent, not a model under test
    self_play: bool = False  # an unbound role the evaluated model plays (not a role bound to it)

    async def act(self, ctx: TurnContext) -> Reply: ...


# The turn being played, for providers that need it (the scripted test provider).
current_turn: ContextVar[TurnContext | None] = ContextVar("gameeval_current_turn", default=None)
