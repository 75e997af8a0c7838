"""pytest-timeout's --timeout on game items (pytest-timeout's own hooks; nothing without it).

A game item's time is not its own: the first item of a shard plays the whole shard (a gated game is
one shard), so a per-test timeout cut there would dump every thread's stack, fail one item and
start the next shard as if nothing happened. Instead, a game item that runs past --timeout ends the
run the way Ctrl-C does: the games finished so far stay in the journal, and the session's last line
says where it is and that the same command with --gameeval-resume plays only the rest (exit 2).
Under xdist the worker's item fails instead (runner.WorkerGameTimeout): a KeyboardInterrupt there takes the
worker down and xdist reports a crash."""

from __future__ import annotations

import signal
import threading
from typing import Any

import pytest

from pytest_gameeval.pytest_plugin.state import STATE


class GameTimeout(KeyboardInterrupt):
    """A game item ran past pytest-timeout's --timeout: the run stops as interrupted."""


def _is_game_item(item: pytest.Item) -> bool:
    return item.nodeid.startswith("gameeval::")


@pytest.hookimpl(optionalhook=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    if not _is_game_item(item) or not settings.timeout or threading.current_thread() is not threading.main_thread():
        return None  # pytest-timeout's own timer

    def expired(signum: int, frame: Any) -> None:
        state = item.config.stash.get(STATE, None)
        if state is not None:
            state.timed_out = f"{item.nodeid} ran past --timeout {settings.timeout:g} s"
        if hasattr(item.config, "workerinput"):  # a KeyboardInterrupt would take the worker down
            from pytest_gameeval.run.runner import WorkerGameTimeout  # loaded: a game is in play

            raise WorkerGameTimeout(f"{item.nodeid} ran past --timeout {settings.timeout:g} s")
        raise GameTimeout(f"{item.nodeid}: --timeout {settings.timeout:g} s")

    signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, settings.timeout)
    return True


@pytest.hookimpl(optionalhook=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> bool | None:
    if not _is_game_item(item) or threading.current_thread() is not threading.main_thread():
        return None
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    return True
