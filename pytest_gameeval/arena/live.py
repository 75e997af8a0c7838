"""A stored session played forward through the shared engine, one request at a time.

The engine's `play_case` runs a game from its seed to the end, asking each seat's player in turn.
A session is not kept in memory between requests: every request plays the session again from its
seed, answering each turn from the stored moves, in order (rules are deterministic given the seed
and the replies), until the stored moves run out. Then the person's new reply (if the request
brought one) is stored and used, the model is asked live (each reply stored as it arrives), and
the play stops where the person must move next (`AwaitingPerson`) or at the game's end (the
record is stored). So a server killed at any moment loses at most the move in flight, a closed tab
finds its game where it left it, and the person's seat goes through the same parse / validate /
re-prompt path as any player's.

Record-only turns of the person's seat (Akinator's judge classifying the model's candidate list
for the disparity metric) are answered by the game's scripted user policy, so the model's
retrospective answers never reach the browser; the record's notes say so.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from dataclasses import dataclass, replace

from pytest_gameeval.arena.store import Move, Session, Store, storable
from pytest_gameeval.engine.errors import EngineError, GameEvalError
from pytest_gameeval.engine.game import Seat
from pytest_gameeval.engine.options import GameOptions
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.engine.spec import GameSpec, Row
from pytest_gameeval.games.arena.rules import USER_ROLE
from pytest_gameeval.players.scripted import ScriptedPlayer

ARENA_GAMES = ("akinator", "taboo", "bluffing")
MAX_PERSON_CHARS = 600  # a person's reply, as typed; each game's own limits (Taboo's 140) come after
JUDGE_STRENGTH = "strong"  # the scripted user policy that answers the person's record-only turns


class AwaitingPerson(Exception):
    """The game stopped at the person's turn; `ctx` is what the person's seat sees."""

    def __init__(self, ctx: TurnContext):
        super().__init__("awaiting the person's move")
        self.ctx = ctx


class ModelFailed(Exception):
    """The model's call failed or timed out: nothing was stored, the session stays where it was."""


class MoveConflict(Exception):
    """Another request stored this move first (two tabs, a double submit): nothing stored."""


@dataclass
class Played:
    """Where a request left a session: finished (record) or at the person's turn (ctx)."""

    record: GameRecord | None = None
    ctx: TurnContext | None = None


def person_label(player: str | None) -> str:
    return f"person:{player}" if player else "person"


def task_args_for(spec: GameSpec, task_args: dict[str, str]) -> dict[str, str]:
    """The arena's -T options that apply to one game: GAME.KEY for that game, KEY for every game
    that has KEY (max_rounds is Taboo's, max_questions Akinator's and Bluffing's)."""
    known = spec.all_options()
    own = {k: v for k, v in task_args.items() if "." not in k and k in known}
    own.update({k.split(".", 1)[1]: v for k, v in task_args.items() if k.startswith(spec.name + ".")})
    return own


def check_task_args(task_args: dict[str, str]) -> None:
    """Every -T option names an option of some arena game, with a valid value (one line if not)."""
    from pytest_gameeval.games.registry import get_spec

    specs = [get_spec(g) for g in ARENA_GAMES]
    for key in task_args:
        game, _, name = key.rpartition(".")
        if game and game not in ARENA_GAMES or not any(name in s.all_options() for s in specs if game in ("", s.name)):
            raise GameEvalError(f"-T {key}: no arena game has this option")
    for spec in specs:
        spec.parse_options(task_args_for(spec, task_args))


def new_session(spec: GameSpec, model: str, player: str | None, task_args: dict[str, str] | None = None) -> Session:
    """A session of `spec` with an unguessable id and a case drawn with a fresh seed."""
    seed = secrets.randbelow(2**31)
    options = spec.parse_options({**task_args_for(spec, task_args or {}), "seed": str(seed)})
    row = random.Random(seed).choice(_rows_of(spec, options))
    return Session(id=secrets.token_urlsafe(32), game=spec.name, model=model, row_id=row.id, seed=seed,
                   options=options, player=player)


class _Moves:
    """The session's stored moves, handed out in order; then new ones, each stored as it is made.
    A move whose text the store had to change (storable) adds a note to the record (`notes`)."""

    def __init__(self, session: Session, store: Store, new_text: str | None, notes: list[str]):
        self.session = session
        self.store = store
        self.stored = session.history
        self.next = 0
        self.new_text = new_text
        self.notes = notes

    def _note(self, move: Move) -> None:
        if move.changed:
            self.notes.append(f"move {move.seq} ({move.seat}, {move.action}): {move.changed}")

    def replay(self, ctx: TurnContext) -> Reply | None:
        if self.next >= len(self.stored):
            return None
        move = self.stored[self.next]
        if (move.seat, move.action) != (ctx.seat.name, ctx.turn.action):
            raise EngineError(f"session {self.session.id[:8]}: stored move {move.seq} is {move.seat}/{move.action}, "
                              f"the game asks {ctx.seat.name}/{ctx.turn.action}")
        self.next += 1
        self._note(move)
        return Reply(move.text)

    async def store_new(self, ctx: TurnContext, text: str, by_person: bool, model_ms: float | None = None) -> str:
        """Store a new move; returns its text as stored, which the game then plays (so a replay
        from the store plays the very same game)."""
        text, changed = storable(text)
        move = Move(self.next, ctx.seat.name, ctx.turn.action, text, by_person, model_ms=model_ms, changed=changed)
        if not await asyncio.to_thread(self.store.add_move, self.session.id, move):
            raise MoveConflict(f"move {move.seq} of this session was already made")
        self.stored.append(move)
        self.next += 1
        self._note(move)
        return text


