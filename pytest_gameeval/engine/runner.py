"""The async turn loop: ask, parse, validate, bounded re-prompt, forfeit. Game-agnostic."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_gameeval.engine.errors import EngineError, ParseError, RuleViolation
from pytest_gameeval.engine.events import FAILURE, REFEREE_ONLY, REPLY, Event, HOST
from pytest_gameeval.engine.game import CHAT_ERROR, FORMAT_ERROR, RULE_VIOLATION, Game, Turn
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.views import render, visible_events
from pytest_gameeval.players.base import Player, TurnContext

MAX_TURNS = 5000  # a safety net against a rules bug; real games end far sooner


class Observer(Protocol):
    """Optional hooks for front ends (e.g. inspect transcript spans per round)."""

    async def round_started(self, game: Game) -> None: ...
    async def round_ended(self, game: Game) -> None: ...
    def event(self, game: Game, event: Event) -> None: ...


@dataclass
class _Result:
    ok: bool
    text: str = ""
    action: Any = None
    kind: str = ""
    detail: str = ""
    events: list[Event] = field(default_factory=list)  # what this turn added to the game's log


class _Session:
    """Per-game bookkeeping the runner keeps beside the rules: counts, usage, settings."""

    def __init__(self, seats: list[str], style: str, seed: int):
        self.style = style
        self.seed = seed
        self.failures = {s: {FORMAT_ERROR: 0, RULE_VIOLATION: 0, CHAT_ERROR: 0, "forfeit": 0} for s in seats}
        self.usage = {s: {"input_tokens": 0, "output_tokens": 0, "calls": 0} for s in seats}


async def _ask(game: Game, turn: Turn, player: Player, session: _Session) -> _Result:
    """Ask one turn, re-prompting on unreadable or illegal replies; the result lists its events."""
    seat = game.seats[turn.seat]
    logged: list[Event] = []  # this turn's own events (concurrent turns interleave in game.events)
    if turn.instruction:
        logged.append(game.host(turn.instruction, to=(turn.seat,)))
    last = _Result(False, events=logged)
    for attempt in range(turn.retries + 1):
        view = visible_events(game.events, turn.seat)
        messages = render(session.style, game.system_prompt(turn.seat), game.events, turn.seat)
        ctx = TurnContext(game.name, seat, turn, messages, view, attempt, session.seed, game.options)
        structured = turn.reply is not None and getattr(player, "structured", False)
        reply = await player.act(ctx)
        usage = session.usage[turn.seat]
        usage["calls"] += 1
        usage["input_tokens"] += reply.input_tokens
        usage["output_tokens"] += reply.output_tokens
        if reply.error is not None:
            session.failures[turn.seat][CHAT_ERROR] += 1
            logged.append(game.log(Event(FAILURE, reply.error, turn.seat, REFEREE_ONLY, game.round, {"kind": CHAT_ERROR, "action": turn.action})))
            return _Result(False, kind=CHAT_ERROR, detail=reply.error, events=logged)  # inspect already retried the call
        data = {"action": turn.action, "attempt": attempt, **({"structured": True} if structured else {})}
        logged.append(game.log(Event(REPLY, reply.text, turn.seat, (turn.seat,), game.round, data)))
        try:
            text = turn.reply.unwrap(reply.text) if structured and turn.reply.text else reply.text  # type: ignore[union-attr]
            return _Result(True, text, turn.parse(text), events=logged)
        except (ParseError, RuleViolation) as problem:
            kind = FORMAT_ERROR if isinstance(problem, ParseError) else RULE_VIOLATION
            session.failures[turn.seat][kind] += 1
            logged.append(game.log(Event(FAILURE, str(problem), turn.seat, REFEREE_ONLY, game.round, {"kind": kind, "action": turn.action, "attempt": attempt})))
            last = _Result(False, kind=kind, detail=str(problem), events=logged)
            if attempt < turn.retries:
                what = "could not be read" if kind == FORMAT_ERROR else "breaks a rule"
                logged.append(game.host(f"Your reply {what}: {problem}. Try again.", to=(turn.seat,)))
    return last


def _take_out_of_views(turn: Turn, events: list[Event]) -> None:
    """A record-only turn's exchange stays in the record but leaves every seat's view."""
    for event in events:
        event.to = REFEREE_ONLY
        event.data["probe"] = turn.action


async def play(
    game: Game,
    players: dict[str, Player],
    *,
    instance_id: str,
    seed: int,
    epoch: int = 0,
    style: str = "chat",
    observer: Observer | None = None,
    notes: list[str] | None = None,
) -> GameRecord:
    """Play `game` to the end with one player per seat and return its record."""
    missing = set(game.seats) - set(players)
    if missing:
        raise EngineError(f"no player for seat(s) {sorted(missing)}")
    session = _Session(list(game.seats), style, seed)
    turns_played = 0
    current_round = None
    seen = 0
    while not game.finished:
        if observer and game.round != current_round:
            if current_round is not None:
                await observer.round_ended(game)
            current_round = game.round
            await observer.round_started(game)
        turns = game.pending()
        if not turns:
            raise EngineError(f"{game.name}: no pending turn but the game is not finished")
        turns_played += len(turns)
        if turns_played > MAX_TURNS:
            raise EngineError(f"{game.name}: more than {MAX_TURNS} turns; the rules never end the game")
        results = await asyncio.gather(*(_ask(game, t, players[t.seat], session) for t in turns))
        for turn, result in zip(turns, results):
            if turn.record_only:
                _take_out_of_views(turn, result.events)
        for turn, result in zip(turns, results):
            if result.ok:
                game.apply(turn, result.text, result.action)
            else:
                session.failures[turn.seat]["forfeit"] += 1
                game.forfeit(turn, result.kind, result.detail)
            if game.finished:
                break
        if observer:
            for event in game.events[seen:]:
                observer.event(game, event)
            seen = len(game.events)
    if observer and current_round is not None:
        await observer.round_ended(game)
    outcome = game.outcome
    return GameRecord(
        game=game.name,
        instance_id=instance_id,
        seed=seed,
        epoch=epoch,
        options=dict(game.options),
        seats=[{"name": s.name, "role": s.role, "model": players[s.name].label, "private": s.private,
                "structured": bool(getattr(players[s.name], "structured", False))} for s in game.seats.values()],
        events=game.events,
        outcome={"label": outcome.label, "winner": outcome.winner, "details": outcome.details},
        failures=session.failures,
        usage=session.usage,
        notes=list(notes or []),
    )
