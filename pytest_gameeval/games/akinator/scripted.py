"""Scripted Akinator players of known strength (never a model).

- data user (every strength): answers from its object's attribute table; a question that names
  the object or an alias gets Yes, one naming another known object gets No, others Don't Know.
  As the judge it classifies candidates from the same table.
- random questioner: asks unasked attribute questions in random order and guesses a random
  known object with probability 0.15 per turn (expected win rate near 0).
- halving questioner ("strong"): keeps the known objects consistent with every answer so far,
  asks the attribute question that splits them most evenly, and guesses once one candidate
  is left (or no question splits them). Its probe lists up to 16 of its remaining
  candidates in random order (padded with other objects to 5).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from pytest_gameeval.engine.data import data_path, game_data_dir, load_json, load_jsonl
from pytest_gameeval.engine.events import HOST_MSG, SPEECH
from pytest_gameeval.engine.matching import mentions, normalize
from pytest_gameeval.engine.player import TurnContext
from pytest_gameeval.games.akinator.prompts import QUESTIONER
from pytest_gameeval.games.akinator.rules import read_guess
from pytest_gameeval.games.arena.rules import CLASSIFY, MAX_LIST, RETRO, SCRIPTED_LIST, USER


@lru_cache(maxsize=4)
def _data(attributes_path: str, objects_path: str) -> tuple[dict[str, str], list[dict[str, Any]]]:
    attributes = load_json(attributes_path)
    objects = load_jsonl(objects_path, {"object": str, "attributes": dict})
    return attributes, objects


def data(ctx: TurnContext) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Our attribute questions and the objects this game draws from (the user's own with -T data=FILE)."""
    return _data(
        str(game_data_dir(__package__) / "attributes.json"), str(data_path(ctx.options, __package__, "objects.jsonl"))
    )


def guess_text(obj: str) -> str:
    return f"This is a guess -- are you thinking of {obj}?"


def attribute_of(question: str, attributes: dict[str, str]) -> str | None:
    """The attribute a question asks about: exact text, else a close wording (rapidfuzz)."""
    q = normalize(question).strip()
    best, score = None, 0.0
    for key, text in attributes.items():
        s = fuzz.token_set_ratio(q, normalize(text))
        if s > score:
            best, score = key, s
    return best if score >= 90 else None


def _answer_about(ctx: TurnContext, question: str, obj: str, aliases: list[str], table: dict[str, bool]) -> str:
    attributes, objects = data(ctx)
    key = attribute_of(question, attributes)
    if key is not None and key in table:
        return "Yes" if table[key] else "No"
    if mentions(question, obj, aliases):
        return "Yes"
    if any(mentions(question, o["object"]) for o in objects):
        return "No"
    return "Don't Know"


def _lookup(ctx: TurnContext, name: str) -> dict[str, Any] | None:
    _, objects = data(ctx)
    n = normalize(name).strip()
    for o in objects:
        if n == normalize(o["object"]) or n in map(normalize, o.get("aliases", [])):
            return o
    return None


def data_user(ctx: TurnContext, rng: random.Random) -> str:
    private = ctx.seat.private
    if ctx.turn.action == CLASSIFY:
        question, candidates = ctx.turn.data["question"], ctx.turn.data["candidates"]
        attributes, _ = data(ctx)
        key = attribute_of(question, attributes)
        lines = []
        for i, name in enumerate(candidates, start=1):
            row = _lookup(ctx, name)
            if row is None:
                lines.append(f"{i}. Don't know")
            elif key is not None:
                lines.append(f"{i}. {'Yes' if row['attributes'].get(key) else 'No'}")
            else:
                lines.append(f"{i}. {'Yes' if mentions(question, row['object'], row.get('aliases', [])) else 'No'}")
        return "\n".join(lines)
    question = [e.text for e in ctx.events if e.kind == SPEECH and e.speaker == QUESTIONER][-1]
    return _answer_about(ctx, question, private["object"], private.get("aliases", []), private.get("attributes", {}))


def _history(ctx: TurnContext) -> tuple[list[tuple[str, str]], set[str]]:
    """(attribute question, answer) pairs and wrongly guessed objects, from the seat's view."""
    pairs: list[tuple[str, str]] = []
    wrong: set[str] = set()
    pending: str | None = None
    for e in ctx.events:
        if e.kind == SPEECH and e.speaker == QUESTIONER:
            guess = read_guess(e.text)
            if guess is not None:
                wrong.add(normalize(guess))
                pending = None
            else:
                pending = e.text
        elif e.kind == SPEECH and e.speaker == USER and pending is not None:
            pairs.append((pending, e.text))
            pending = None
        elif e.kind == HOST_MSG and e.text.startswith("Yes! The object"):
            wrong.clear()
    return pairs, wrong


def _candidates(ctx: TurnContext) -> tuple[list[dict[str, Any]], set[str]]:
    attributes, objects = data(ctx)
    pairs, wrong = _history(ctx)
    asked: set[str] = set()
    alive = [o for o in objects if normalize(o["object"]) not in wrong]
    for question, answer in pairs:
        key = attribute_of(question, attributes)
        if key is None:
            continue
        asked.add(key)
        a = answer.strip().lower()
        if a in ("yes", "probably yes"):
            alive = [o for o in alive if o["attributes"].get(key)]
        elif a in ("no", "probably no"):
            alive = [o for o in alive if not o["attributes"].get(key)]
    return alive, asked


def _ranked(ctx: TurnContext, alive: list[dict[str, Any]], rng: random.Random) -> str:
    _, objects = data(ctx)
    names = [o["object"] for o in alive]
    rng.shuffle(names)  # no order among equally likely candidates (dataset order would favour row 1)
    names = names[:MAX_LIST]
    filler = [o["object"] for o in objects if o["object"] not in names]
    rng.shuffle(filler)
    names += filler[: max(0, SCRIPTED_LIST - len(names))]
    return "\n".join(f"{i}. {n}" for i, n in enumerate(names, start=1))


def halving_questioner(ctx: TurnContext, rng: random.Random) -> str:
    attributes, _ = data(ctx)
    alive, asked = _candidates(ctx)
    if ctx.turn.action == RETRO:
        return _ranked(ctx, alive, rng)
    if not alive:
        return "Is it something I have not heard of?"
    best_key, best_split = None, len(alive)
    for key in sorted(attributes):
        if key in asked:
            continue
        yes = sum(1 for o in alive if o["attributes"].get(key))
        split = abs(len(alive) - 2 * yes)
        if 0 < yes < len(alive) and split < best_split:
            best_key, best_split = key, split
    if len(alive) == 1 or best_key is None:
        return guess_text(rng.choice(alive)["object"])
    return attributes[best_key]


def random_questioner(ctx: TurnContext, rng: random.Random) -> str:
    attributes, objects = data(ctx)
    if ctx.turn.action == RETRO:
        return "\n".join(f"{i}. {o['object']}" for i, o in enumerate(rng.sample(objects, SCRIPTED_LIST + 1), start=1))
    _, asked = _candidates(ctx)
    remaining = sorted(set(attributes) - asked)
    if not remaining or rng.random() < 0.15:
        return guess_text(rng.choice(objects)["object"])
    return attributes[rng.choice(remaining)]


POLICIES = {
    "random": {"questioner": random_questioner, "user": data_user},
    "strong": {"questioner": halving_questioner, "user": data_user},
    "halving": {"questioner": halving_questioner, "user": data_user},
}
# opponents=reference: the user seat's default opponent (the halving player beside it, so the
# strength plays every seat)
POLICIES["reference"] = POLICIES["halving"]