class PersonSeat(Player):
    """The user seat, played by the person in the browser."""

    def __init__(self, moves: _Moves, judge: Player, label: str):
        self.moves = moves
        self.judge = judge
        self.label = label

    async def act(self, ctx: TurnContext) -> Reply:
        stored = self.moves.replay(ctx)
        if stored is not None:
            return stored
        if ctx.turn.record_only:  # a measurement, not a move: the person never sees it
            reply = await self.judge.act(ctx)
            return replace(reply, text=await self.moves.store_new(ctx, reply.text, by_person=False))
        if self.moves.new_text is None:
            raise AwaitingPerson(ctx)
        text, self.moves.new_text = self.moves.new_text, None
        return Reply(await self.moves.store_new(ctx, text, by_person=True))


class ModelSeat(Player):
    """The model's seat: stored replies first, then the model through inspect (ModelPlayer)."""

    def __init__(self, moves: _Moves, player: Player, timeout: float):
        self.moves = moves
        self.player = player
        self.timeout = timeout
        self.label = player.label
        self.structured = player.structured
        self.model_seconds = 0.0  # time spent waiting for the model in this request

    async def act(self, ctx: TurnContext) -> Reply:
        stored = self.moves.replay(ctx)
        if stored is not None:
            return stored
        started = time.perf_counter()
        try:
            # asyncio.timeout runs the call in this task (wait_for makes a task of it on 3.11), so the model's
            # time is inside the request's in a profile (benchmarks/arena_profile.py)
            async with asyncio.timeout(self.timeout):
                reply = await self.player.act(ctx)
        except TimeoutError:
            raise ModelFailed(f"the model did not answer within {self.timeout:g} s") from None
        except Exception as e:  # the provider refused (e.g. a 404 from a wrong base URL): its first line
            raise ModelFailed(f"the model's call failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
                              if str(e) else f"the model's call failed: {type(e).__name__}") from None
        finally:
            self.model_seconds += time.perf_counter() - started
        if reply.error is not None:
            raise ModelFailed(f"the model's call failed: {reply.error.splitlines()[0][:200]}")
        stored = await self.moves.store_new(
            ctx, reply.text, by_person=False, model_ms=round(1000 * (time.perf_counter() - started), 3)
        )
        return replace(reply, text=stored)


_rows: dict[str, list[Row]] = {}


def _rows_of(spec: GameSpec, options: GameOptions) -> list[Row]:
    """The game's rows for these options, read once per process (each request plays its session
    again, and reading a game's data file costs more than the replay)."""
    drawn = {k: v for k, v in options.as_dict().items() if k != "seed" or options.shuffle}
    key = json.dumps([spec.name, drawn], sort_keys=True, default=str)
    if key not in _rows:
        _rows[key] = spec.select_rows(options)
    return _rows[key]


def case_row(spec: GameSpec, session: Session) -> Row:
    rows = _rows_of(spec, session.options)
    row = next((r for r in rows if r.id == session.row_id), None)
    if row is None:
        raise EngineError(f"session {session.id[:8]}: case {session.row_id!r} is no longer in {spec.name}'s data")
    return row


async def advance(spec: GameSpec, session: Session, store: Store, model_player: Player, new_text: str | None = None,
                  *, timeout: float = 60.0) -> tuple[Played, float]:
    """Play `session` as far as it goes; (where it stopped, seconds spent waiting for the model).

    Raises ModelFailed (nothing of the model's turn stored) or MoveConflict."""
    notes = [f"user seat played by a person in the browser (gameeval arena); evaluated model {session.model}",
             "the user seat's record-only turns (judge classifications) answered by the game's scripted user policy"]
    moves = _Moves(session, store, new_text, notes)
    model_seat = ModelSeat(moves, model_player, timeout)

    def bind(seat: Seat, model_role: str) -> Player:
        if seat.role != USER_ROLE:
            return model_seat
        strength = JUDGE_STRENGTH if JUDGE_STRENGTH in spec.scripted else next(iter(spec.scripted))
        judge = ScriptedPlayer(
            spec.scripted[strength][USER_ROLE], derive_seed(session.seed, seat.name), f"scripted/{strength}"
        )
        return PersonSeat(moves, judge, person_label(session.player))

    try:
        record = await play_case(spec, case_row(spec, session), 0, session.options, bind, notes=notes)
    except AwaitingPerson as waiting:
        return Played(ctx=waiting.ctx), model_seat.model_seconds
    if session.status != "finished":
        await asyncio.to_thread(store.finish, session.id, record.to_dict())
    return Played(record=record), model_seat.model_seconds
