"""Records files read back (`REPORT.records.jsonl`, a `.jsonl` given to `gameeval rejudge` or
`bias-report`): every line a game record, none twice, or one line naming FILE:LINE.

Reading a file is not how a game plays, so this lives outside the modules a game's fingerprint
covers (engine/versions.py): a better error message needs no new version of every game.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import jsonlines

from pytest_gameeval.analysis.report.file import bad_usage
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.safe_io import open_regular
from pytest_gameeval.engine.untrusted_json import UnfitJSON, check_value, parse

MAX_LINE_BYTES = 64 * 1024 * 1024  # far above any game's record; a longer line is not one of ours
# records held at once by rejudge: about 4 times this in memory (1e6 small games, 1.76 GB, took 5.4 GB)
MAX_RECORDS_MB = 512


def _lines(f: Any, path: Path) -> Iterator[bytes]:
    for number, line in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), 1):
        if len(line) > MAX_LINE_BYTES:
            raise GameEvalError(f"{path}:{number}: a line of over {MAX_LINE_BYTES // 2**20} MB is not a game record")
        yield line


def too_big(path: Path, size: int, max_bytes: int) -> str:
    return (f"{path}: {size / 2**20:.0f} MB of records, more than one run of this command holds in memory "
            f"({max_bytes // 2**20} MB; GAMEEVAL_MAX_RECORDS_MB sets it): split the games over several files")


def max_records_bytes() -> int:
    """What a command that holds every game at once (rejudge) reads: a file several times larger
    than the memory it needs would end in a MemoryError after minutes."""
    try:
        return int(float(os.environ.get("GAMEEVAL_MAX_RECORDS_MB", "") or MAX_RECORDS_MB) * 2**20)
    except ValueError:
        raise GameEvalError("GAMEEVAL_MAX_RECORDS_MB must be a number of megabytes") from None


def read_record_dicts(path: str | Path, max_bytes: int | None = None) -> list[dict[str, Any]]:
    """A records file's games as dicts, each checked to be a game record, none twice: bad input
    is one GameEvalError line naming FILE:LINE. A file over `max_bytes` is one line, before reading."""
    path = Path(path)
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    try:
        with open_regular(path, "rb", "records") as f:  # a FIFO is an error, not a wait
            if max_bytes is not None and os.fstat(f.fileno()).st_size > max_bytes:
                raise GameEvalError(too_big(path, os.fstat(f.fileno()).st_size, max_bytes))
            # parse: any depth, huge number or duplicate key is an error of its line (engine/untrusted_json)
            reader = jsonlines.Reader(_lines(f, path), loads=parse)
            for number, row in enumerate(reader.iter(), 1):
                record = checked_record(row, f"{path}:{number}")
                key = f"{record.game}[{record.instance_id}]#{record.epoch}"
                if key in seen:
                    raise GameEvalError(f"{path}:{number}: game {key} is already on line {seen[key]}: a records "
                                        "file holds each game once")
                seen[key] = number
                out.append(row)
    except jsonlines.InvalidLineError as e:
        if isinstance(e.__cause__, UnfitJSON):
            raise GameEvalError(f"{path}:{e.lineno}: the line {e.__cause__.reason}") from None
        raise GameEvalError(f"{path}:{e.lineno}: not JSON lines ({str(e).split(' (line')[0][:120]})") from None
    except OSError as e:
        raise GameEvalError(f"{path}: cannot read records ({e.strerror or e})") from None
    return out


def checked_record(row: Any, where: str) -> GameRecord:
    """One game record as a records file's line or an inspect sample's metadata holds it: a game
    record with counts that are counts, or one GameEvalError line naming `where`."""
    try:
        record = GameRecord.from_dict(check_value(row))
    except UnfitJSON as e:
        raise GameEvalError(f"{where}: not a game record ({e.reason})") from None
    except (TypeError, KeyError, ValueError, AttributeError, IndexError) as e:
        raise GameEvalError(f"{where}: not a game record ({type(e).__name__}: {str(e)[:120]})") from None
    why = bad_usage(row.get("usage"))
    if why:
        raise GameEvalError(f"{where}: game {record.game}[{record.instance_id}]: {why}")
    return record


def read_records(path: str | Path, max_bytes: int | None = None) -> list[GameRecord]:
    return [GameRecord.from_dict(d) for d in read_record_dicts(path, max_bytes)]
