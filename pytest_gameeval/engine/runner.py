"""The async turn loop: ask, parse, validate, bounded re-prompt, forfeit. Game-agnostic."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from pytest_gameeval.engine.degenerate import DEGENERATE, DegenerateMove, check_move, words_of
from pytest_gameeval.engine.echo import check_not_echo
from pytest_gameeval.engine.errors import EngineError, ParseError, RuleViolation
from pytest_gameeval.engine.events import FAILURE, HOST_MSG, REFEREE_ONLY, REPLY, Event
from pytest_gameeval.engine.game import CHAT_ERROR, CONTENT_FILTER, FORMAT_ERROR, RULE_VIOLATION, Game, Turn
from pytest_gameeval.engine.live import LiveGame, register, unregister
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.views import quote, render, visible_events

MAX_TURNS = 5000  # a safety net against a rules bug; real games end far sooner
RECENT_MOVES = 5  # earlier moves a re-prompt lists (a repeat is judged against the last one)


class Observer(Protocol):
    """Optional hooks for front ends (e.g. inspect transcript spans per round and per turn).

    Events reach `event` as they happen, each inside the round it belongs to: a turn's own
    events (instruction, reply, failures) inside its `turn` context; what the host says after
    applying a lone turn inside that turn's context too; what follows a batch of simultaneous
    turns (secret ballots announced together) after all of them.
    """

    async def game_started(self, game: Game, seed: int) -> None: ...
    async def round_started(self, game: Game) -> None: ...
    async def round_ended(self, game: Game) -> None: ...
    def turn(self, game: Game, turn: Turn) -> AbstractAsyncContextManager[Any]: ...
    def event(self, game: Game, event: Event) -> None: ...


@dataclass
class _Result:
    ok: bool
    text: str = ""
    action: Any = None
    kind: str = ""
    detail: str = ""
    events: list[Event] = field(default_factory=list)  # what this turn added to the game's log
    overflow: bool = False  # the seat's prompt no longer fits its model's context


class _Session:
    """Per-game bookkeeping the runner keeps beside the rules: counts, usage, settings."""

    def __init__(self, seats: list[str], style: str, seed: int, *, ours: bool = True,
                 evaluated: set[str] | None = None):
        self.style = style
        self.seed = seed
        # the default protocol's turn handling (protocol=paper keeps each paper's): a re-prompt is
        # sampled anew, a settled turn's failed attempts leave later prompts, and a forfeit of an
        # evaluated seat (its headline settled at 0) ends the game at once
        self.resample = self.retract = ours
        self.abort_for = set(evaluated or ()) if ours else set()
        # DEGENERATE counts the rule violations that were degenerate moves (a part of RULE_VIOLATION)
        self.failures = {s: {FORMAT_ERROR: 0, RULE_VIOLATION: 0, DEGENERATE: 0, CHAT_ERROR: 0, "forfeit": 0}
                         for s in seats}
        self.moves: dict[tuple[str, str], list[str]] = {}  # (seat, action) -> the texts of its accepted moves
        self.usage = {s: {"input_tokens": 0, "output_tokens": 0, "calls": 0} for s in seats}


async def _ask(game: Game, turn: Turn, player: Player, session: _Session,
               show: Callable[[Event], None] | None = None) -> _Result:
    """Ask one turn, re-prompting on unreadable or illegal replies; the result lists its events."""
    seat = game.seats[turn.seat]
    logged: list[Event] = []  # this turn's own events (concurrent turns interleave in game.events)

    def note(event: Event) -> None:
        logged.append(event)
        if show:
            show(event)

    if turn.instruction:
        note(game.host(turn.instruction, to=(turn.seat,), action=turn.action))
    last = _Result(False, events=logged)
    system = game.system_prompt(turn.seat)
    for attempt in range(turn.retries + 1):
        view = visible_events(game.events, turn.seat)
        messages = render(session.style, system, view, turn.seat)  # the view is what it would filter again
        ctx = TurnContext(game.name, seat, turn, messages, view, attempt, session.seed, game.options, session.resample)
        structured = turn.reply is not None and player.structured
        reply = await player.act(ctx)
        usage = session.usage[turn.seat]
        usage["calls"] += 1
        usage["input_tokens"] += reply.input_tokens
        usage["output_tokens"] += reply.output_tokens
        for key, n in reply.tokens.items():
            usage[key] = usage.get(key, 0) + n
        if reply.error is not None:  # inspect already retried the call
            return _settled(session, _call_failed(game, turn, reply, attempt, session, note, logged))
        data = {"action": turn.action, "attempt": attempt, **({"structured": True} if structured else {}),
                **({"sampling": reply.sampling} if reply.sampling else {})}
        answer = game.log(Event(REPLY, reply.text, turn.seat, (turn.seat,), game.round, data))
        note(answer)
        try:
            text = turn.reply.unwrap(reply.text) if structured and turn.reply.text else reply.text  # type: ignore[union-attr]
            action = turn.parse(text)  # an unreadable reply is a format error, echo or not
            if turn.echo_check:  # a readable one that restates the host text this seat was shown is no move
                check_not_echo(reply.text, [e.text for e in logged if e.kind == HOST_MSG], system)
                # nor is one empty of content: digits for a question, a placeholder for a guess
                check_move(turn, text, session.moves.get((turn.seat, turn.action), []))
            session.moves.setdefault((turn.seat, turn.action), []).append(words_of(turn, text))
            return _settled(session, _Result(True, text, action, events=logged))
        except (ParseError, RuleViolation) as problem:
            kind = FORMAT_ERROR if isinstance(problem, ParseError) else RULE_VIOLATION
            session.failures[turn.seat][kind] += 1
            data = {"kind": kind, "action": turn.action, "attempt": attempt}
            if isinstance(problem, DegenerateMove):
                session.failures[turn.seat][DEGENERATE] += 1
                data["reason"] = DEGENERATE
            note(game.log(Event(FAILURE, str(problem), turn.seat, REFEREE_ONLY, game.round, data)))
            if session.retract:  # the re-prompt names the problem; shown its own rejected text, a
                _retract(answer)  # small model copies it again whatever the temperature
            last = _Result(False, kind=kind, detail=str(problem), events=logged)
            if attempt < turn.retries:
                earlier = session.moves.get((turn.seat, turn.action), []) if turn.no_repeat else []
                note(game.host(correction(kind, problem, earlier), to=(turn.seat,), correction=True))
    return _settled(session, last)


def _call_failed(game: Game, turn: Turn, reply: Reply, attempt: int, session: _Session,
                 note: Callable[[Event], None], logged: list[Event]) -> _Result:
    """A reply that is no reply: the model call failed (a chat error, or the context is full) or
    the provider's content filter withheld it (its own kind, counted only where it happened)."""
    kind = CONTENT_FILTER if reply.content_filter else CHAT_ERROR
    failures = session.failures[turn.seat]
    failures[kind] = failures.get(kind, 0) + 1
    data = {"kind": kind, "action": turn.action, "attempt": attempt,
            **({"context_overflow": True} if reply.context_overflow else {})}
    note(game.log(Event(FAILURE, reply.error or "", turn.seat, REFEREE_ONLY, game.round, data)))
    return _Result(False, kind=kind, detail=reply.error or "", events=logged, overflow=reply.context_overflow)


