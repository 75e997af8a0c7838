"""`gameeval rejudge`: recorded games replayed through the installed version of each game's rules,
move checks and metrics, with no model call (issue 45).

Each recorded seat becomes a replay player (players/replay.py) answering every call with the reply
the model really gave, re-prompted attempts included. The game is set up again from the record
(its row, epoch, options and seed), so it asks the same turns as long as the installed rules judge
the replies as the recorded version did. Where they judge differently:

- a reply now accepted that was rejected: the recorded re-prompts of that turn are not asked;
- a reply now rejected that was accepted: the game asks again, the recording has no answer, and
  the replay ends there as *diverged* (where and why): no model said what would come next.

Out: per game the moves judged differently, the games that diverged, the outcomes that changed,
and the re-judged records, scored and summarised by the installed metrics. A re-judged report
stands in for a rerun (the gate and `report diff` take it as a baseline, and say so) only where the
models were shown the same prompts: the report's prompt digest (analysis/report/prompt_digest.py) is the
installed one and every host line of the replays is the recorded one.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.events import FAILURE, HOST_MSG, REPLY, Event
from pytest_gameeval.engine.game import CHAT_ERROR, Game
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.runner import play
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.replay import Recorded, ReplayDiverged, ReplaySeat, left_over
from pytest_gameeval.published.from_record import replayed_game

ACCEPTED, FAILED_CALL, NOT_ASKED = "accepted", "failed call", "not asked again (an earlier attempt is now accepted)"


@dataclass
class Rejudged:
    old: GameRecord
    new: GameRecord | None = None  # None: diverged or could not be set up again
    diverged: dict[str, str] | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)  # moves judged differently
    host_line: str | None = None  # the first host line of the replay that differs from the recorded one
    error: str | None = None

    @property
    def outcome_changed(self) -> bool:
        return self.new is not None and (self.new.label, self.new.outcome.get("winner")) != (
            self.old.label, self.old.outcome.get("winner"))


def recordings(record: GameRecord) -> dict[str, list[Recorded]]:
    """Each seat's replies in the order it gave them, attempts included; a failed call as None."""
    out: dict[str, list[Recorded]] = {s["name"]: [] for s in record.seats}
    for i, e in enumerate(record.events):
        attempt = int(e.data.get("attempt", 0) or 0)
        if e.kind == REPLY and e.speaker in out:
            out[e.speaker].append(Recorded(e.data.get("action", ""), e.text, f"event {i}, round {e.round}", attempt))
        elif e.kind == FAILURE and e.data.get("kind") == CHAT_ERROR and e.speaker in out:
            out[e.speaker].append(Recorded(e.data.get("action", ""), None, f"event {i}, round {e.round}", attempt))
    return out


def verdicts(events: list[Event]) -> dict[str, list[dict[str, Any]]]:
    """Each seat's judged replies in order: round, action, attempt and the verdict (accepted, a
    failed call, or the failure kind with its message)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        entry = {"round": e.round, "action": e.data.get("action", ""), "attempt": e.data.get("attempt", 0)}
        if e.kind == REPLY:
            out.setdefault(e.speaker, []).append({**entry, "verdict": ACCEPTED})
        elif e.kind == FAILURE and e.data.get("kind") == CHAT_ERROR:
            out.setdefault(e.speaker, []).append({**entry, "verdict": FAILED_CALL})
        elif e.kind == FAILURE and out.get(e.speaker):
            out[e.speaker][-1]["verdict"] = f"{e.data.get('kind')}: {e.text}"
    return out


def changed_moves(old: list[Event], new: list[Event], seats: dict[str, ReplaySeat]) -> list[dict[str, Any]]:
    """The recorded replies the installed rules judge differently (or no longer ask for)."""
    before, after = verdicts(old), verdicts(new)
    changes = []
    for name, seat in seats.items():
        judged = dict(zip(seat.handed, after.get(name, [])))
        for index, was in enumerate(before.get(name, [])):
            now = judged.get(index, {}).get("verdict") if index in judged else (
                NOT_ASKED if index in seat.skipped else None)
            if now is not None and now != was["verdict"]:
                changes.append({"seat": name, **{k: was[k] for k in ("round", "action", "attempt")},
                                "was": was["verdict"], "now": now})
    return changes


def first_host_difference(old: list[Event], new: list[Event]) -> str | None:
    """The first host line the replay says differently (corrections aside: they name each problem)."""
    said = lambda events: [e.text for e in events if e.kind == HOST_MSG and not e.data.get("correction")]  # noqa: E731
    for was, now in zip(said(old), said(new)):
        if was != now:
            return f"{was[:80]!r} is now {now[:80]!r}"
    return None


def rejudge_record(record: GameRecord) -> Rejudged:
    """One recorded game replayed through the installed game (never raises for a record's content)."""
    result = Rejudged(record)
    try:
        spec = get_spec(record.game)
        game, seed = set_up(record)
    except (GameEvalError, KeyError, ValueError) as e:
        result.error = str(e)
        return result
    options = game.options
    seats = {s["name"]: ReplaySeat(recordings(record)[s["name"]], s["model"], structured=bool(s.get("structured")))
             for s in record.seats}
    evaluated = {s["name"] for s in record.seats if s.get("model_role") == EVALUATED}
    try:
        new = asyncio.run(play(game, dict(seats), instance_id=record.instance_id, seed=seed, epoch=record.epoch,
                               style=options.style, evaluated=evaluated, notes=list(record.notes)))
        stop = left_over(seats)
    except ReplayDiverged as diverged:
        new, stop = None, diverged
    result.changes = changed_moves(record.events, game.events, seats)
    result.host_line = first_host_difference(record.events, game.events)
    result.diverged = stop.as_dict() if stop else None
    if new is not None and stop is None:
        result.new = _as_recorded(new, record, spec)
    return result


def set_up(record: GameRecord) -> tuple[Game, int]:
    """The recorded game set up again by the installed game: from its row, epoch, options and seed,
    or, for a replay of a paper's published game, seated as that replay was."""
    replayed = replayed_game(record)
    if replayed is not None:
        return replayed, record.seed
    spec = get_spec(record.game)
    options = spec.parse_options(record.options)
    row = next((r for r in spec.rows(options) if r.id == record.instance_id), None)
    if row is None:
        raise GameEvalError(f"case {record.instance_id!r} is not in the installed game's data")
    game, seed = spec.setup(row, record.epoch, options)
    if seed != record.seed:
        raise GameEvalError(f"the installed game derives seed {seed}, the record has {record.seed}")
    return game, seed


def _as_recorded(new: GameRecord, old: GameRecord, spec: Any) -> GameRecord:
    """The re-judged record with the recorded seats' roles and flags, and the installed version."""
    for seat, was in zip(new.seats, old.seats):
        seat.update({k: was[k] for k in ("model_role", "reference", "self_play") if k in was})
    new.game_version, new.game_fingerprint = spec.version, spec.fingerprint
    new.notes = [*old.notes, f"re-judged by gameeval rejudge from {old.game} version {old.game_version}"]
    return new
