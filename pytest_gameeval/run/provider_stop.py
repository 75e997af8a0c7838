"""When failures at the provider stop a run, so a CI job spends no more games (and money) on a
provider that cannot answer.

A failure retrying cannot fix (a wrong key, an unknown model, an unreadable body) stops the run at
once. A failure whose retries ran out (429, 5xx, refused connections, a silent server) stops it
when that model has not answered once in this run, or after STREAK such games in a row: a run
whose provider went down mid-way ends instead of waiting out every remaining game's retries.
"""

from __future__ import annotations

from typing import Any

from pytest_gameeval.engine.errors import ProviderError

STREAK = 3  # games in a row lost to one model's exhausted retries that stop the run
STOPPED = "not played: the run stopped on a provider failure: "  # a case's reason; the summary reads it back


class ProviderStop:
    def __init__(self) -> None:
        self.cause: str | None = None  # why the run stopped; None while it goes on
        self.answered: set[str] = set()  # models that played a whole game in this run
        self.streak: dict[str, int] = {}

    def played(self, seats: list[dict[str, Any]]) -> None:
        for seat in seats:
            self.answered.add(seat["model"])
            self.streak[seat["model"]] = 0

    def failed(self, error: ProviderError) -> None:
        if self.cause is not None:
            return
        if error.fatal:
            self.cause = error.cause
            return
        streak = self.streak[error.model] = self.streak.get(error.model, 0) + 1
        if error.model not in self.answered:
            self.cause = f"{error.cause} (it has not answered once in this run)"
        elif streak >= STREAK:
            self.cause = f"{error.cause} ({streak} games in a row)"

    def not_played(self) -> str:
        return f"{STOPPED}{self.cause}"
