"""Reading a JSON move the way a referee would (SpyFall's replies, issue 45).

Replayed through our rules, the real models of GameEval's published games wrote moves a person
reads at once but a JSON parser does not: text-davinci-003 left the values unquoted
(`{"thought": I need to ..., "speak": It is a vehicle.}`), sometimes with escaped quotes around
the keys, and a few votes came under the key `"vote"` instead of `"name"`. `read_move` reads those
as the move they plainly are, and nothing looser:

- a well-formed JSON object is read first (the last one in the reply, prose around it ignored:
  `engine/parsing.py`); only a reply with none is read as near-JSON;
- near-JSON is read only between the known field names of the turn's reply format, each at most
  once: a reply naming a field twice (`"name": Player 2 ... "name": Player 3`) is a format error,
  so the text of one field can never carry a second value of another (no smuggled second vote);
- an alias (`"vote"` for `"name"`) is read only where the real field is absent.

Either way the fields then go through the reply format's own reading (`ReplyFormat.read`), so
required fields, types and the rules' checks are the same as for a well-formed reply.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_gameeval.engine.errors import ParseError
from pytest_gameeval.engine.parsing import json_objects
from pytest_gameeval.engine.replies import ReplyFormat

ALIASES = {"vote": "name"}  # a key some real replies used -> the field it means


def near_json_object(text: str, keys: list[str]) -> dict[str, str]:
    """The fields of a JSON-like object whose values are not quoted. Only `keys` are read; a key
    found twice is a format error (one move per reply)."""
    plain = text.replace('\\"', '"').translate(_QUOTES)
    alternatives = "|".join(map(re.escape, keys))
    # a key in quotes, or bare right after the object's "{" or a ",": never a word inside a value
    pattern = re.compile(rf'["\']({alternatives})["\']\s*:|(?<=[{{,])\s*({alternatives})\s*:', re.I)
    found = list(pattern.finditer(plain))
    if not found:
        raise ParseError("no JSON object found in your reply")
    names = [(m.group(1) or m.group(2)).lower() for m in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ParseError(f"your reply gives the field(s) {', '.join(map(repr, twice))} more than once; give one move")
    end = plain.rfind("}")
    fields = {}
    for i, match in enumerate(found):
        stop = found[i + 1].start() if i + 1 < len(found) else (end if end > match.end() else len(plain))
        fields[names[i]] = _unquote(plain[match.end():stop])
    return fields


_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})  # typographic quotes


def _unquote(value: str) -> str:
    value = value.strip().rstrip(",").strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value.strip()


def read_move(reply: ReplyFormat, text: str, *, near_json: bool = True) -> dict[str, Any]:
    """The fields of a move (see the module's docstring); near_json=False reads only well-formed JSON."""
    objects = json_objects(text)
    keys = [f.name for f in reply.fields] + [a for a, real in ALIASES.items() if real in {f.name for f in reply.fields}]
    if objects:
        obj = dict(objects[-1])
    elif near_json:
        obj = near_json_object(text, keys)
    else:
        raise ParseError("no JSON object found in your reply")
    for alias, real in ALIASES.items():
        if real not in obj and alias in obj and real in keys:
            obj[real] = obj.pop(alias)
    return reply.read(json.dumps(obj, ensure_ascii=False))
