"""Who plays each seat, and why: the one decision both front ends make (inspect's solver with
`--model-role`, the pytest plugin with `--gameeval-role`), so the two agree on every seat.

A seat's model role is played
- by the model under evaluation, where the role is the evaluated one;
- by what the user bound to it (a model; in a pytest test, also a Player);
- else, unbound, by the game's reference policy where the game has one for it (opponents=reference,
  the default);
- else by the evaluated model (self-play).
An unbound role gets a note saying who played it and why. The record keeps the answer per seat
(`model_role`, and the player's `reference` / `self_play` flags); `seat_table` reads it back, so an
inspect log and a pytest report say the same of the same game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Mapping, TypeVar

if TYPE_CHECKING:  # only the annotation
    from pytest_gameeval.engine.options import GameOptions

from pytest_gameeval.engine.roles import how_to_bind, lookup_role
from pytest_gameeval.engine.spec import EVALUATED, GameSpec

# how a seat came to be played by whom (the record's seats, the report's cases, the log's setup card)
AS_EVALUATED, BOUND, REFERENCE, SELF_PLAY = "evaluated", "bound", "reference", "self-play"

T = TypeVar("T")  # what plays a seat: a model, a model name, or a Player (the front end's business)


@dataclass(frozen=True)
class SeatChoice(Generic[T]):
    role: str  # the seat's model role expression
    played_as: str  # AS_EVALUATED | BOUND | REFERENCE | SELF_PLAY
    plays: T | None  # None: no model was given to play it
    note: str | None = None  # for an unbound role: who plays it and why


class Seating(Generic[T]):
    """The seat choices of one game. `evaluated` plays the evaluated role, `bound` maps role names to
    what the user bound (a list for a list role `players=A,B,C`), `reference` plays reference roles,
    `self_play` plays any other unbound role; `flag` is how the user binds a role on this front end
    (for notes). Each role is decided once and its note added to `notes` once."""

    def __init__(self, spec: GameSpec, options: GameOptions, *, evaluated: T | None,
                 bound: Mapping[str, T | list[T]], reference: T, self_play: T | None, flag: str,
                 notes: list[str] | None = None):
        self.spec, self.options, self.flag = spec, options, flag
        self.evaluated, self.bound, self.reference, self.self_play = evaluated, bound, reference, self_play
        self.notes = notes if notes is not None else []
        self.chosen: dict[str, SeatChoice[T]] = {}

    def choose(self, role: str) -> SeatChoice[T]:
        if role not in self.chosen:
            self.chosen[role] = choice = self._decide(role)
            if choice.note is not None and choice.note not in self.notes:
                self.notes.append(choice.note)
        return self.chosen[role]

    def _decide(self, role: str) -> SeatChoice[T]:
        if role == EVALUATED:
            return SeatChoice(role, AS_EVALUATED, self.evaluated)
        bound = lookup_role(role, self.bound)
        if bound is not None:
            return SeatChoice(role, BOUND, bound)
        reference = self.spec.plays_reference(role, self.options)
        plays = self.reference if reference else self.self_play
        if plays is None:
            return SeatChoice(role, SELF_PLAY, None)
        note = unbound_note(self.spec, role, str(plays), how_to_bind(role, self.flag), self.options)
        return SeatChoice(role, REFERENCE if reference else SELF_PLAY, plays, note)


def unbound_note(spec: GameSpec, role: str, played_by: str, bind_hint: str, options: GameOptions) -> str:
    """The note a record and log get for a model role the user did not bind: who played it and why."""
    head = f"model role '{role}' is not bound ({bind_hint}): played by "
    if spec.plays_reference(role, options):
        return (
            head + f"the reference policy {played_by} (opponents=reference, the default; opponents=self for self-play)"
        )
    why = "opponents=self" if role in spec.reference_roles else f"{spec.name} has no reference policy for it"
    return head + f"the evaluated model {played_by} (self-play: {why})"


def played_as(seat: Mapping[str, Any]) -> str:
    """How a record's seat was played (AS_EVALUATED, BOUND, REFERENCE, SELF_PLAY), from what the
    record keeps; "" for records from before model roles."""
    role = seat.get("model_role")
    if role is None:
        return ""
    if role == EVALUATED:
        return AS_EVALUATED
    return REFERENCE if seat.get("reference") else SELF_PLAY if seat.get("self_play") else BOUND


def why_played(model_role: str, how: str) -> str:
    """A few words on why a seat has its player, as the log's setup card says it."""
    if how == AS_EVALUATED:
        return "evaluated"
    if how == BOUND:
        return f"model role {model_role}"
    what = "reference policy" if how == REFERENCE else "self-play"
    return f"{what}: model role {model_role} not bound"


def seat_table(seats: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Who played each seat of a record (its `seats`) and why: seat, role, model role, model, played_as."""
    return [{"seat": s["name"], "role": s["role"], "model_role": s.get("model_role", ""), "model": s["model"],
             "played_as": played_as(s)} for s in seats]
