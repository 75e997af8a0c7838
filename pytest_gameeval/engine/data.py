"""Loading our versioned data files, with one clear error naming the file and line."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_gameeval.engine.errors import GameEvalError

if TYPE_CHECKING:  # options.py imports the engine's lower modules; only the annotation is needed
    from pytest_gameeval.engine.options import GameOptions


def game_data_dir(package: str) -> Path:
    """The `data/` folder of a game's package (e.g. `pytest_gameeval.games.spyfall`), found through
    importlib.resources so it works from a wheel, `pip install .` and an editable install alike,
    from any working directory. `$GAMEEVAL_DATASETS/<game>/` replaces it when that variable is set
    (a whole other data tree: tests corrupt or shrink a copy this way)."""
    env = os.environ.get("GAMEEVAL_DATASETS")
    if env:
        return Path(env) / package.rpartition(".")[2]
    shipped = resources.files(package) / "data"
    if not isinstance(shipped, Path):  # pip installs unpacked; a zipped import has no real paths
        raise GameEvalError(f"{shipped}: pytest-gameeval's data must be installed as files, not zipped")
    return shipped


def data_path(options: GameOptions, package: str, shipped: str) -> Path:
    """A game's data file: the user's own (`-T data=FILE`, relative to the working directory)
    if given, else the file `shipped` (e.g. "pairs.jsonl") from the data/ folder of the game's
    `package`."""
    given = getattr(options, "data", None)
    return Path(given).expanduser() if given else game_data_dir(package) / shipped


def load_jsonl(
    path: str | Path, required: dict[str, type | tuple[type, ...]], unique: str | None = None
) -> list[dict[str, Any]]:
    """Rows of a JSON Lines file, each checked for the `required` keys and their types, and, with
    `unique`, that no two rows share that key's value."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise GameEvalError(f"{path}: cannot read data file ({e.strerror or e})") from None
    rows: list[dict[str, Any]] = []
    seen: set[Any] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise GameEvalError(f"{path}:{lineno}: malformed JSON ({e.msg})") from None
        if not isinstance(row, dict):
            raise GameEvalError(f"{path}:{lineno}: expected a JSON object")
        for key, typ in required.items():
            if key not in row:
                raise GameEvalError(f"{path}:{lineno}: missing key {key!r}")
            if not isinstance(row[key], typ):
                raise GameEvalError(f"{path}:{lineno}: key {key!r} has the wrong type")
        if unique is not None:
            if row.get(unique) in seen:
                raise GameEvalError(f"{path}:{lineno}: duplicate {unique} {row.get(unique)!r}")
            seen.add(row.get(unique))
        rows.append(row)
    if not rows:
        raise GameEvalError(f"{path}: no rows")
    return rows


def load_json(path: str | Path) -> Any:
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise GameEvalError(f"{path}: cannot read data file ({e.strerror or e})") from None
    except json.JSONDecodeError as e:
        raise GameEvalError(f"{path}:{e.lineno}: malformed JSON ({e.msg})") from None
