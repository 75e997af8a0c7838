"""The plugin's journal: each finished game appended as it ends, so a killed run can resume.

`pytest ... --gameeval-resume` reuses a journalled game only when it is the same game: the same
case and game options, and the same identity (the models in every seat with the model arguments
that change replies, the game's version and fingerprint, the data's digest). Entries that differ
are counted by reason and played again. Within one run, an xdist worker that replaces a crashed
one reuses the games its predecessor journalled (same run token), with or without --gameeval-resume.

One file per process (`<report>.journal-<worker>.jsonl`), so xdist workers never share one. A
game leaves the journal only once a report holding it has been written (clear_journal): never at
start, so `--co`, `--help` or a run of other games lose nothing.
"""

from __future__ import annotations

import glob
import hashlib
import json
from pathlib import Path
from typing import Any, Iterator

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import OutputError, append_line, beside, open_regular, write_lines
from pytest_gameeval.engine.untrusted_json import UnfitJSON, parse

# why a journalled game was not reused, by the first part of its identity that differs
REASONS = {
    "models": "other models",
    "model_args": "other model arguments",
    "version": "another game version",
    "fingerprint": "another game fingerprint",
    "dataset": "other data",
    "options": "other game options",
}
MAX_LINE_BYTES = 64 * 1024 * 1024  # as for records files: far above any game's record
OLDER_JOURNAL = "journalled by an older pytest-gameeval"


def journal_path(report_path: Path, process: str) -> Path:
    return beside(report_path, f".journal-{process}.jsonl")


def journal_files(report_path: Path) -> list[Path]:
    return sorted(report_path.parent.glob(f"{glob.escape(report_path.name)}.journal-*.jsonl"))


def _digest(value: Any) -> str:
    """A digest instead of the value: model arguments may hold keys, which no file of ours keeps."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def game_identity(settings: Any, plan: Any) -> dict[str, Any]:
    """What, beside the case and its options, makes a journalled game the same game as one to play."""
    return {
        "models": {"evaluated": settings.model, "roles": dict(sorted(settings.roles.items()))},
        "model_args": _digest(settings.model_args),
        "version": plan.spec.version,
        "fingerprint": plan.spec.fingerprint,
        "dataset": plan.dataset.get("sha256"),
    }


def mismatch(entry: dict[str, Any], identity: dict[str, Any], options: dict[str, Any]) -> str | None:
    """None when the entry is the same game; else why not, in a few words."""
    theirs = entry.get("identity")
    if not isinstance(theirs, dict):
        return OLDER_JOURNAL
    for key, reason in REASONS.items():
        if key == "options":
            if entry.get("options") != options:
                return reason
        elif theirs.get(key) != identity.get(key):
            return reason
    return None


class Journal:
    def __init__(self, report_path: Path, process: str, run: str = ""):
        self.path = journal_path(report_path, process)  # process: the xdist worker id, or "main"
        self.run = run  # the run's token: a replacement worker of the same run reuses these games
        self._mended = False

    def _mend(self) -> None:
        """A kill mid-write leaves a torn last line: cut back to the last newline before appending,
        or the next game would be glued onto it and both lost."""
        self._mended = True
        try:
            with open(self.path, "rb+") as f:
                data = f.read()
                if data and not data.endswith(b"\n"):
                    f.truncate(data.rfind(b"\n") + 1)
        except FileNotFoundError:
            pass

    def append(self, case: str, options: dict[str, Any], record: dict[str, Any], scores: dict[str, Any],
               identity: dict[str, Any] | None = None) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self._mended:
                self._mend()
        except OSError as e:
            raise OutputError(f"{self.path}: cannot write the journal ({e.strerror or e})") from None
        entry = {"case": case, "options": options, "identity": identity, "run": self.run,
                 "record": record, "scores": scores}
        # one whole fsynced line per game: a finished game survives a kill of the machine, not just ours;
        # a full disk is an OutputError naming the journal (the runner stops the run on it)
        append_line(self.path, json.dumps(entry, allow_nan=True), "the journal")


def journal_lines(path: Path) -> Iterator[bytes]:
    """A journal's lines, one at a time (a journal of many games is never held whole); a FIFO or a
    line over MAX_LINE_BYTES is one error naming FILE[:LINE]."""
    try:
        with open_regular(path, "rb", "the journal") as f:
            for number, line in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), 1):
                if len(line) > MAX_LINE_BYTES:
                    raise GameEvalError(f"{path}:{number}: a line of over {MAX_LINE_BYTES // 2**20} MB is not a "
                                        "journalled game")
                yield line
    except OSError as e:
        raise GameEvalError(f"{path}: cannot read the journal ({e.strerror or e})") from None


def load_journal(report_path: Path) -> dict[str, list[dict[str, Any]]]:
    """Finished games by case id, oldest first. A line cut short by a kill is ignored (that game
    replays); a journal that cannot be read at all is one error line."""
    done: dict[str, list[dict[str, Any]]] = {}
    for path in journal_files(report_path):
        for line in journal_lines(path):
            try:  # parse: a line too deep, with a huge number or a key twice is no game of ours either
                entry = parse(line)
            except UnfitJSON:  # a line cut short by a kill, or not ours: that game is played again
                continue
            if isinstance(entry, dict) and {"case", "options", "record", "scores"} <= set(entry):
                entry["file"] = path.name
                done.setdefault(str(entry["case"]), []).append(entry)
    return done


def clear_journal(report_path: Path, reported: set[str]) -> list[Path]:
    """Take out of the journal the cases a report now holds as played (`reported`: reused, played
    or played again). Other cases' games (a run of other games on the same path after a run cut
    short) stay for a resume. A file left empty is deleted; the others are rewritten whole (temp
    file + rename). The files kept are returned."""
    kept = []
    for path in journal_files(report_path):
        try:  # read as every journal is (journal_lines: a regular file, lines of a bounded size)
            lines = [line.decode("utf-8", "replace").rstrip("\r\n") for line in journal_lines(path)]
        except GameEvalError:
            kept.append(path)
            continue
        rest = [line for line in lines if not _reported(line, reported)]
        if not rest:
            path.unlink(missing_ok=True)
            continue
        kept.append(path)
        if len(rest) < len(lines):
            write_lines(path, (line + "\n" for line in rest), "the journal")  # whole or not at all, fsynced
    return kept


def _reported(line: str, reported: set[str]) -> bool:
    try:
        entry = parse(line)
    except UnfitJSON:
        return True  # a torn line (or not ours): its game was never finished
    if not isinstance(entry, dict):
        return True
    return str(entry.get("case")) in reported
