"""Model-role names, shared by both front ends (inspect's --model-role, pytest's --gameeval-role).

A seat's model role is a plain name ("answerer"), the i-th model of a list role
("players[0]", bound as `players=A,B,C`), or alternatives tried in order ("seat2|players[0]").
"""

from __future__ import annotations

import re
from typing import Mapping, TypeVar

T = TypeVar("T")

_ITEM = re.compile(r"^(?P<name>[^\[\]|]+)(?:\[(?P<index>\d+)\])?$")


def role_names(role: str) -> list[str]:
    """The plain role names a role expression refers to: "seat2|players[0]" -> [seat2, players]."""
    names = []
    for alternative in role.split("|"):
        match = _ITEM.match(alternative.strip())
        if match:
            names.append(match["name"])
    return names


def lookup_role(role: str, bindings: Mapping[str, T | list[T]]) -> T | None:
    """What `bindings` (role name -> model, or list of models) binds to a role expression."""
    for alternative in role.split("|"):
        match = _ITEM.match(alternative.strip())
        if not match or match["name"] not in bindings:
            continue
        bound = bindings[match["name"]]
        models = bound if isinstance(bound, list) else [bound]
        index = int(match["index"] or 0)
        if index < len(models):
            return models[index]
    return None


def how_to_bind(role: str, flag: str = "--model-role") -> str:
    """The command-line ways to bind a role expression with `flag` (inspect's --model-role, the plugin's
    --gameeval-role), for messages: "seat2|players[0]" ->
    "--model-role seat2=MODEL or model 1 of --model-role players=M1"."""
    ways = []
    for alternative in role.split("|"):
        match = _ITEM.match(alternative.strip())
        if not match:
            continue
        if match["index"] is None:
            ways.append(f"{flag} {match['name']}=MODEL")
        else:
            n = int(match["index"]) + 1
            ways.append(f"model {n} of {flag} {match['name']}=" + ",".join(f"M{i}" for i in range(1, n + 1)))
    return " or ".join(ways)
