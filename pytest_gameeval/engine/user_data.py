"""A user's data file (`--gameeval-data GAME=FILE`, `-T data=FILE`) checked for blank words before
anything is played: an empty or whitespace-only word would only fail mid-game, as a harness error.

Deliberately not imported by any game (engine/versions.py): a check of user input at the front
end is not part of a game's rules, so it needs no new version of every game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def check_no_blank_words(path: str | Path) -> None:
    """One GameEvalError naming FILE:LINE and the key, for the first empty or blank string among a
    row's values (or inside a list value). Malformed lines are left to the game's own loader."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return  # the game's loader says why, in its own line
    for lineno, line in enumerate(lines, start=1):
        try:
            row = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            return
        if not isinstance(row, dict):
            continue
        for key, value in row.items():
            if _blank(value):
                raise GameEvalError(f"{path}:{lineno}: key {key!r} is empty: every word must have a letter")
            if isinstance(value, list) and any(map(_blank, value)):
                raise GameEvalError(f"{path}:{lineno}: key {key!r} holds an empty word")
