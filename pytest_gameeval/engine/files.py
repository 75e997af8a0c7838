"""Output files written the way users expect: whole or not at all, with the usual mode."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable


def usual_mode() -> int:
    """0666 minus the process umask: what `open(path, "w")` would have given the file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: str | Path, write: Callable[[str], object]) -> Path:
    """Call write(tmp) on a temporary file beside `path`, then rename it over `path`: a reader
    never sees half a file. mkstemp makes the file private (0600); it gets the usual mode."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, usual_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | Path, text: str) -> Path:
    return atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def save_figure(fig: object, path: str | Path, dpi: int = 110) -> Path:
    """Save a matplotlib figure as PNG atomically and close it."""
    import matplotlib.pyplot as plt

    try:
        return atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=dpi))  # type: ignore[attr-defined]
    finally:
        plt.close(fig)  # type: ignore[arg-type]
