"""Shows a game readably in `inspect view`: a span per round, who said what, the host's
judgements, failures and the outcome."""

from __future__ import annotations

from contextlib import AsyncExitStack

from inspect_ai.log import transcript
from inspect_ai.util import span

from pytest_gameeval.engine.events import FAILURE, HOST_MSG, JUDGEMENT, SPEECH, Event
from pytest_gameeval.engine.game import Game


def describe(event: Event) -> str | None:
    audience = "" if event.to is None else f" (to {', '.join(event.to) or 'record only'})"
    if event.kind == SPEECH:
        return f"**{event.speaker}**: {event.text}"
    if event.kind == HOST_MSG:
        return f"*Host*{audience}: {event.text}"
    if event.kind == JUDGEMENT:
        return f"*Host judgement*: {event.text}"
    if event.kind == FAILURE:
        return f"**{event.data.get('kind')} error** by {event.speaker} ({event.data.get('action')}): {event.text}"
    return None  # raw replies are already shown as model calls


class TranscriptObserver:
    def __init__(self) -> None:
        self.stack = AsyncExitStack()
        self.lines: list[str] = []

    async def round_started(self, game: Game) -> None:
        await self.stack.enter_async_context(span(f"round {game.round}", type="round"))

    async def round_ended(self, game: Game) -> None:
        self.flush()
        await self.stack.aclose()

    def event(self, game: Game, event: Event) -> None:
        text = describe(event)
        if text:
            self.lines.append(text)

    def flush(self) -> None:
        if self.lines:
            transcript().info("\n\n".join(self.lines), source="gameeval")
            self.lines = []
