"""`fresh:SEED` as a data file in the game's own format, which the fronts pass on as `data=FILE`
(so every check and loader a user's file meets, a fresh set meets too).

The file lies in a cache folder named by the lexicon's digest and is rewritten whenever its
bytes differ from what (game, seed, lexicon) give: a file we did not write is never believed, and
two processes (xdist workers) writing it at once each rename a whole file into place.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import atomic_write
from pytest_gameeval.fresh.difficulty import MEASURES
from pytest_gameeval.fresh.lexicon import lexicon_digest

PREFIX = "fresh:"
AKINATOR_ATTRIBUTES = 30  # the questions of games/akinator/data/attributes.json (a test holds the count)
_SEED = re.compile(r"^fresh:(\d+)$")
MAX_SEED = 2**63 - 1  # any seed a user would write; Python's random takes any integer, a report stores it as JSON
CACHE_ENV = "GAMEEVAL_FRESH_CACHE"  # where fresh files are written (default: the system's temp folder)
NO_FRESH = {
    "akinator": f"its cases are objects with {AKINATOR_ATTRIBUTES} yes/no attributes each, which no lexicon we "
                "ship answers",
    "bluffing": "its cases are statements with a known truth, which no lexicon we ship provides",
    "tofukingdom": "it has no data: its roles are dealt at random",
}


def is_fresh(value: Any) -> bool:
    return isinstance(value, str) and value.strip().startswith(PREFIX)


def fresh_seed(game: str, value: str) -> int:
    """The seed of `fresh:SEED`; anything else after `fresh:` is one error line."""
    if game in NO_FRESH:
        raise GameEvalError(f"{game}: no fresh cases: {NO_FRESH[game]} (docs/fresh-cases.md)")
    if game not in MEASURES:
        raise GameEvalError(f"{game}: no fresh cases (docs/fresh-cases.md lists the games that have them)")
    match = _SEED.match(value.strip())
    # a digit string past 19 digits is over the limit anyway (and past 4,300 int() refuses it)
    if not match or len(match.group(1)) > 19 or int(match.group(1)) > MAX_SEED:
        raise GameEvalError(f"{game}: data={value!r}: write fresh:SEED with SEED a whole number from 0 to "
                            f"2**63-1 ({MAX_SEED}), e.g. fresh:7")
    return int(match.group(1))


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or tempfile.gettempdir()) / "pytest-gameeval-fresh"


@lru_cache(maxsize=None)
def fresh_file(game: str, seed: int) -> Path:
    """The fresh case set's file, (re)written when missing or not what (game, seed, lexicon) give."""
    from pytest_gameeval.fresh.cases import fresh_rows  # the draw: only when a fresh set is asked for

    return _write(cache_root() / lexicon_digest()[:16] / game / f"fresh-{seed}.jsonl", fresh_rows(game, seed))


@lru_cache(maxsize=None)
def published_twins_file(game: str, seed: int) -> Path:
    """The published cases that have a twin in fresh set `seed`, in its order, as a data file: the
    contamination probe's published side, matched case for case to the fresh one."""
    from pytest_gameeval.fresh.cases import fresh_rows, published_id, published_rows

    fresh_seed(game, f"fresh:{seed}")
    by_id = {published_id(game, r): r for r in published_rows(game)}
    rows = [by_id[r["twin_of"]] for r in fresh_rows(game, seed)]
    return _write(cache_root() / lexicon_digest()[:16] / game / f"published-twins-{seed}.jsonl", rows)


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    try:
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise GameEvalError(f"{path}: cannot write the fresh cases ({getattr(e, 'strerror', None) or e}); "
                            f"set {CACHE_ENV} to a writable folder") from None
    return path


def resolve_data(game: str, value: Any) -> Any:
    """A `data` value as the game reads it: `fresh:SEED` becomes its file's path, anything else
    is returned as given."""
    return str(fresh_file(game, fresh_seed(game, value))) if is_fresh(value) else value


def with_fresh_data(game: str, args: dict[str, Any]) -> dict[str, Any]:
    """Task arguments with `data=fresh:SEED` as its file, for a check of the rows before play (the
    task itself resolves it as inspect_ext/task.py does)."""
    return {**args, "data": resolve_data(game, args["data"])} if is_fresh(args.get("data")) else args


def fresh_origin(path: Any) -> dict[str, Any] | None:
    """{"seed", "lexicon"} when `path` is a fresh set's file (what a report records), else None."""
    if not path:
        return None
    p = Path(str(path))
    match = re.fullmatch(r"fresh-(\d+)", p.stem)
    if not match or p.parent.parent.parent != cache_root():
        return None
    digest = lexicon_digest()
    lexicon = digest if digest.startswith(p.parent.parent.name) else p.parent.parent.name
    return {"seed": int(match.group(1)), "lexicon": lexicon}
