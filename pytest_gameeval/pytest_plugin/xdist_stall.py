"""The xdist controller's watchdog: a run whose workers cannot go on ends instead of waiting for ever.

xdist's controller waits for its workers' events. If work is left in its queue and no live worker
holds any (a scheduler that handed a replacement worker nothing, a worker that never came up), no
event will ever come: the run hangs until CI kills it, and the games played are lost with it.
Seen with xdist 3.8 when a worker was killed after its first shard (xdist_hooks.remove_node now
avoids that case); this watchdog is what ends any other such stall. After STALL_SECONDS of it, the
controller is interrupted as by Ctrl-C: the journal is kept, no report is written, and the last line
says the run stalled and how to resume (report_writer).
"""

from __future__ import annotations

import _thread
import os
import threading
import time
from typing import Any, Callable

# longer than any replacement worker takes to start and collect (about 10 s on 2 busy cores)
STALL_SECONDS = 120.0


def stall_seconds() -> float:
    return float(os.environ.get("GAMEEVAL_XDIST_STALL_SECONDS", "") or STALL_SECONDS)


def stalled(sched: Any) -> bool:
    """Work left in the queue, and no worker holding any."""
    queue = getattr(sched, "workqueue", None)
    assigned = getattr(sched, "assigned_work", None)
    if not queue or assigned is None:
        return False
    return all(not any(not done for unit in work.values() for done in unit.values()) for work in assigned.values())


class StallWatch:
    def __init__(self, sched: Any, on_stall: Callable[[str], None], seconds: float | None = None,
                 interrupt: Callable[[], None] = _thread.interrupt_main):
        self.sched, self.on_stall, self.interrupt = sched, on_stall, interrupt
        self.seconds = stall_seconds() if seconds is None else seconds
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="gameeval-xdist-stall", daemon=True)

    def start(self) -> StallWatch:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.done.set()

    def _watch(self) -> None:
        since = None
        while not self.done.wait(min(2.0, self.seconds / 4)):
            try:
                now_stalled = stalled(self.sched)
            except RuntimeError:  # the scheduler's dicts changed while read: look again
                continue
            if not now_stalled:
                since = None
                continue
            since = since or time.monotonic()
            if time.monotonic() - since >= self.seconds:
                left = sum(len(unit) for unit in list(self.sched.workqueue.values()))
                self.on_stall(f"xdist stalled: {left} test items left and no worker given any for "
                              f"{self.seconds:g} s")
                self.interrupt()
                return
