"""The report lock's takeover is atomic (issue 60): several real processes starting at once over a
stale lock (left by a run killed with kill -9) — one holds it, the others are refused; never two
holders. Reading the dead holder's pid, deleting its file and creating one's own was three steps:
2-3 holders in 30 of 30 rounds of three processes.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.run.report_lock import ReportLock, lock_path

PROCESSES = 4
ROUNDS = 20
HOLD = 0.15  # seconds a holder keeps the lock, so any second holder would overlap it


def _contend(report: str, log: str, start: float) -> None:
    """One process: wait for the common start, try the lock, and if held log the interval."""
    while time.time() < start:
        pass  # spin: every process tries within the same few microseconds
    lock = ReportLock(Path(report))
    try:
        note = lock.acquire()
    except GameEvalError:
        os._exit(0)
    begin = time.monotonic()
    time.sleep(HOLD)
    end = time.monotonic()
    with open(log, "a") as f:
        f.write(json.dumps({"pid": os.getpid(), "begin": begin, "end": end, "note": note}) + "\n")
    lock.release()
    os._exit(0)


def _stale_lock(report: Path) -> None:
    """A lock left by a process killed with kill -9 (its pid no longer runs)."""
    dead = multiprocessing.get_context("fork").Process(target=os._exit, args=(0,))
    dead.start()
    dead.join()
    lock_path(report).write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename, "started": 1.0}))


def _overlaps(rows: list[dict]) -> int:
    rows = sorted(rows, key=lambda r: r["begin"])
    return sum(1 for a, b in zip(rows, rows[1:]) if b["begin"] < a["end"])


@pytest.mark.parametrize("stale", [True, False], ids=["over-a-stale-lock", "no-lock"])
def test_processes_starting_at_once_never_hold_the_lock_together(tmp_path, stale):
    ctx = multiprocessing.get_context("fork")
    report = tmp_path / "r.json"
    holders_per_round = []
    for round_ in range(ROUNDS):
        log = tmp_path / f"holders-{round_}.jsonl"
        log.touch()
        if stale:
            _stale_lock(report)
        start = time.time() + 0.1
        procs = [ctx.Process(target=_contend, args=(str(report), str(log), start)) for _ in range(PROCESSES)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=30)
            assert p.exitcode == 0
        rows = [json.loads(line) for line in log.read_text().splitlines()]
        assert _overlaps(rows) == 0, f"round {round_}: {len(rows)} holders at once: {rows}"
        assert rows, f"round {round_}: nobody took the lock"
        if stale:  # exactly one process says it took over the dead run's lock
            assert sum(bool(r["note"]) for r in rows) == 1, rows
        holders_per_round.append(len(rows))
        assert not lock_path(report).exists()  # each holder released it
    assert max(holders_per_round) >= 1


def test_a_dead_holders_lock_is_taken_over_with_one_line_and_a_live_one_refused(tmp_path):
    report = tmp_path / "r.json"
    _stale_lock(report)
    first = ReportLock(report)
    note = first.acquire()
    assert note and "took over the lock of pid" in note and "which no longer runs" in note
    with pytest.raises(GameEvalError, match=rf"another run \(pid {os.getpid()} on .*\) is writing this report"):
        ReportLock(report).acquire()
    first.release()
    assert not lock_path(report).exists()
    again = ReportLock(report)
    assert again.acquire() is None  # released cleanly: nothing to take over
    again.release()
