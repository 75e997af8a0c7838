"""One run owns its report path: a lock file beside the report (`REPORT.json.lock`) for the run's
length. A second run on the same path is refused before it touches anything of the first's (its
journal, its budget ledger, its report); a lock left by a process that no longer runs (kill -9)
is taken over with one line. Only the process that owns the session (xdist controller, or the single
process) takes it; its workers write under it.

Ownership is the kernel's `flock` on the lock file, not the file's existence: the kernel drops it
when its process dies, however it dies, and gives it to one process only, so a takeover can never
leave two holders (reading a dead holder's pid, deleting its file and creating one's own was three
steps, and three runs starting at once over a stale lock all held it). The pid, host and start time
written into the file are for the messages only.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import OutputError, beside


def lock_path(report_path: Path) -> Path:
    return beside(report_path, ".lock")


def _started(pid: int) -> float | None:
    """When the process started (said in the lock, so a message can name the run)."""
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except (psutil.Error, OSError):
        return None


def _holder(fd: int) -> dict[str, Any] | None:
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("pid"), int) else None


def _same_inode(fd: int, path: Path) -> bool:
    """The file we locked is still the one at `path` (its holder may have deleted it on release
    between our open and our flock: then that lock guards nothing, and we open again)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


class ReportLock:
    def __init__(self, report_path: Path):
        self.report_path = report_path
        self.path = lock_path(report_path)
        self.fd: int | None = None

    @property
    def owned(self) -> bool:
        return self.fd is not None

    def acquire(self) -> str | None:
        """Take the lock; a line to show when a dead run's lock was taken over, else None. A live
        holder is a GameEvalError naming it; a lock that cannot be written (a full or read-only
        disk) an OutputError, and no lock file of ours is left."""
        for _ in range(20):
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise GameEvalError(self._held_by(holder)) from None
            if not _same_inode(fd, self.path):
                os.close(fd)
                continue
            return self._own(fd)
        raise GameEvalError(f"--gameeval-report {self.report_path}: could not take its lock {self.path}")

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise OutputError(f"{self.path}: cannot write the report's lock ({e.strerror or e})") from None

    def _held_by(self, holder: dict[str, Any] | None) -> str:
        if holder is None:
            return (f"--gameeval-report {self.report_path}: another run is starting on this report (lock "
                    f"{self.path}); give each run its own --gameeval-report")
        return (f"--gameeval-report {self.report_path}: another run (pid {holder['pid']} on {holder.get('host')}) "
                f"is writing this report (lock {self.path}); wait for it to end or give another --gameeval-report")

    def _own(self, fd: int) -> str | None:
        """Ours now: whatever the file says was written by a run that no longer holds it."""
        before = _holder(fd)
        stale = os.fstat(fd).st_size > 0
        me = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": _started(os.getpid())})
        try:
            os.ftruncate(fd, 0)
            if os.pwrite(fd, me.encode(), 0) != len(me.encode()):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            os.fsync(fd)
        except OSError as e:  # a full disk: no lock of ours is left behind (a 0-byte one would outlive us)
            self.path.unlink(missing_ok=True)
            os.close(fd)
            raise OutputError(f"{self.path}: cannot write the report's lock ({e.strerror or e})") from None
        self.fd = fd
        if not stale:
            return None
        who = f"the lock of pid {before['pid']}, which no longer runs" if before else "an unreadable lock"
        return f"gameeval: took over {who} ({self.path}): its run was killed"

    def release(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            try:
                if _same_inode(fd, self.path):
                    self.path.unlink(missing_ok=True)  # while still held: no one can lock it in between
            finally:
                os.close(fd)
