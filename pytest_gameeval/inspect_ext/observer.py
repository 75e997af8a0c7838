"""Tells a game as a story in `inspect view`, top to bottom, as it happens.

- a setup card first: every seat with its role, who plays it, and its secrets (for the reader);
- a span per round, and inside it a span per turn named after the seat and its role
  ("Player 3 (spy)"), holding the host's instruction, the model call, the seat's private
  thought (marked private), what the others heard, failures and re-prompts;
- host announcements, judgements and votes where they happen; a long instruction repeated turn
  after turn (the reply format) is written out once and then referred to.

Every line is an inspect info event (markdown); nothing here changes the game. It also moves
inspect's display (`progress`) as rounds end.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.util import span

from pytest_gameeval.engine.errors import ParseError
from pytest_gameeval.engine.events import ACTION, FAILURE, HOST_MSG, JUDGEMENT, REPLY, SPEECH, Event
from pytest_gameeval.engine.game import CHAT_ERROR, CONTENT_FILTER, FORMAT_ERROR, RULE_VIOLATION, Game, Turn
from pytest_gameeval.engine.parsing import last_json_object
from pytest_gameeval.engine.seating import BOUND, why_played
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.engine.views import Message, chat_messages
from pytest_gameeval.inspect_ext.progress import GameProgress

PRIVATE_FIELDS = ("thought", "reasoning", "thinking")  # reply fields no other seat ever hears
FAILURE_WORDS = {
    FORMAT_ERROR: "could not be read (format error)",
    RULE_VIOLATION: "broke a rule (rule violation)",
    CHAT_ERROR: "got no reply: the model call failed (chat error)",
    CONTENT_FILTER: "got no reply: the provider's content filter withheld it",
}
MIN_REPEAT = 60  # a repeated instruction tail shorter than this is written out again


def _value(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def private_thought(reply: str) -> str | None:
    """The private fields of a JSON reply, or None (plain replies are in the model call)."""
    if "{" not in reply:
        return None
    try:
        obj = last_json_object(reply)
    except ParseError:
        return None
    parts = [f"{obj[k]}" for k in PRIVATE_FIELDS if isinstance(obj.get(k), str) and obj[k].strip()]
    return " / ".join(parts) or None


def _common_tail(a: str, b: str, start: int = 0) -> int:
    """Length of the longest common ending of a and b that starts a sentence in b, at or
    after position `start` of b."""
    n = 0
    while n < min(len(a), len(b) - start) and a[-1 - n] == b[-1 - n]:
        n += 1
    begin = len(b) - n
    if begin == 0 or b[:begin].endswith((". ", ": ")):
        return n
    cut = b.find(". ", begin)
    return len(b) - (cut + 2) if cut >= 0 else 0


class TranscriptObserver:
    """Runner hooks writing the story into inspect's transcript. Cheap: one info event per
    game event, no model-side work."""

    def __init__(self, title: str = "", progress: GameProgress | None = None) -> None:
        self.title = title
        self.progress = progress
        self.rounds = AsyncExitStack()
        self.played_by: dict[str, tuple[str, str, str]] = {}  # seat -> (model role, model, played as)
        self.instructions: dict[str, str] = {}  # action -> the first instruction written out
        self.game: Game | None = None
        self.on_card: list[Event] = []  # setup judgements shown on the setup card

    # -- what the solver tells us ---------------------------------------------------------
    def bound(self, seat: str, model_role: str, model: str, played_as: str = BOUND) -> None:
        """Who plays `seat` and how it came to (engine/seating.py), for the setup card."""
        self.played_by[seat] = (model_role, model, played_as)

    # -- runner hooks ---------------------------------------------------------------------
    async def game_started(self, game: Game, seed: int) -> None:
        self.game = game
        # the host's judgements made while setting the game up (e.g. GameArena's drawn system
        # prompt variant) belong on the setup card, not as the first entry of round 1
        self.on_card = [e for e in game.events if e.kind == JUDGEMENT]
        transcript().info(self.setup_card(game, seed), source="Setup (for the reader)")

    async def round_started(self, game: Game) -> None:
        await self.rounds.enter_async_context(span(f"Round {game.round}", type="round"))

    async def round_ended(self, game: Game) -> None:
        await self.rounds.aclose()
        if self.progress:
            self.progress.round_played()

    async def close(self) -> None:
        """The open round's span, if the game stopped inside a round (solver.py says why)."""
        await self.rounds.aclose()

    def turn(self, game: Game, turn: Turn) -> Any:
        """A span per turn, named by seat, role and what the turn asks ("Player 3 (spy): vote"):
        the sidebar then reads as the round's sequence of moves."""
        seat = game.seats[turn.seat]
        name = f"{seat.name} ({seat.role})" if seat.role.lower() != seat.name.lower() else seat.name
        action = turn.action.replace("_", " ")
        return span(f"{name}: {action}" + (" · probe" if turn.record_only else ""), type=turn.action)

    def event(self, game: Game, event: Event) -> None:
        if self.progress:
            self.progress.event(event)
        card = self.describe(game, event)
        if card:
            transcript().info(card[1], source=card[0])

    def evaluated_view(self) -> list[Message]:
        """The conversation the (first) evaluated seat had, as it saw it: for the Messages tab."""
        game = self.game
        seat = next((s for s, (role, _, _) in self.played_by.items() if role == EVALUATED), None)
        if game is None or seat is None:
            return []
        return chat_messages(game.system_prompt(seat), game.events, seat)

    # -- rendering ------------------------------------------------------------------------
    def setup_card(self, game: Game, seed: int) -> str:
        lines = [
            f"**{self.title or game.name}** · game seed `{seed}` · for the reader: each seat knows only its own row",
            "",
            "| Seat | Role | Played by | Knows privately |",
            "|---|---|---|---|",
        ]
        shared = self._shared_secrets(game)
        for seat in game.seats.values():
            model_role, model, how = self.played_by.get(seat.name, ("", "", ""))
            who = (
                f"{model} (**evaluated**)"
                if model_role == EVALUATED
                else (f"{model} ({why_played(model_role, how)})" if model_role else model)
            )
            secrets = "; ".join(f"{k}: {_value(v)}" for k, v in seat.private.items() if k not in shared) or "—"
            lines.append(f"| {_cell(seat.name)} | {_cell(seat.role)} | {_cell(who)} | {_cell(secrets)} |")
        for key, (value, seats) in shared.items():
            lines.append(f"\n**{key}** (known to {', '.join(seats)}): {_value(value, 400)}")
        for event in self.on_card:
            lines.append(f"\n**Host's setup** (unseen by the players): {event.text}")
        return "\n".join(lines)

    @staticmethod
    def _shared_secrets(game: Game) -> dict[str, tuple[Any, list[str]]]:
        """Private fields several seats hold with the same value: shown once, not per row."""
        holders: dict[str, list[str]] = {}
        for seat in game.seats.values():
            for key in seat.private:
                holders.setdefault(key, []).append(seat.name)
        shared = {}
        for key, seats in holders.items():
            values = [game.seats[s].private[key] for s in seats]
            if len(seats) > 1 and all(v == values[0] for v in values) and isinstance(values[0], (dict, list)):
                shared[key] = (values[0], seats)
        return shared

    def describe(self, game: Game, event: Event) -> tuple[str, str] | None:
        """(card title, markdown body) for one event, or None if it adds nothing to the story."""
        if event.kind == SPEECH:
            heard = "" if event.to is None else f" (heard by {', '.join(event.to) or 'nobody'})"
            return f"{event.speaker} says{heard}", event.text
        if event.kind == HOST_MSG:
            if event.to is None:
                return "Host", event.text
            return f"Host → {', '.join(event.to) or 'record'}", self._instruction(event)
        if event.kind == REPLY:
            thought = private_thought(event.text)
            return (f"{event.speaker} thinks (private, unheard by the others)", thought) if thought else None
        if event.kind == ACTION:
            if "choice" in event.data:
                return None  # a vote: the host announces it where the rules make it public
            extra = {k: v for k, v in event.data.items() if k != "probe"}
            details = "; ".join(f"{k}: {_value(v, 80)}" for k, v in extra.items())
            return f"Host records for {event.speaker} (unseen by the players)", event.text + (
                f" ({details})" if details else ""
            )
        if event.kind == JUDGEMENT:
            if any(event is e for e in self.on_card):
                return None  # already on the setup card
            return "Host judgement (unseen by the players)", event.text
        if event.kind == FAILURE:
            what = FAILURE_WORDS.get(event.data.get("kind", ""), str(event.data.get("kind")))
            attempt = event.data.get("attempt")
            at = f", attempt {attempt + 1}" if attempt is not None else ""
            return f"Failure: {event.speaker}'s reply {what}", f"({event.data.get('action')}{at}) {event.text}"
        return None

    def _instruction(self, event: Event) -> str:
        """A host instruction; a long tail already written out in full for the same action
        (the reply format) is replaced by a reference to it."""
        action = str(event.data.get("action", ""))
        first = self.instructions.get(action)
        if first is None:
            self.instructions[action] = event.text
            return event.text
        text = event.text
        n = _common_tail(first, text)
        end_of_first_sentence = text.find(". ") + 2 if ". " in text else len(text)
        if len(text) - n < end_of_first_sentence:  # always keep the first sentence
            n = _common_tail(first, text, start=end_of_first_sentence)
        if n < MIN_REPEAT:
            return text
        return f"{text[: len(text) - n].rstrip()} *(reply format as given above)*"
