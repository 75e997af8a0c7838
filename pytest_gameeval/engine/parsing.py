"""Tolerant extraction of JSON objects from model replies, then validation."""

from __future__ import annotations

import json
from typing import Any

from pytest_gameeval.engine.errors import ParseError

_decoder = json.JSONDecoder()


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every complete top-level JSON object in `text`, in order.

    Code fences and prose around the objects are ignored; nested objects are part of
    their parent, not separate finds.
    """
    found: list[dict[str, Any]] = []
    i = text.find("{")
    while i != -1:
        try:
            obj, end = _decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            found.append(obj)
        i = text.find("{", end)
    return found


def last_json_object(text: str) -> dict[str, Any]:
    """The last complete JSON object in `text`: a model that corrects itself wins."""
    objects = json_objects(text)
    if not objects:
        raise ParseError("no JSON object found in your reply")
    return objects[-1]


def require_fields(obj: dict[str, Any], *names: str) -> dict[str, str]:
    """The named fields as stripped strings; missing or non-string fields are format errors."""
    missing = [n for n in names if n not in obj]
    if missing:
        raise ParseError(f"the JSON object lacks the field(s) {', '.join(map(repr, missing))}")
    out: dict[str, str] = {}
    for name in names:
        value = obj[name]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise ParseError(f"the field {name!r} must be a string")
        out[name] = value.strip()
    return out


def parse_cot(text: str, *fields: str) -> dict[str, str]:
    """A chain-of-thought reply such as {"thought": ..., "speak": ...}."""
    return require_fields(last_json_object(text), *fields)


def plain_text(text: str, *, max_chars: int = 1000) -> str:
    """A free-text reply: must be non-empty and of sane length."""
    stripped = text.strip()
    if not stripped:
        raise ParseError("your reply was empty")
    if len(stripped) > max_chars:
        raise ParseError(f"your reply was {len(stripped)} characters long; keep it under {max_chars}")
    return stripped
