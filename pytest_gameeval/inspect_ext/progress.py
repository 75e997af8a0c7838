"""Progress a person can see in inspect's display while games run, not only when a sample ends:
games finished and playing, rounds and moves played, as one display counter per game."""

from __future__ import annotations

import time

from inspect_ai.util import display_counter

from pytest_gameeval.engine.events import REPLY, Event

MIN_INTERVAL = 1.0  # seconds between counter updates (the "log" display writes a line per update)


class GameProgress:
    """Counts for one game in this process (every sample of its task shares it)."""

    def __init__(self, game: str):
        self.caption = f"{game} games"
        self.started = self.finished = self.rounds = self.moves = 0
        self._shown = 0.0

    def game_started(self) -> None:
        self.started += 1
        self._show(force=True)

    def event(self, event: Event) -> None:
        if event.kind == REPLY:
            self.moves += 1
            self._show()

    def round_played(self) -> None:
        self.rounds += 1
        self._show()

    def game_finished(self) -> None:
        self.finished += 1
        self._show(force=True)

    def text(self) -> str:
        return (f"{self.finished} finished, {self.started - self.finished} playing, "
                f"{self.rounds} rounds, {self.moves} moves")

    def _show(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._shown < MIN_INTERVAL:
            return
        self._shown = now
        try:
            display_counter(self.caption, self.text())
        except Exception:  # no active display (e.g. a solver run outside `inspect eval`): nothing to show
            pass


_PROGRESS: dict[str, GameProgress] = {}


def progress_of(game: str) -> GameProgress:
    if game not in _PROGRESS:
        _PROGRESS[game] = GameProgress(game)
    return _PROGRESS[game]
