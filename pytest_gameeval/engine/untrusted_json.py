"""JSON from files we did not just write (reports, records, journals, stored runs' meta.json, the
game records inside inspect logs), parsed so that any valid JSON gives either a value the code
after it can handle or one error line: never a traceback further on (issue 71).

The strict `json` module accepts what later breaks code that trusts the value, so here:

- **nesting**: json itself raises RecursionError past ~1,000 levels, and any recursive walk of the
  value (cleaning it, writing it back, comparing it) fails below that: refused past MAX_DEPTH
  (our files nest 8 levels at most, a model reply is kept as text);
- **integers of any length**: json raises ValueError past 4,300 digits and `float(n)` overflows
  past 308: refused past MAX_INT_DIGITS;
- **duplicate keys**: json keeps the last silently, other readers the first, so two tools would
  read two different files: refused, the key named;
- **a UTF-8 byte-order mark**: skipped (editors on Windows write one);
- **lone surrogates** (`"\\ud800"`): kept, since a model may have said one and the record must say
  what it said; whatever writes text escapes them (engine/text_out.py);
- **NaN, Infinity, 1e400** (a float overflowing to infinity): kept; each kind of file's own checks
  judge its values (a report's metric is "not finite").

Not part of any game's rules (no game module imports it), so no game's fingerprint covers it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import open_regular, why

MAX_DEPTH = 100  # ours nest 8 levels; recursive code (clean, deepcopy, json.dumps) has room for 100
MAX_INT_DIGITS = 300
_BIGGEST = 10**MAX_INT_DIGITS


class UnfitJSON(ValueError):
    """Text that is not JSON, or valid JSON no file of ours holds: `reason` in a few words, `lineno`
    when known. A ValueError, so jsonlines reports it with the line it came from."""

    def __init__(self, reason: str, lineno: int | None = None):
        super().__init__(reason)
        self.reason, self.lineno = reason, lineno


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise UnfitJSON(f"holds key {_short(twice)} twice in one object")
    return obj


def _short(text: str, limit: int = 60) -> str:
    """A string from the file as a message may show it: quoted, escaped (repr: a surrogate or a line
    break cannot reach the terminal raw), cut short."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit] + "...'"


def check_value(value: Any) -> Any:
    """Walk a parsed value without recursion: UnfitJSON when it nests past MAX_DEPTH or holds an
    integer past MAX_INT_DIGITS digits. For values another library parsed (inspect's logs) too."""
    todo: list[tuple[Any, int]] = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            if isinstance(item, int) and not isinstance(item, bool) and not -_BIGGEST < item < _BIGGEST:
                raise UnfitJSON(f"holds an integer of more than {MAX_INT_DIGITS} digits")
            continue
        if depth > MAX_DEPTH:
            raise UnfitJSON(f"nests deeper than {MAX_DEPTH} levels")
        todo.extend((child, depth + 1) for child in children)
    return value


def parse(text: str | bytes) -> Any:
    """JSON text (bytes as UTF-8, a byte-order mark skipped) to a value fit for our code, or UnfitJSON."""
    try:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8")
        value = json.loads(text.removeprefix("\ufeff"), object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as e:
        raise UnfitJSON(f"is not valid JSON ({e.msg})", e.lineno) from None
    except UnicodeDecodeError as e:
        raise UnfitJSON(f"is not UTF-8 text ({e.reason} at byte {e.start})") from None
    except RecursionError:
        raise UnfitJSON(f"nests deeper than {MAX_DEPTH} levels") from None
    except UnfitJSON:
        raise
    except ValueError as e:  # an integer past Python's 4,300 digits
        raise UnfitJSON(f"holds an integer of more than {MAX_INT_DIGITS} digits" if "digits" in str(e)
                        else f"is not valid JSON ({e})") from None
    return check_value(value)


def parse_named(text: str | bytes, where: str | Path, what: str) -> Any:
    """parse(), any problem one GameEvalError line naming the file (unfit_line)."""
    try:
        return parse(text)
    except UnfitJSON as e:
        raise GameEvalError(unfit_line(e, where, what)) from None


def unfit_line(e: UnfitJSON, where: str | Path, what: str) -> str:
    """`WHERE[:LINE]: WHAT is not valid JSON (...)`, `WHERE: WHAT nests deeper than 100 levels`, ..."""
    return f"{where}" + (f":{e.lineno}" if e.lineno else "") + f": {what} {e.reason}"


def read_json_file(path: str | Path, what: str) -> Any:
    """A whole JSON file we did not write (a FIFO or a folder refused, as every reader does)."""
    with open_regular(path, "rb", what) as f:
        try:
            data = f.read()
        except OSError as e:
            raise GameEvalError(f"{path}: cannot read {what} ({why(e)})") from None
    return parse_named(data, path, what)
