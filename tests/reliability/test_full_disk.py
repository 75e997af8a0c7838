"""A full disk (issue 60): every file we write — the report's lock, the journal, the records, the
report, compare's outputs and its PNG, merge's and rejudge's outputs — ends as one `gameeval:` line
naming the file with the documented exit code, never a traceback, and leaves nothing half-written.

The disk is real: a small tmpfs mounted for the test (we run as root in CI). Where it cannot be
mounted (no privilege, no tmpfs) the tests skip and say why; they never pass without a full disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from pytest_gameeval.engine.safe_io import OutputError, atomic_write, save_figure, write_text

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "reports" / "baseline-local-askguess.json"
PAGE = 4096


class Disk:
    """A mounted tmpfs; `fill(leave)` takes all its space but `leave` bytes (whole pages)."""

    def __init__(self, path: Path):
        self.path = path
        self.filler = path / ".filler"

    def fill(self, leave: int = 0) -> None:
        with open(self.filler, "ab", buffering=0) as f:
            try:
                while f.write(b"\0" * PAGE):
                    pass
            except OSError:
                pass
        if leave:
            os.truncate(self.filler, max(0, self.filler.stat().st_size - leave))

    def free(self) -> int:
        return shutil.disk_usage(self.path).free

    def ours(self) -> list[str]:
        """What is on the disk beside the filler and what the test put there."""
        return sorted(p.name for p in self.path.rglob("*") if p != self.filler)


@contextmanager
def mounted(path: Path, size: str = "1m") -> Iterator[Disk]:
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs for a full disk ({done.stderr.strip() or done.returncode}): needs root")
    try:
        yield Disk(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    with mounted(tmp_path / "disk") as d:
        yield d


def one_line(text: str, *needles: str) -> str:
    assert "Traceback" not in text and "INTERNALERROR" not in text, text[-3000:]
    lines = [line for line in text.splitlines() if "gameeval" in line and "rror" in line]
    assert len(lines) == 1, text[-3000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# -- the helper every writer uses ----------------------------------------------------------------


def test_a_full_disk_is_one_error_naming_the_file_and_the_old_file_stays_whole(disk):
    target = disk.path / "report.json"
    write_text(target, "old\n")
    disk.fill()
    with pytest.raises(OutputError, match=r"report.json: cannot write report \(No space left on device\)") as info:
        write_text(target, "x" * 100_000, "report")
    assert "\n" not in str(info.value)
    assert target.read_text() == "old\n"  # never half-written: the old file is whole
    assert disk.ours() == ["report.json"]  # no temporary file left


def test_a_figure_on_a_full_disk_is_one_error_and_no_file(disk):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot(range(1000))
    disk.fill()
    with pytest.raises(OutputError, match="compare.png: cannot write figure"):
        save_figure(fig, disk.path / "compare.png")
    assert disk.ours() == []


def test_a_read_only_disk_is_one_error_too(disk):
    subprocess.run(["mount", "-o", "remount,ro", str(disk.path)], check=True)
    with pytest.raises(OutputError, match=r"r.json: cannot write file \(Read-only file system\)"):
        atomic_write(disk.path / "r.json", lambda tmp: Path(tmp).write_text("x"))


# -- the commands ------------------------------------------------------------------------------------


def gameeval(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest_gameeval.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def baseline(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(BASELINE, folder / "base.json")
    shutil.copy(BASELINE.with_suffix(".records.jsonl"), folder / BASELINE.with_suffix(".records.jsonl").name)
    return folder / "base.json"


def test_report_merge_and_rejudge_on_a_full_disk_say_so_in_one_line(disk, baseline, tmp_path):
    shard = json.loads(baseline.read_text())
    shard["shard"] = {"index": 1, "count": 1}
    baseline.write_text(json.dumps(shard))
    disk.fill(leave=PAGE)  # room for a records file's first page, not for the report after it
    merged = gameeval("report", "merge", str(disk.path / "m.json"), str(baseline), cwd=tmp_path)
    assert merged.returncode == 2, merged.stderr
    one_line(merged.stderr, "cannot write", "No space left on device")
    rejudged = gameeval("rejudge", str(baseline), "--out", str(disk.path / "r.json"), cwd=tmp_path)
    assert rejudged.returncode == 2, rejudged.stderr
    one_line(rejudged.stderr, "cannot write", "No space left on device")
    assert all(not name.endswith(".tmp") for name in disk.ours()), disk.ours()
    for name in disk.ours():  # a records file may have been written whole; nothing is short
        assert name.endswith(".records.jsonl"), disk.ours()


def test_compare_outputs_on_a_full_disk_are_whole_or_absent(disk, tmp_path):
    """compare.json, .md and .png through compare's own writer: one line, each file whole or absent."""
    from pytest_gameeval.cli.compare import _write

    result = {"A": "a", "B": "b", "confidence": 0.95, "games": {}}
    with pytest.raises(OutputError, match="compare.json: cannot write compare output"):
        disk.fill()
        _write(disk.path, result, "a", "b", alpha=0.05, tolerance=0.1)
    assert disk.ours() == []


# -- the plugin ------------------------------------------------------------------------------------


def plugin(project: Path, report: Path, *extra: str, limit: int = 4) -> subprocess.CompletedProcess:
    (project / "conftest.py").write_text("")
    cmd = [sys.executable, "-m", "pytest", "--gameeval-only", "-p", "no:cacheprovider", "-p", "no:randomly",
           "--gameeval-model", "gameeval/scripted/oracle", "--gameeval-games", "askguess", "--gameeval-limit",
           str(limit), "--gameeval-option", "max_rounds=2", f"--gameeval-report={report}", *extra]
    return subprocess.run(cmd, cwd=project, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"})


@pytest.mark.slow  # over 20 s on 2 busy cores: .ci/run's slow stage runs it
def test_the_plugin_on_a_full_disk_is_one_line_exit_3_and_leaves_no_lock(disk, tmp_path):
    disk.fill()
    done = plugin(tmp_path, disk.path / "r.json")
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr[-3000:]
    one_line(done.stdout + done.stderr, "r.json.lock", "No space left on device")
    assert disk.ours() == []  # no 0-byte lock that would outlive the run


@pytest.mark.slow  # over 20 s on 2 busy cores: .ci/run's slow stage runs it
def test_a_journal_that_cannot_be_appended_stops_the_run_in_one_line_exit_3(disk, tmp_path):
    """Room for the lock (one page), none for the first finished game's journal line: one line
    naming the journal, exit 3, no report, no traceback per item."""
    disk.fill(leave=PAGE)
    done = plugin(tmp_path, disk.path / "r.json", limit=8)
    text = done.stdout + done.stderr
    assert done.returncode == 3, text[-3000:]
    line = one_line(text, "r.json.journal-main.jsonl", "cannot write the journal", "No space left on device",
                    "no report written", "--gameeval-resume")
    assert "OSError" not in text and text.count("No space left") == 1, text[-3000:]
    assert not (disk.path / "r.json").exists() and not (disk.path / "r.json.records.jsonl").exists(), line
    assert "r.json.lock" not in disk.ours()  # released
