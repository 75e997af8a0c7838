"""The plugin's journal: each finished game appended as it ends, so a killed run can resume.

`pytest ... --gameeval-resume` reuses the journalled games of the same cases (same case id
and game options) and plays only the missing ones; a complete report clears the journal.
One file per process (`<report>.journal-<worker>.jsonl`), so xdist workers never share one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def journal_path(report_path: Path, process: str) -> Path:
    return report_path.with_name(f"{report_path.stem}.journal-{process}.jsonl")


def journal_files(report_path: Path) -> list[Path]:
    return sorted(report_path.parent.glob(f"{report_path.stem}.journal-*.jsonl"))


class Journal:
    def __init__(self, report_path: Path, process: str):
        self.path = journal_path(report_path, process)  # process: the xdist worker id, or "main"

    def append(self, case: str, options: dict[str, Any], record: dict[str, Any], scores: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"case": case, "options": options, "record": record, "scores": scores}, allow_nan=True)
        with open(self.path, "a", encoding="utf-8") as f:  # one whole line per game, flushed at close
            f.write(line + "\n")


def load_journal(report_path: Path) -> dict[str, dict[str, Any]]:
    """Finished games by case id. A line cut short by a kill is ignored (that game replays)."""
    done: dict[str, dict[str, Any]] = {}
    for path in journal_files(report_path):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(entry, dict) and {"case", "options", "record", "scores"} <= set(entry):
                done.setdefault(entry["case"], entry)
    return done


def clear_journal(report_path: Path) -> None:
    for path in journal_files(report_path):
        path.unlink(missing_ok=True)
