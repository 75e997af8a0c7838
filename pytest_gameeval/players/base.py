"""What a seat's policy receives and returns. Model-backed and scripted players alike."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_gameeval.engine.events import Event
from pytest_gameeval.engine.game import Seat, Turn
from pytest_gameeval.engine.views import Message


@dataclass
class TurnContext:
    game: str
    seat: Seat
    turn: Turn
    messages: list[Message]  # the rendered prompt (only what this seat may see)
    events: list[Event]  # the same view as events, for scripted policies
    attempt: int = 0
    game_seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Reply:
    text: str
    error: str | None = None  # set when the call failed after retries (a chat error)
    input_tokens: int = 0
    output_tokens: int = 0


class Player(Protocol):
    label: str  # the model or policy behind the seat, as recorded
    # (optional) True: replies are constrained to each turn's reply schema (see engine.replies);
    # a player without the attribute is not structured

    async def act(self, ctx: TurnContext) -> Reply: ...


# The turn being played, for providers that need it (the scripted test provider).
current_turn: ContextVar[TurnContext | None] = ContextVar("gameeval_current_turn", default=None)
