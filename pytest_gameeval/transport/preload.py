"""What a run needs only at its end loads while its first games wait on the network.

Why: the report's statistics (scipy.stats and numpy: ~0.5 s of CPU on an idle 2-core machine,
measured for issue 62) are needed only once the games are over (intervals, verdicts), yet each
front end used to import them either before the first model call (the pytest plugin, through its
verdict modules) or after the last (the inspect front's scorer). Either way the user waited for
them. While games are in flight the process mostly waits for replies, so the import is done then,
in a background thread, a little after the first game starts (its first requests are out by then).

Only third-party modules are preloaded (never ours: pytest rewrites our modules' asserts on
import, and that is left to the main thread). Python's import locks make a main-thread import of
the same module wait for this one instead of doing it twice. `GAMEEVAL_PRELOAD=0` turns it off (a
same-time A/B in benchmarks/http_concurrency.py).
"""

from __future__ import annotations

import importlib
import os
import threading

ENV = "GAMEEVAL_PRELOAD"
MODULES = ("scipy.stats",)  # numpy comes with it
AFTER_SECONDS = 0.5  # after the first game starts: its first requests are out, their replies not yet in

_thread: threading.Timer | None = None


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "off", "no")


def _load() -> None:
    for name in MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that cannot load fails where it is used, with its own error
            return


def start() -> None:
    """Once per process (the first game in play): load MODULES in a background thread."""
    global _thread
    if _thread is not None or not enabled():
        return
    _thread = threading.Timer(AFTER_SECONDS, _load)
    _thread.name = "gameeval-preload"
    _thread.daemon = True  # never keeps a process alive; wait() below lets the plugin end it cleanly
    _thread.start()


def wait(timeout: float = 30.0) -> None:
    """Before the process ends: let an import in progress finish (not cut by the interpreter's exit)."""
    if _thread is not None and _thread.is_alive():
        _thread.join(timeout)