def correction(kind: str, problem: Exception, earlier: list[str]) -> str:
    """The host's re-prompt: what was wrong and, for a move that may not repeat, the moves already made."""
    what = "could not be read" if kind == FORMAT_ERROR else "breaks a rule"
    text = f"Your reply {what}: {problem}. Try again."
    made = [quote(m) for m in earlier[-RECENT_MOVES:] if m.strip()]
    if isinstance(problem, DegenerateMove) and made:
        text += f" Your moves so far: {'; '.join(made)}. Write one that differs from all of them."
    return text


def _settled(session: _Session, result: _Result) -> _Result:
    """Under the default protocol a rejected reply leaves the seat's view at once (the host's
    correction names it), and once the turn is settled the corrections leave too: prompts do not
    grow with failures. The record and the transcript keep everything."""
    if session.retract:
        for event in result.events:
            if event.data.get("correction"):
                _retract(event)
    return result


def _retract(event: Event) -> None:
    """Take an event out of every seat's view; the record keeps it, and who had seen it."""
    if not event.data.get("retracted"):
        event.data.update(retracted=True, shown_to=list(event.to or ()))
        event.to = REFEREE_ONLY


def _take_out_of_views(turn: Turn, events: list[Event]) -> None:
    """A record-only turn's exchange stays in the record but leaves every seat's view."""
    for event in events:
        event.to = REFEREE_ONLY
        event.data["probe"] = turn.action


def _settle(game: Game, session: _Session, asked: list[tuple[Turn, _Result]]) -> None:
    """Apply each answered turn (or the game's forfeit rule), in order, until the game ends."""
    for turn, result in asked:
        if turn.record_only:
            _take_out_of_views(turn, result.events)
    for turn, result in asked:
        if result.ok:
            game.apply(turn, result.text, result.action)
        elif result.overflow:  # no later call can fit either: a classified end, never a late CE
            session.failures[turn.seat]["forfeit"] += 1
            game.abort(turn.seat, "context", result.detail)
        elif result.kind == CONTENT_FILTER:  # the provider's refusal, not a forfeit of the model's
            game.abort(turn.seat, CONTENT_FILTER, result.detail)
        else:
            session.failures[turn.seat]["forfeit"] += 1
            game.forfeit(turn, result.kind, result.detail)
            if turn.seat in session.abort_for and not game.finished:
                game.abort(turn.seat, result.kind, result.detail)
        if game.finished:
            break


