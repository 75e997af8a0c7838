"""Keep the garbage collector's full passes rare while games are played.

Why: a process that plays games holds a large heap that lives as long as the process (inspect, the
SDKs, pytest, scipy and their imports: well over a million objects), and 64 games in flight add
their own (their records, and inspect's events of every call). CPython's full (generation 2)
collection walks all of it, and the games' allocations make it run every few seconds. Measured on
the pytest front (128 Ask-Guess games x 30 rounds over HTTP, one process, 1 s latency): 30 full
collections of 200-450 ms each, a quarter of the client's CPU; each stalls the event loop, so every
reply that arrives meanwhile waits, and the later the round the bigger the heap, so a call's CPU grew
with the round (docs/performance.md).

How: while at least one game is in play in this process, a full collection runs every
FULL_PASS_EVERY passes of generation 1 instead of CPython's 10; the user's thresholds come back when
the last game in flight ends. Generations 0 and 1 are untouched: short-lived garbage, cycles
included, is collected as before. `GAMEEVAL_GC_TUNING=0` turns it off.

Not done, on purpose: `gc.freeze()` of the start-up heap (measured a little faster still) hides the
frozen objects from `gc.get_referrers`, which other libraries rely on: under pytest with Hypothesis
installed, trio imported during play then raised a HypothesisWarning in the user's run.
"""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from typing import Iterator

ENV = "GAMEEVAL_GC_TUNING"
# CPython's default is 10; 100 cost the least CPU of: 10, 100, and 10 with a first threshold of 5,000 or
# 20,000 (measured with the start-up heap frozen, then 100 again without)
FULL_PASS_EVERY = 100

_in_play = 0
_saved_thresholds: tuple[int, int, int] | None = None


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "off", "no")


@contextmanager
def playing() -> Iterator[None]:
    """Around one game: the first game in flight spaces full passes, the last one to end restores
    the thresholds."""
    global _in_play, _saved_thresholds
    if not enabled():
        yield
        return
    if _in_play == 0:
        _saved_thresholds = gc.get_threshold()
        first, second, full = _saved_thresholds
        gc.set_threshold(first, second, max(full, FULL_PASS_EVERY))
    _in_play += 1
    try:
        yield
    finally:
        _in_play -= 1
        if _in_play == 0 and _saved_thresholds is not None:
            gc.set_threshold(*_saved_thresholds)
