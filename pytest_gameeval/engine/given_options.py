"""Option values as the front ends were given them, checked before a game's options are built.

inspect's `-T` reads values as YAML, so `-T max_rounds=1.5` arrives as the float 1.5 and
`-T max_rounds=true` as a boolean, which the options' coercion (`int(1.5)`, `int(True)`) would turn
into 1 without a word; and `limit=-1` would play every row but the last. The pytest plugin's
options are strings and were already refused as "1.5". This module gives both front ends the same
one-line errors. It is not imported by any game (engine/versions.py: no game's fingerprint moves).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError

NON_NEGATIVE = ("limit",)  # 0 means all rows; a negative one would cut rows from the end


def check_given(declared: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    """`declared`: the game's options (GameOptions.declared()); `given`: name -> value as given
    (a YAML value from inspect's -T, a string from the plugin: the same message for both)."""
    for name, value in given.items():
        opt = declared.get(name)
        if opt is None or value is None:
            continue  # unknown names: build_options says so, with the known ones
        kind = opt.kind or type(opt.default)
        number = _number(value)
        if kind in (int, float) and isinstance(value, bool):
            raise GameEvalError(f"task argument {name}={value} must be of type {kind.__name__}")
        if kind is int and number is not None and not number.is_integer():
            raise GameEvalError(f"task argument {name}={value} must be of type int")
        if name in NON_NEGATIVE and number is not None and number < 0:
            raise GameEvalError(f"task argument {name}={value} must be at least 0")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else number  # NaN: not a number to check here