class _Shown:
    """Which events the observer has seen: each exactly once, in order, in its own round."""

    def __init__(self, game: Game, observer: Observer | None):
        self.game = game
        self.observer = observer
        self.seen = 0  # game.events[:seen] are shown or skipped for good
        self.early: set[int] = set()  # ids of turn events shown while their turn was asked

    def now(self, event: Event) -> None:
        self.early.add(id(event))
        self.observer.event(self.game, event)  # type: ignore[union-attr]

    def turn(self, turn: Turn) -> AbstractAsyncContextManager[Any]:
        return self.observer.turn(self.game, turn) if self.observer else nullcontext()

    async def ask(self, turn: Turn, player: Player, session: _Session) -> _Result:
        async with self.turn(turn):
            return await _ask(self.game, turn, player, session, self.now if self.observer else None)

    def catch_up(self, round_: int | None, speaker: str | None = None) -> None:
        """Show the events not shown yet, up to the first one of a later round (the next
        round's opening line waits for that round) or, given a speaker, by someone else."""
        if not self.observer:
            return
        events = self.game.events
        while self.seen < len(events) and (round_ is None or events[self.seen].round <= round_):
            event = events[self.seen]
            if speaker is not None and event.speaker != speaker and id(event) not in self.early:
                break
            if id(event) not in self.early:
                self.observer.event(self.game, event)
            self.seen += 1
        if self.seen == len(events):
            self.early.clear()


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
    evaluated: set[str] | None = None,
) -> GameRecord:
    """Play `game` to the end with one player per seat and return its record. Under the default
    protocol a forfeit by one of the `evaluated` seats ends the game at once (outcome ABORTED)."""
    missing = set(game.seats) - set(players)
    if missing:
        raise EngineError(f"no player for seat(s) {sorted(missing)}")
    for name, player in players.items():
        if not isinstance(player, Player):  # every attribute the record keeps, declared
            raise EngineError(
                f"seat {name}: {type(player).__name__} is not a Player: subclass "
                "pytest_gameeval.engine.player.Player or declare label, structured, reference, self_play and act"
            )
    session = _Session(list(game.seats), style, seed, ours=game.options.protocol != "paper", evaluated=evaluated)
    shown = _Shown(game, observer)
    if observer:
        await observer.game_started(game, seed)
    live = register(instance_id, game)
    try:
        await _play_turns(game, players, session, shown, observer, live)
    finally:
        unregister(live)
    outcome = game.outcome
    return GameRecord(
        game=game.name,
        instance_id=instance_id,
        seed=seed,
        epoch=epoch,
        options=game.options.as_dict(),
        seats=[{"name": s.name, "role": s.role, "model": players[s.name].label, "private": s.private,
                "structured": players[s.name].structured,
                **({"reference": True} if players[s.name].reference else {}),
                **({"self_play": True} if players[s.name].self_play else {})}
               for s in game.seats.values()],
        events=game.events,
        outcome={"label": outcome.label, "winner": outcome.winner, "details": outcome.details},
        failures=session.failures,
        usage=session.usage,
        notes=list(notes or []),
    )


async def _play_turns(game: Game, players: dict[str, Player], session: _Session, shown: "_Shown",
                      observer: Observer | None, live: LiveGame) -> None:
    """Ask the pending turns and settle them until the game ends."""
    turns_played = 0
    current_round = None
    while not game.finished:
        if observer and game.round != current_round:
            if current_round is not None:
                await observer.round_ended(game)
            current_round = game.round
            await observer.round_started(game)
        shown.catch_up(current_round)  # e.g. the round's opening line, before its first turn
        turns = game.pending()
        if not turns:
            raise EngineError(f"{game.name}: no pending turn but the game is not finished")
        turns_played += len(turns)
        live.asked(turns_played)
        if turns_played > MAX_TURNS:
            raise EngineError(f"{game.name}: more than {MAX_TURNS} turns; the rules never end the game")
        if len(turns) == 1:  # a lone turn: what its seat says publicly belongs inside it
            async with shown.turn(turns[0]):
                result = await _ask(game, turns[0], players[turns[0].seat], session, shown.now if observer else None)
                _settle(game, session, [(turns[0], result)])
                shown.catch_up(current_round, speaker=turns[0].seat)
            shown.catch_up(current_round)
        else:
            results = await _ask_together(shown, turns, players, session)
            _settle(game, session, list(zip(turns, results)))
            shown.catch_up(current_round)
    if observer and current_round is not None:
        shown.catch_up(game.round)
        await observer.round_ended(game)


async def _ask_together(shown: _Shown, turns: list[Turn], players: dict[str, Player], session: _Session) -> list[Any]:
    """Simultaneous turns (secret ballots). A call that fails at the provider ends the game, so the
    other calls are cancelled rather than left running (and billed) for a game nobody will score."""
    tasks = [asyncio.ensure_future(shown.ask(t, players[t.seat], session)) for t in turns]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
