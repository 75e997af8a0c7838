"""Shows a game readably in `inspect view`: a span per round, who said what, the host's
judgements, failures and the outcome; and moves inspect's display (`progress`) as rounds end."""

from __future__ import annotations

from contextlib import AsyncExitStack

from inspect_ai.log import transcript
from inspect_ai.util import span

from pytest_gameeval.engine.events import FAILURE, HOST_MSG, JUDGEMENT, SPEECH, Event
from pytest_gameeval.engine.game import Game
from pytest_gameeval.inspect_ext.progress import GameProgress


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
    def __init__(self, progress: GameProgress | None = None) -> None:
        self.stack = AsyncExitStack()
        self.lines: list[str] = []
        self.progress = progress

    async def round_started(self, game: Game) -> None:
        await self.stack.enter_async_context(span(f"round {game.round}", type="round"))

    async def round_ended(self, game: Game) -> None:
        self.flush()
        await self.stack.aclose()
        if self.progress:
            self.progress.round_played()

    def event(self, game: Game, event: Event) -> None:
        if self.progress:
            self.progress.event(event)
        text = describe(event)
        if text:
            self.lines.append(text)

    def flush(self) -> None:
        if self.lines:
            transcript().info("\n\n".join(self.lines), source="gameeval")
            self.lines = []
