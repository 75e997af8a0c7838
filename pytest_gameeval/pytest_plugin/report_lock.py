"""One run owns its report path: a lock file beside the report (`REPORT.json.lock`) for the run's
length. A second run on the same path is refused before it touches anything of the first's (its
journal, its budget ledger, its report); a lock left by a process that no longer runs (kill -9)
is taken over with one line. Only the process that owns the session (xdist controller, or the single
process) takes it; its workers write under it.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError

# a lock file still empty this many seconds after it was made was left by a run killed between
# creating and writing it; a younger one may be another run that is writing it right now
EMPTY_LOCK_GRACE_SECONDS = 10.0


def lock_path(report_path: Path) -> Path:
    return report_path.with_name(report_path.name + ".lock")


def _started(pid: int) -> float | None:
    """When the process started (so a recycled pid is not taken for the lock's owner)."""
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except (psutil.Error, OSError):
        return None


def _holder(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("pid"), int) else None


def _alive(holder: dict[str, Any]) -> bool:
    if holder.get("host") != socket.gethostname():
        return True  # another machine's run (a shared disk): we cannot tell, so it holds
    started = _started(holder["pid"])
    return started is not None and abs(started - float(holder.get("started") or 0)) < 1.0


class ReportLock:
    def __init__(self, report_path: Path):
        self.report_path = report_path
        self.path = lock_path(report_path)
        self.owned = False

    def acquire(self) -> str | None:
        """Take the lock; a line to show when a stale lock was taken over, else None. A live
        holder is a GameEvalError naming it."""
        note = None
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                note = self._stale_or_refuse()
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"pid": os.getpid(), "host": socket.gethostname(), "started": _started(os.getpid())}, f)
            self.owned = True
            return note
        raise GameEvalError(f"--gameeval-report {self.report_path}: could not take its lock {self.path}")

    def _stale_or_refuse(self) -> str:
        holder = _holder(self.path)
        if holder is None:
            try:
                age = time.time() - self.path.stat().st_mtime
            except FileNotFoundError:
                return ""
            if age < EMPTY_LOCK_GRACE_SECONDS:
                raise GameEvalError(f"--gameeval-report {self.report_path}: another run is starting on this "
                                    f"report (lock {self.path}); give each run its own --gameeval-report")
            who = "an unreadable lock"
        elif _alive(holder):
            raise GameEvalError(
                f"--gameeval-report {self.report_path}: another run (pid {holder['pid']} on {holder.get('host')}) "
                f"is writing this report (lock {self.path}); wait for it to end or give another --gameeval-report")
        else:
            who = f"the lock of pid {holder['pid']}, which no longer runs"
        self.path.unlink(missing_ok=True)
        return f"gameeval: took over {who} ({self.path}): its run was killed"

    def release(self) -> None:
        if self.owned:
            self.owned = False
            holder = _holder(self.path)
            if holder is not None and holder.get("pid") == os.getpid():
                self.path.unlink(missing_ok=True)
