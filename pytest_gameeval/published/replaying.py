"""Replaying a published game through our rules, whichever game: run it with a replay player per
seat, then give every recorded reply its fate (accepted as the same move the paper's harness read,
read differently, read where it could not, rejected with our check, a failed call, or not reached
because the replay diverged first)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from pytest_gameeval.engine.events import ACTION, FAILURE, REPLY, SPEECH, Event
from pytest_gameeval.engine.game import CHAT_ERROR, Game
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.runner import play
from pytest_gameeval.games.ballots import match_name
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.replay import Recorded, ReplayDiverged, ReplaySeat, left_over
from pytest_gameeval.published.gameeval_logs import MODELS, VOTE, PublishedGame, PublishedReply

SAME_MOVE, READ_DIFFERENTLY = "same move", "read differently"
READ_UNREADABLE = "read where the paper's harness could not"
REJECTED, FAILED_CALL, NOT_REACHED = "rejected", "failed call", "not reached"
FATES = (SAME_MOVE, READ_DIFFERENTLY, READ_UNREADABLE, REJECTED, FAILED_CALL, NOT_REACHED)


@dataclass
class Fate:
    reply: PublishedReply
    fate: str = NOT_REACHED
    check: str = ""  # for a rejected reply: our check's message; for one read differently: both reads


@dataclass
class Replay:
    game: PublishedGame
    protocol: str
    fates: list[Fate]
    record: GameRecord | None = None  # None when the replay diverged before the game ended
    diverged: dict[str, str] | None = None
    outcome: dict[str, Any] = field(default_factory=dict)  # our winner and round (when the game ended)

    @property
    def to_end(self) -> bool:
        return self.diverged is None and self.record is not None

    @property
    def same_outcome(self) -> bool:
        return self.to_end and self.outcome == {"winner": self.game.winner, "round": self.game.rounds}


def run_replay(game: Game, published: PublishedGame, protocol: str, winners: dict[str, str], *,
               strict: bool = False) -> Replay:
    """Play `game` (seated as `published`) with a replay seat per player; `winners` maps our outcome
    labels to the published winner's words."""
    seats = {name: ReplaySeat([Recorded(r.action, r.text, r.where) for r in published.replies if r.seat == name],
                              MODELS.get(published.models[name], published.models[name]), strict=strict)
             for name in published.seats}
    record, diverged = None, None
    try:
        record = asyncio.run(play(game, dict(seats), instance_id=published.source, seed=0))
        diverged = left_over(seats)
    except ReplayDiverged as stop:
        diverged = stop
    replay = Replay(published, protocol, reply_fates(game.events, published.replies), record,
                    diverged.as_dict() if diverged else None)
    if record is not None:
        spec = get_spec(record.game)  # what judged it: `gameeval rejudge` says from which version
        record.game_version, record.game_fingerprint = spec.version, spec.fingerprint
        label, details = record.label, record.outcome["details"]
        replay.outcome = {"winner": winners.get(label, label), "round": details["rounds"]}
    return replay


def reply_fates(events: list[Event], replies: list[PublishedReply]) -> list[Fate]:
    """Each recorded reply's fate, read from the replayed game's events: a seat's replies reach the
    game in order, each as a first-attempt reply event (or, for a failed call, a chat error)."""
    fates = [Fate(r) for r in replies]
    queues: dict[str, list[Fate]] = {}
    for fate in fates:
        queues.setdefault(fate.reply.seat, []).append(fate)
    current: dict[str, Fate] = {}  # seat -> its reply being judged
    for event in events:
        seat, first = event.speaker, event.data.get("attempt") == 0
        if event.kind == REPLY and first and queues.get(seat):
            current[seat] = queues[seat].pop(0)
            current[seat].fate = SAME_MOVE
        elif event.kind == FAILURE and first and event.data.get("kind") == CHAT_ERROR and queues.get(seat):
            queues[seat].pop(0).fate = FAILED_CALL
        elif event.kind == FAILURE and first and seat in current:
            current[seat].fate, current[seat].check = REJECTED, event.text
            del current[seat]
        elif event.kind in (ACTION, SPEECH) and seat in current and _is_move(event):
            _compare(current.pop(seat), event)
    return fates


def _is_move(event: Event) -> bool:
    return (event.kind == ACTION and "choice" in event.data) or bool(event.data.get("description"))


def _compare(fate: Fate, event: Event) -> None:
    """An accepted reply: the same move GameEval read, or not."""
    value = fate.reply.value
    if not isinstance(value, dict):
        fate.fate, fate.check = READ_UNREADABLE, f"GameEval published None; we read {event.text[:80]!r}"
        return
    if fate.reply.action == VOTE:  # GameEval matched "Player 5" to player5 as we do (its game went on)
        theirs = str(value.get("name", value.get("vote")) or "")
        same = match_name(theirs, [ours := event.data.get("choice", "")]) == ours
    else:
        theirs, ours = str(value.get("speak") or ""), event.text
        same = theirs.strip() == ours.strip()
    if not same:
        fate.fate, fate.check = READ_DIFFERENTLY, f"GameEval read {str(theirs)[:60]!r}, we read {str(ours)[:60]!r}"
