"""Files we write and files we read, the one way every command does it.

(Apart from engine/files.py, which two games import for their plots, so that this module's changes
move no game's fingerprint: how a file is written is no rule of a game.)

Writing: whole or not at all (a temporary file in the same folder, fsynced, renamed over the
target), with the usual mode; any OSError (a full disk, a read-only or failing device, a missing
permission) is one OutputError line naming the file, and no temporary file is left.
Reading: a path is opened only when it is a regular file (a FIFO or a device would block or never
end), and an output that is one of the inputs is refused before anything is read or written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Callable, Iterable, Iterator

from pytest_gameeval.engine.errors import GameEvalError


class OutputError(GameEvalError):
    """A file we write could not be written (ENOSPC, EROFS, EIO, EACCES, ...): one line naming it."""


# Text we write may hold a string read from a file we did not write, or said by a model: a lone
# UTF-16 surrogate ("\ud800", valid in JSON) cannot be encoded as UTF-8, and would end the write in a
# UnicodeEncodeError. It is written as its escape instead (JSON we write escapes it anyway).
TEXT = {"encoding": "utf-8", "errors": "backslashreplace"}


def surrogate_safe(*streams: IO[str]) -> None:
    """The terminal's streams write a lone surrogate as its escape, as our files do (TEXT)."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def why(e: OSError) -> str:
    return e.strerror or str(e)


def usual_mode() -> int:
    """0666 minus the process umask: what `open(path, "w")` would have given the file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _fsync(path: str | Path, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: str | Path, write: Callable[[str], object], what: str = "file") -> Path:
    """Call write(tmp) on a temporary file beside `path`, fsync it, then rename it over `path`: a
    reader never sees half a file, and a full disk never leaves a short one. mkstemp makes the
    file private (0600); it gets the usual mode. An OSError is an OutputError naming `path`."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        write(tmp)
        _fsync(tmp)  # the bytes are on the disk before the name points at them
        os.chmod(tmp, usual_mode())
        os.replace(tmp, path)
        tmp = None
        with contextlib.suppress(OSError):  # the rename itself survives a crash of the machine
            _fsync(path.parent, directory=True)
    except OSError as e:
        raise OutputError(f"{_named(e, path)}: cannot write {what} ({why(e)})") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return path


def _named(e: OSError, path: Path) -> str | Path:
    """An error about a parent folder names that folder; any other (the temporary file) the target."""
    return e.filename if isinstance(e.filename, str) and Path(e.filename) in path.parents else path


def write_text(path: str | Path, text: str, what: str = "file") -> Path:
    return atomic_write(path, lambda tmp: Path(tmp).write_text(text, **TEXT), what)


def write_lines(path: str | Path, lines: Iterable[str], what: str = "file") -> Path:
    def write(tmp: str) -> None:
        with open(tmp, "w", **TEXT) as f:
            for line in lines:
                f.write(line)

    return atomic_write(path, write, what)


def save_figure(fig: object, path: str | Path, dpi: int = 110) -> Path:
    """Save a matplotlib figure as PNG atomically and close it."""
    import matplotlib.pyplot as plt

    try:
        return atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=dpi), "figure")  # type: ignore[attr-defined]
    finally:
        plt.close(fig)  # type: ignore[arg-type]


def append_line(path: str | Path, line: str, what: str = "file") -> None:
    """One whole line appended and fsynced (a journal): a failure is an OutputError naming the file."""
    try:
        with open(path, "a", **TEXT) as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        raise OutputError(f"{path}: cannot write {what} ({why(e)})") from None


def beside(path: str | Path, suffix: str) -> Path:
    """A file that belongs to `path` (a report's records, journal, ledger, lock): named from its
    whole name, so `reports/last` and `reports/last.json`, or `out/r.json` and `out/r.txt`, never
    share one."""
    path = Path(path)
    return path.with_name(path.name + suffix)


# -- reading ----------------------------------------------------------------------------------------


def open_regular(path: str | Path, mode: str = "rb", what: str = "file", **kwargs: object) -> IO:
    """Open `path` for reading only when it is a regular file: a FIFO, a socket or a device is
    refused at once (opening a FIFO would wait for a writer for ever). O_NONBLOCK makes the open
    itself return at once whatever the path is; the mode check follows on the open descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise GameEvalError(f"{path}: cannot read {what} ({why(e)})") from None
    try:
        mode_bits = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode_bits):
            kind = ("a folder" if stat.S_ISDIR(mode_bits) else "a FIFO" if stat.S_ISFIFO(mode_bits)
                    else "not a regular file")
            raise GameEvalError(f"{path}: cannot read {what} (it is {kind})")
        os.set_blocking(fd, True)
        return os.fdopen(fd, mode, **kwargs)  # type: ignore[call-overload]
    except BaseException:
        os.close(fd)
        raise


def same_file(a: str | Path, b: str | Path) -> bool:
    """The same file however written (relative, `..`, a symlink, a hard link)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(os.path.realpath(a)) == Path(os.path.realpath(b))


def refuse_output_among_inputs(outputs: Iterable[str | Path], inputs: Iterable[str | Path],
                               option: str = "--out") -> None:
    """An output that is one of the inputs would replace what is being read: refused before
    anything is read or written."""
    inputs = list(inputs)
    for out in outputs:
        for source in inputs:
            if same_file(out, source):
                raise GameEvalError(f"{option} {out} is one of the inputs ({source}); give another output path")


def chunks(f: IO[bytes], size: int = 1 << 20) -> Iterator[bytes]:
    return iter(lambda: f.read(size), b"")
