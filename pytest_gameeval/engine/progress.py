"""Progress lines for a run without a terminal (CI logs), shared by both front ends.

With a terminal, inspect's display and pytest's dots show progress. Written to a file (CI), inspect
prints only "Monitor from another shell..." until the end and pytest nothing until its summary, so
each front end runs a `Ticker` that prints one line per game every GAMEEVAL_PROGRESS_SECONDS
(default 15; 0: none): games finished of the total, the headline so far with its count, the
outcomes, and how far each game in play has got (round and turn)."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from typing import Callable, TextIO

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.live import in_play

PROGRESS_ENV = "GAMEEVAL_PROGRESS_SECONDS"
DEFAULT_SECONDS = 15.0


def progress_seconds() -> float | None:
    """Seconds between progress lines; None when turned off (GAMEEVAL_PROGRESS_SECONDS=0)."""
    raw = os.environ.get(PROGRESS_ENV, "").strip()
    if not raw:
        return DEFAULT_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        raise GameEvalError(f"{PROGRESS_ENV}={raw!r} must be a number of seconds (0: no progress lines)") from None
    return seconds if seconds > 0 else None


def without_terminal(stream: TextIO) -> bool:
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real stream
        return True


class Tally:
    """One game's counts in this process: thread-safe to read while the games play."""

    def __init__(self, game: str, total: int | None, headline: str | None):
        self.game, self.total, self.headline = game, total, headline
        self.started = self.finished = self.errors = 0
        self.outcomes: Counter[str] = Counter()
        self.headline_values: list[float] = []

    def game_started(self) -> None:
        self.started += 1

    def game_finished(self, label: str | None, scores: dict[str, float] | None) -> None:
        """A game ended: its outcome label and scores (None for a harness error)."""
        self.finished += 1
        if label is None:
            self.errors += 1
            return
        self.outcomes[label] += 1
        value = (scores or {}).get(self.headline) if self.headline else None
        if isinstance(value, (int, float)) and value == value:  # NaN: undefined for this game
            self.headline_values.append(float(value))

    def line(self) -> str:
        of = f" of {self.total}" if self.total else ""
        noun = "game" if (self.total or self.finished) == 1 else "games"
        parts = [f"{self.game}: {self.finished}{of} {noun} finished, {self.started - self.finished} playing"]
        values = self.headline_values
        if values:
            if all(v in (0.0, 1.0) for v in values):
                parts.append(
                    f"{self.headline} {int(sum(values))}/{len(values)} = {sum(values) / len(values):.0%} (headline)"
                )
            else:
                parts.append(f"{self.headline} mean {sum(values) / len(values):.3g} over {len(values)} (headline)")
        if self.outcomes:
            parts.append("outcomes " + " ".join(f"{k} {n}" for k, n in sorted(self.outcomes.items())))
        if self.errors:
            parts.append(f"{self.errors} harness errors")
        line = ", ".join(parts)
        where = in_play(self.game)  # how far each game in play has got: a long game still moves
        return f"{line}; in play: {where}" if where else line


class Ticker:
    """A daemon thread writing each started game's line every `seconds` while a game plays (or the
    counts changed since the last line): an idle process prints nothing, a slow game still shows
    the run is alive."""

    def __init__(self, seconds: float, tallies: Callable[[], list[Tally]], write: Callable[[str], None],
                 prefix: str = "gameeval progress"):
        self.seconds, self._tallies, self._write, self.prefix = seconds, tallies, write, prefix
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()
        self._last: list[str] = []

    def start(self) -> "Ticker":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="gameeval-progress", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            try:
                tallies = [t for t in self._tallies() if t.started]
                lines = [t.line() for t in tallies]
            except Exception:  # counts changing under us: skip this tick rather than die
                continue
            if not lines or (lines == self._last and not any(t.started > t.finished for t in tallies)):
                continue
            self._last = lines
            elapsed = int(time.monotonic() - self._started)
            for line in lines:
                try:
                    self._write(f"{self.prefix} ({elapsed} s): {line}")
                except Exception:  # the stream went away (interpreter shutting down)
                    return
