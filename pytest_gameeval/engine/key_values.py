"""Command-line KEY=VALUE arguments (-T, -M, --role, --gameeval-option, ...), read the same way by
every front end and command."""

from __future__ import annotations

from typing import Iterable

from pytest_gameeval.engine.errors import GameEvalError


def key_value_pairs(values: Iterable[str], what: str, *, allow_empty_value: bool = False) -> list[tuple[str, str]]:
    """The (KEY, VALUE) pairs in the order given, both stripped; the first malformed one is one
    error line naming `what` (the flag). A later pair with the same key wins when made a dict."""
    pairs = []
    for given in values:
        key, eq, value = given.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not (value or allow_empty_value):
            raise GameEvalError(f"{what} {given!r}: expected KEY=VALUE")
        pairs.append((key, value))
    return pairs
