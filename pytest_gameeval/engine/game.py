"""The game-agnostic state machine every game implements. Rules never call a model.

`Game` declares what a game must implement (abstract: `system_prompt`, `pending`, `apply`,
`forfeit`) and what the engine relies on and no game may override (`typing.final`: the event log
and its helpers, `finished`, `abort`). Two families implement the four hooks once for several games
and declare narrower ones: `games/arena/rules.ArenaGame` (Akinator, Taboo, Bluffing) and
`games/voting.SpyWordGame` (SpyFall, SpyGame); docs/adding-a-game.md shows both.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, final

from pytest_gameeval.engine.events import (
    ACTION,
    FAILURE,
    HOST,
    HOST_MSG,
    JUDGEMENT,
    REFEREE_ONLY,
    SPEECH,
    Event,
)
from pytest_gameeval.engine.replies import ReplyFormat

if TYPE_CHECKING:  # options.py imports the engine's lower modules; only the annotation is needed
    from pytest_gameeval.engine.options import GameOptions

# The three failure kinds, never mixed: an unreadable reply, a readable but illegal one, a failed
# model call (docs/adding-a-game.md, "The engine contract").
FORMAT_ERROR = "format"
RULE_VIOLATION = "rule"
CHAT_ERROR = "chat"
FAILURE_KINDS = (FORMAT_ERROR, RULE_VIOLATION, CHAT_ERROR)
# Not the model's failure but its provider's: a content filter withheld the reply. Counted apart
# (a record's failures name it only when it happened) and never a forfeit: the game ends aborted.
CONTENT_FILTER = "content_filter"
# The outcome of a game ended early by the default protocol (clembench's "aborted"): an evaluated
# seat forfeited a turn, so its headline is settled at 0 and no later call can change it.
ABORTED = "aborted"


@dataclass
class Seat:
    name: str  # what others call it: "Player 3", "questioner"
    role: str  # its role in the rules: "spy", "answerer"
    private: dict[str, Any] = field(default_factory=dict)  # what only this seat knows


@dataclass
class Turn:
    """A request to one seat: what to ask it and how to read its reply.

    `parse` returns the action or raises ParseError (format) / RuleViolation (rule).
    `reply` declares the shape of a legal reply (see engine.replies): the schema sent with the
    request when the seat plays with structured decoding. For a plain-text turn played that way,
    the runner gives `parse` the text of the reply's one field.

    A `record_only` turn is a measurement, not a move (a belief probe, a judge's classification):
    its instruction, replies and re-prompts are seen by its seat while it answers, then the runner
    takes them out of every view (audience record-only, ``data["probe"] = action``), so later
    prompts read as if it had never been asked. The game records its result itself.

    Before `parse`, the runner rejects a reply that restates the host's text (an echoed
    instruction, template or placeholder) as a format error; a turn whose parser must never raise
    sets `echo_check=False` and checks with `engine.echo.check_not_echo` itself.
    """

    seat: str
    action: str
    instruction: str | None
    parse: Callable[[str], Any]
    retries: int = 2
    data: dict[str, Any] = field(default_factory=dict)
    record_only: bool = False
    reply: ReplyFormat | None = None
    echo_check: bool = True  # the runner's check that the reply does not restate host text (engine/echo.py)
    # the degenerate-move check (engine/degenerate.py): a move its seat may not repeat word for
    # word (a question), the parts of the text that must hold a real word (the X of a guess
    # form), and words of the game's data that are real although they look like placeholders
    no_repeat: bool = False
    word_slots: Callable[[str], list[str]] | None = None
    real_words: frozenset[str] = frozenset()


@dataclass
class Outcome:
    label: str  # the game's outcome class, e.g. "ST", "spy_win"
    winner: str | None = None  # a seat, role or camp; None for cooperative games
    details: dict[str, Any] = field(default_factory=dict)


def _is_final(member: Any) -> bool:
    return bool(getattr(member, "__final__", False) or getattr(getattr(member, "fget", None), "__final__", False))


class Game(ABC):
    """Base for a game's rules. Subclasses implement the abstract methods below; the methods marked
    `final` are the engine's and may not be overridden (checked when a subclass is defined)."""

    name = "game"

    def __init__(self, seats: list[Seat], rng: random.Random, options: GameOptions):
        self.seats = {s.name: s for s in seats}
        self.rng = rng
        self.options = options
        self.events: list[Event] = []
        self.round = 0
        self.outcome: Outcome | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # typing.final is only a type checker's mark: this makes it hold for every game at import
        super().__init_subclass__(**kwargs)
        for base in cls.__mro__[1:]:
            sealed = [name for name, member in vars(base).items() if _is_final(member) and name in vars(cls)]
            if sealed:
                raise TypeError(f"{cls.__name__} overrides {base.__name__}.{sealed[0]}, which is final: "
                                f"the engine relies on it; implement the hooks {base.__name__} declares instead")

    # -- what the engine asks of every game -------------------------------------------
    @abstractmethod
    def system_prompt(self, seat: str) -> str:
        """The system prompt of `seat`: the rules and what only that seat knows."""

    @abstractmethod
    def pending(self) -> list[Turn]:
        """The turns to play now. Several turns are asked at once (secret simultaneous moves)."""

    @abstractmethod
    def apply(self, turn: Turn, text: str, action: Any) -> None:
        """Apply a parsed, validated action."""

    @abstractmethod
    def forfeit(self, turn: Turn, kind: str, detail: str) -> None:
        """The game's rule for a seat that produced no legal reply (or whose call failed)."""

    @property
    @final
    def finished(self) -> bool:
        return self.outcome is not None

    @final
    def abort(self, seat: str, kind: str, detail: str) -> None:
        """End the game at once after `seat` (an evaluated seat) forfeited: outcome ABORTED, with
        the game's own details (each game's `finish` adds them) and who forfeited how."""
        self.finish(ABORTED, None, rounds=self.round, aborted={"seat": seat, "kind": kind, "detail": detail[:300]})

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        """End the game. A game may extend it to add the details its metrics read (calling this)."""
        self.outcome = Outcome(label, winner, details)
        self.host(
            f"The game is over. Outcome: {label}" + (f"; winner: {winner}." if winner else "."),
            kind=JUDGEMENT,
            to=REFEREE_ONLY,
        )

    # -- helpers for rules ------------------------------------------------------------
    @final
    def log(self, event: Event) -> Event:
        self.events.append(event)
        return event

    @final
    def host(self, text: str, *, to: tuple[str, ...] | None = None, kind: str = HOST_MSG, **data: Any) -> Event:
        return self.log(Event(kind, text, HOST, to, self.round, data))

    @final
    def say(self, seat: str, text: str, *, to: tuple[str, ...] | None = None, **data: Any) -> Event:
        """A seat's public words, always attributed to it."""
        return self.log(Event(SPEECH, text, seat, to, self.round, data))

    @final
    def judge(self, text: str, **data: Any) -> Event:
        """The host's private judgement, kept in the record only."""
        return self.log(Event(JUDGEMENT, text, HOST, REFEREE_ONLY, self.round, data))

    @final
    def act(self, seat: str, text: str, **data: Any) -> Event:
        """A validated action, kept in the record only (games announce what they must)."""
        return self.log(Event(ACTION, text, seat, REFEREE_ONLY, self.round, data))

    @final
    def failures(self) -> list[Event]:
        return [e for e in self.events if e.kind == FAILURE]
