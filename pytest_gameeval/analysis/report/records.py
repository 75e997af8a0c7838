"""Records files read back (`REPORT.records.jsonl`, a `.jsonl` given to `gameeval rejudge` or
`bias-report`): every line a game record, none twice, or one line naming FILE:LINE.

Reading a file is not how a game plays, so this lives outside the modules a game's fingerprint
covers (engine/versions.py): a better error message needs no new version of every game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import jsonlines

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord

MAX_LINE_BYTES = 64 * 1024 * 1024  # far above any game's record; a longer line is not one of ours


def _lines(f: Any, path: Path) -> Iterator[bytes]:
    for number, line in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), 1):
        if len(line) > MAX_LINE_BYTES:
            raise GameEvalError(f"{path}:{number}: a line of over {MAX_LINE_BYTES // 2**20} MB is not a game record")
        yield line


def read_record_dicts(path: str | Path) -> list[dict[str, Any]]:
    """A records file's games as dicts, each checked to be a game record, none twice: bad input
    is one GameEvalError line naming FILE:LINE."""
    path = Path(path)
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    try:
        with open(path, "rb") as f:
            reader = jsonlines.Reader(_lines(f, path))
            for number, row in enumerate(reader.iter(), 1):
                where = f"{path}:{number}"
                try:
                    record = GameRecord.from_dict(row)
                except (TypeError, KeyError, ValueError, AttributeError, IndexError) as e:
                    raise GameEvalError(f"{where}: not a game record ({type(e).__name__}: {str(e)[:120]})") from None
                key = f"{record.game}[{record.instance_id}]#{record.epoch}"
                if key in seen:
                    raise GameEvalError(f"{where}: game {key} is already on line {seen[key]}: a records file "
                                        "holds each game once")
                seen[key] = number
                out.append(row)
    except jsonlines.InvalidLineError as e:
        raise GameEvalError(f"{path}:{e.lineno}: not JSON lines ({str(e).split(' (line')[0][:120]})") from None
    except OSError as e:
        raise GameEvalError(f"{path}: cannot read records ({e.strerror or e})") from None
    return out


def read_records(path: str | Path) -> list[GameRecord]:
    return [GameRecord.from_dict(d) for d in read_record_dicts(path)]
