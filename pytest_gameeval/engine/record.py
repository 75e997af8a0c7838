"""GameRecord: everything a metric needs, JSON-serialisable, written with jsonlines."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

import jsonlines

from pytest_gameeval.engine.events import Event
from pytest_gameeval.engine.replies import decoding_label

RECORD_SCHEMA = 1


@dataclass
class GameRecord:
    game: str
    instance_id: str
    seed: int
    epoch: int
    options: dict[str, Any]
    seats: list[dict[str, Any]]  # name, role, model, private
    events: list[Event]
    outcome: dict[str, Any]  # label, winner, details
    failures: dict[str, dict[str, int]]  # seat -> format/rule/chat/forfeit counts
    usage: dict[str, dict[str, int]]  # seat -> input_tokens/output_tokens/calls
    schema: int = RECORD_SCHEMA
    notes: list[str] = field(default_factory=list)
    # the game's version and fingerprint (engine/versions.py); None in records from before versions
    game_version: str | None = None
    game_fingerprint: str | None = None

    @property
    def label(self) -> str:
        return self.outcome["label"]

    @property
    def structured(self) -> str:
        """Whether the game's model seats played with structured decoding: "on", "off" or "mixed"
        (a reference opponent's seat is a fixed policy, not a model under test: left out)."""
        seats = [s for s in self.seats if not s.get("reference")] or self.seats
        return decoding_label([bool(s.get("structured")) for s in seats])

    def opponents(self) -> dict[str, str]:
        """model role -> who played its seats, for every role but the evaluated one: a model, or
        "self" where the role was unbound and the evaluated model played it (self-play); {} for
        records from before roles."""
        out: dict[str, set[str]] = {}
        for s in self.seats:
            role = s.get("model_role")
            if role and role != "evaluated":
                out.setdefault(role, set()).add("self" if s.get("self_play") else s["model"])
        return {role: ",".join(sorted(models)) for role, models in sorted(out.items())}

    def seat(self, name: str) -> dict[str, Any]:
        return next(s for s in self.seats if s["name"] == name)

    def seats_with_role(self, role: str) -> list[dict[str, Any]]:
        return [s for s in self.seats if s["role"] == role]

    def failure_totals(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for counts in self.failures.values():
            for kind, n in counts.items():
                totals[kind] = totals.get(kind, 0) + n
        return totals

    def to_dict(self) -> dict[str, Any]:
        d = asdict(replace(self, events=[]))  # events once, by Event.to_dict (asdict would copy them twice)
        d["events"] = [e.to_dict() for e in self.events]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        d = dict(d)
        d["events"] = [Event.from_dict(e) for e in d["events"]]
        return cls(**d)


def write_records(path: str | Path, records: Iterable[GameRecord]) -> None:
    with jsonlines.open(path, mode="w") as writer:
        writer.write_all(r.to_dict() for r in records)


def read_records(path: str | Path) -> list[GameRecord]:
    with jsonlines.open(path) as reader:
        return [GameRecord.from_dict(d) for d in reader]
