"""Events: everything that happens in a game, each with who may see it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

HOST = "Host"

# Event kinds. A seat's prompt is built only from the events visible to it.
HOST_MSG = "host"  # the host speaking (public, or private to some seats)
SPEECH = "speech"  # what a seat said publicly, attributed to it
REPLY = "reply"  # a seat's raw reply (with its private thought): visible to that seat only
ACTION = "action"  # a parsed, validated action, as the host recorded it
JUDGEMENT = "judgement"  # the host's private judgement (referee only)
FAILURE = "failure"  # a format error, rule violation or chat error (referee only)

REFEREE_ONLY: tuple[str, ...] = ()


@dataclass
class Event:
    kind: str
    text: str
    speaker: str = HOST
    to: tuple[str, ...] | None = None  # None: every seat; (): nobody but the record
    round: int = 0
    data: dict[str, Any] = field(default_factory=dict)

    def visible_to(self, seat: str) -> bool:
        return self.to is None or seat in self.to

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["to"] = None if self.to is None else list(self.to)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        to = d.get("to")
        return cls(
            kind=d["kind"],
            text=d["text"],
            speaker=d.get("speaker", HOST),
            to=None if to is None else tuple(to),
            round=d.get("round", 0),
            data=d.get("data", {}),
        )
