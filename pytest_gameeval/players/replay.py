"""A seat replayed from a recording: each call is answered with the seat's next recorded reply.

A recording (a published paper's game, one of our own records) holds the replies the seat gave in
the game that was played: one per turn, and for our own records every re-prompted attempt too
(`Recorded.attempt`); a turn's later attempts the replayed game does not ask for are skipped.
Replayed through our rules, the game asks the same questions in the same order as long as it
agrees with the game that was recorded; the moment it asks for something the recording lacks,
the replay has *diverged*, and says where and why:

- a re-prompt the recording has no answer to (our rules rejected a reply the recorded game took);
- a turn of another kind than the recorded one (our rules are in another phase);
- a turn after the seat's last recorded reply (our game goes on where the recorded one ended).

`strict=True` ends the replay there (`ReplayDiverged` stops the game: nothing after it would be the
recorded game). With `strict=False` a re-prompt is answered with a failed call instead, so the
turn is forfeited by the game's rule and the replay goes on: that measures the fate of every
recorded reply, where the forfeit's consequences are kept from changing what later replies meet
(e.g. SpyFall's eliminations forced to the recorded ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from pytest_gameeval.engine.player import Player, Reply, TurnContext

REPROMPT, PHASE, EXHAUSTED, LEFT_OVER = "re-prompt", "phase", "exhausted", "left over"
NO_RECORDED_REPLY = "replay: the recording has no reply to a re-prompt"  # the chat error a lenient replay answers


@dataclass(frozen=True)
class Recorded:
    """One recorded reply: the turn's action it answered, its text (None: the call failed) and
    where it is in its source (for a reader of a divergence)."""

    action: str
    text: str | None
    where: str = ""
    attempt: int = 0  # our own records keep a turn's re-prompted attempts too (1, 2, ...)


class ReplayDiverged(Exception):
    """The game asked a replayed seat for something its recording does not have."""

    def __init__(self, seat: str, action: str, kind: str, why: str, where: str = ""):
        self.seat, self.action, self.kind, self.why, self.where = seat, action, kind, why, where
        super().__init__(f"{seat} ({action}): {why}" + (f" [{where}]" if where else ""))

    def as_dict(self) -> dict[str, str]:
        return {"seat": self.seat, "action": self.action, "kind": self.kind, "why": self.why, "where": self.where}


class ReplaySeat(Player):
    """Answers each call of its seat with the seat's next recorded reply."""

    def __init__(self, replies: Iterable[Recorded], label: str, *, strict: bool = True, structured: bool = False):
        self.replies = list(replies)
        self.label = label
        self.strict = strict
        self.structured = structured  # as the recorded seat decoded (a plain-text turn's reply is then JSON)
        self.used = 0  # recorded replies handed out so far
        self.reprompts = 0  # re-prompts answered with a failed call (strict=False)
        self.handed: list[int] = []  # indexes of the recorded replies handed out, in order
        self.skipped: list[int] = []  # indexes of recorded re-prompted attempts the game no longer asked for

    @property
    def left(self) -> list[Recorded]:
        return self.replies[self.used:]

    async def act(self, ctx: TurnContext) -> Reply:
        seat, action = ctx.seat.name, ctx.turn.action
        if ctx.attempt == 0:  # a new turn: the recorded turn's later attempts were not needed this time
            while self.used < len(self.replies) and self.replies[self.used].attempt > 0:
                self.skipped.append(self.used)
                self.used += 1
        elif self.used < len(self.replies) and self.replies[self.used].attempt == ctx.attempt:
            return self._hand_out(seat, action)  # the recording has this re-prompt's answer
        if ctx.attempt > 0:
            last = self.replies[self.used - 1]
            if self.strict:
                raise ReplayDiverged(seat, action, REPROMPT, "our rules rejected the recorded reply and asked "
                                     "again; the recording has one reply per turn", last.where)
            self.reprompts += 1
            return Reply("", error=NO_RECORDED_REPLY)
        if self.used >= len(self.replies):
            raise ReplayDiverged(seat, action, EXHAUSTED, f"the game asks for a {action} after the seat's "
                                 f"last recorded reply ({len(self.replies)} in all)")
        return self._hand_out(seat, action)

    def _hand_out(self, seat: str, action: str) -> Reply:
        recorded = self.replies[self.used]
        if recorded.action != action:
            raise ReplayDiverged(seat, action, PHASE, f"the game asks for a {action}; the seat's next "
                                 f"recorded reply is a {recorded.action}", recorded.where)
        self.handed.append(self.used)
        self.used += 1
        if recorded.text is None:
            return Reply("", error="the recorded call failed")
        return Reply(recorded.text)


def left_over(seats: dict[str, ReplaySeat]) -> ReplayDiverged | None:
    """The first seat whose recording goes on after the replayed game ended, as a divergence."""
    for name, seat in seats.items():
        while seat.left and seat.left[0].attempt > 0:  # re-prompted attempts of the last turn, not needed
            seat.skipped.append(seat.used)
            seat.used += 1
        if seat.left:
            nxt = seat.left[0]
            return ReplayDiverged(name, nxt.action, LEFT_OVER, f"the game ended with {len(seat.left)} recorded "
                                  f"repl{'y' if len(seat.left) == 1 else 'ies'} of this seat left", nxt.where)
    return None
