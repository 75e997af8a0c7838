"""What the tests share: one fake player (a seat no model plays), a game with every seat one, the
benchmarks' loopback OpenAI-compatible server started for a test, and a command a test can Ctrl-C.

Test modules import them as `from conftest import FakePlayer, play_all_fake` (pytest puts this folder on the path
when it loads this file)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

# pytester's in-process runs put sys.modules back as it was after each run, and numpy's C extensions
# cannot load twice in one process ("cannot load module more than once per process"): since issue 62
# the plugin loads scipy only once games start, i.e. inside an inner run, so load it here, outside them
import numpy.fft  # noqa: F401
import pytest
import scipy.stats  # noqa: F401

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Player, Reply, TurnContext

# The README's test command runs in pytest-randomly's random order (the dev extra installs it), and
# it would shuffle every pytest these tests start too: a test that reads an inner run's output
# line by line would then pass or fail by the seed (CI saw it). Inner runs keep file order; a test
# about random order asks for it with `-p randomly` (pytest unblocks a plugin named after `no:`).
INNER_RUNS_IN_FILE_ORDER = "-p no:randomly"


def _inner_runs_in_file_order(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    already = os.environ.get("PYTEST_ADDOPTS", "")
    if INNER_RUNS_IN_FILE_ORDER not in already:
        monkeypatch.setenv("PYTEST_ADDOPTS", f"{INNER_RUNS_IN_FILE_ORDER} {already}".strip())


@pytest.fixture(autouse=True)
def inner_pytest_runs_in_file_order(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pytest a test starts runs in file order: subprocesses by the environment, pytester's
    runs too (pytester clears PYTEST_ADDOPTS when it starts, so it is set again after that)."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
    _inner_runs_in_file_order(monkeypatch)


Answer = Callable[[TurnContext], "str | Reply | None"]
Change = Callable[[TurnContext, str], "str | Reply | None"]


class FakePlayer(Player):
    """A seat for tests, never a model. Either it answers by itself, `answer(ctx)` -> the reply's
    text, a Reply, or None for a failed call (a chat error); or it wraps `inner` (usually a scripted
    policy's player) and `change(ctx, inner_text)` may replace the inner reply (None: keep it).
    Every turn it is asked is kept in `prompts`, as it was shown. Like the other wrappers it is no
    reference opponent and no self-play seat, whatever `inner` is (Player's defaults)."""

    def __init__(self, answer: Answer | None = None, *, inner: Any = None, change: Change | None = None,
                 label: str | None = None, structured: bool = False, error: str = "scripted chat error"):
        if (answer is None) == (inner is None) or (change is not None and inner is None):
            raise TypeError("FakePlayer: give answer=, or inner= (with change= optionally)")
        self.answer, self.inner, self.change = answer, inner, change
        self.label = label or (inner.label if inner is not None else "fake")
        self.structured = structured
        self.error = error
        self.prompts: list[TurnContext] = []

    async def act(self, ctx: TurnContext) -> Reply:
        self.prompts.append(ctx)
        if self.inner is None:
            given = self.answer(ctx)  # type: ignore[misc]
            if given is None:
                return Reply("", error=self.error)
            return given if isinstance(given, Reply) else Reply(given)
        reply = await self.inner.act(ctx)
        changed = self.change(ctx, reply.text) if self.change is not None else None
        if changed is None:
            return reply
        return changed if isinstance(changed, Reply) else Reply(changed)


def play_all_fake(spec: Any, row: Any, epoch: int, options: Any, answer: Answer) -> tuple[Any, dict[str, FakePlayer]]:
    """One game with every seat a FakePlayer answering by `answer`: the record and the seats' players."""
    players: dict[str, FakePlayer] = {}

    def bind(seat: Any, role: str) -> FakePlayer:
        players[seat.name] = FakePlayer(answer, label=seat.name)
        return players[seat.name]

    return asyncio.run(play_case(spec, row, epoch, options, bind)), players


# A process started in the background by a non-interactive shell (`pytest ... &` in a script, as in
# scripts/flake_hunt.sh) inherits SIGINT ignored, and so does every child: a test's Ctrl-C to its inner
# run was then lost and the run played to its end (issue 67's slow hunt). The child takes SIGINT again
# before it becomes the command, without preexec_fn (not safe beside a worker's threads).
_TAKE_CTRL_C = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                "os.execv(sys.argv[1], sys.argv[1:])")


def ctrl_c_able(argv: list[str]) -> list[str]:
    """`argv` run so that SIGINT reaches it as Ctrl-C would, however this test session was started."""
    return [sys.executable, "-c", _TAKE_CTRL_C, *argv]


LOOPBACK = Path(__file__).resolve().parents[1] / "benchmarks" / "loopback_openai.py"


@contextmanager
def loopback_server(max_seconds: int, *extra: str, latency: float = 0.0) -> Iterator[str]:
    """benchmarks/loopback_openai.py on a free port of 127.0.0.1 (no latency unless asked), ending by
    itself after `max_seconds` (with `extra` arguments, e.g. its prompt cache): its base URL."""
    server = subprocess.Popen([sys.executable, str(LOOPBACK), "--latency", str(latency), "--port", "0",
                               "--max-seconds", str(max_seconds), *extra], stdout=subprocess.PIPE, text=True)
    try:
        yield server.stdout.readline().split()[-1]  # type: ignore[union-attr]
    finally:
        server.terminate()
        server.wait(10)
