"""The shape of a legal reply, declared once beside a turn's parser.

A `ReplyFormat` is the one source of three things: the format line a prompt shows
('Reply with one JSON object: {"thought": ..., "speak": ...}'), the JSON schema sent with the
request when structured (constrained) decoding is on, and the reading of the reply's fields.

Two kinds of turn:

- a JSON turn (the game asks for a JSON object): the prompt shows `format_line()`, the parser
  reads the fields with `read()`; with structured decoding the same object is enforced.
- a plain-text turn (`text=True`, one field): the prompt asks in words ("ask your question"); the
  reply is read as plain text. With structured decoding the model is made to write
  ``{"<field>": "<text>"}`` and the runner hands the field's text to the same parser (`unwrap`).

Length caps (`max_length`) and enums (`enum`) only shape decoding: they keep a small model from
rambling and list the legal choices where the rules know them (living players for a vote, the
answer words). The parser still judges every reply by the rules: a constrained reply can still
break one (say its own word, name an out player where the enum is wider).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.errors import ParseError
from pytest_gameeval.engine.parsing import last_json_object, require_fields

# the `structured` option: "auto" leaves it to the model's provider (the front end resolves it when
# it makes a seat's player, inspect_ext/decoding.py), "on"/"off" force it
STRUCTURED_CHOICES = ("auto", "on", "off")


@dataclass(frozen=True)
class Field:
    name: str
    hint: Any  # shown in the format line: "<your private reasoning>", or an example object
    max_length: int | None = None
    enum: tuple[str, ...] | None = None
    required: bool = True
    value_schema: dict[str, Any] | None = None  # a JSON object value (read as is): its schema
    min_length: int = 1
    # what the field holds, for the degenerate-move check (engine/degenerate.py): "words",
    # "choice", "number", "private" (a seat's own reasoning) or "any"; "" infers it
    content: str = ""

    @property
    def expects(self) -> str:
        if self.content:
            return self.content
        return "choice" if self.enum is not None else "any" if self.value_schema is not None else "words"

    def schema(self) -> dict[str, Any]:
        if self.value_schema is not None:
            return self.value_schema
        if self.enum is not None:
            return {"type": "string", "enum": list(self.enum)}
        out: dict[str, Any] = {"type": "string", "minLength": self.min_length}
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        return out


@dataclass(frozen=True)
class ReplyFormat:
    name: str  # names the schema in the request (a-z, 0-9, _ and -)
    fields: tuple[Field, ...]
    text: bool = False  # a plain-text turn: the reply is the one field's text

    def __post_init__(self) -> None:
        if self.text and len(self.fields) != 1:
            raise ValueError("a plain-text reply format has exactly one field")

    # -- the prompt ----------------------------------------------------------------------
    def shape(self) -> str:
        """The JSON object as the prompt shows it: {"thought": "<...>", "speak": "<...>"}."""
        return json.dumps({f.name: f.hint for f in self.fields}, ensure_ascii=False)

    def format_line(self) -> str:
        return f"Reply with one JSON object: {self.shape()}."

    # -- the request ---------------------------------------------------------------------
    def json_schema(self) -> dict[str, Any]:
        """Every field is required here, optional ones too: a constrained reply fills in all of them
        (the reading still accepts a reply without an optional field)."""
        return object_schema({f.name: f.schema() for f in self.fields})

    # -- the reply ------------------------------------------------------------------------
    def read(self, text: str) -> dict[str, str]:
        """The fields (stripped strings; object values as they are) and any other string fields of
        the last JSON object in `text`; a missing object or required field is a format error."""
        obj = last_json_object(text)
        strings = [f.name for f in self.fields if f.value_schema is None and (f.required or f.name in obj)]
        fields: dict[str, Any] = require_fields(obj, *strings)
        for f in self.fields:
            if f.value_schema is not None and f.name in obj:
                fields[f.name] = obj[f.name]
            elif f.value_schema is not None and f.required:
                raise ParseError(f"the JSON object lacks the field {f.name!r}")
        extra = {k: v.strip() for k, v in obj.items() if k not in fields and isinstance(v, str)}
        return {**extra, **fields}

    def unwrap(self, text: str) -> str:
        """A plain-text turn's text from a structured reply {"<field>": "<text>"}."""
        if not self.text:
            raise ValueError("unwrap() is for plain-text reply formats")
        field = self.fields[0].name
        value = self.read(text)[field]
        if not value:
            raise ParseError(f"the {field!r} field is empty")
        return value


def text_reply(name: str, hint: str, max_length: int | None = None, enum: tuple[str, ...] | None = None,
               content: str = "") -> ReplyFormat:
    """A plain-text turn; under structured decoding the reply is {name: text}."""
    return ReplyFormat(name, (Field(name, hint, max_length, enum, content=content),), text=True)


def object_schema(properties: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A JSON object with exactly these (required) properties."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def decoding_label(flags: list[bool]) -> str:
    """"on", "off" or "mixed" for the structured flags of a game's model seats."""
    if not flags:
        return "off"
    return "on" if all(flags) else "off" if not any(flags) else "mixed"
