"""Scripted AGE players of known strength (tests and baselines, never a model).

- random: describes its word with two random adjectives (no information), and guesses a
  random word of its pair list it has not tried yet (the list has ~100 words, so it rarely
  finds the other word within 5 rounds);
- oracle (strong): gives a vague, new clue each round (only the list's topic), and guesses the
  candidate most related to its own word among the list's words: its pair partner, since pairs
  are built from words with similar attributes. Oracles therefore guess in round 1, so in an
  all-oracle game every confusion, and so every AGE score, is 0; against random opponents an
  oracle scores comprehension 1 and confusion 1.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache

from pytest_gameeval.engine.data import data_path, load_jsonl
from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.events import REPLY, SPEECH
from pytest_gameeval.engine.matching import squash
from pytest_gameeval.engine.player import TurnContext

ADJECTIVES = (
    "common", "useful", "popular", "familiar", "modern", "classic", "practical", "interesting", "widespread",
    "well known", "everyday", "important", "valuable", "simple", "complex", "large", "small", "colourful",
    "ordinary", "special",
)


def _pairs(ctx: TurnContext) -> tuple[tuple[str, str], ...]:
    """The word pairs of this game's list (the user's own file with -T data=FILE)."""
    return _load_pairs(str(data_path(ctx.options, __package__, f"{ctx.seat.private['list']}.jsonl")))


@lru_cache(maxsize=16)
def _load_pairs(path: str) -> tuple[tuple[str, str], ...]:  # keyed by path: tests swap datasets
    rows = load_jsonl(path, {"word_a": str, "word_b": str})
    return tuple((r["word_a"], r["word_b"]) for r in rows)


def _reply(ctx: TurnContext, description: str, guess: str) -> str:
    obj = {"description": description, "guess": guess}
    if ctx.options.cot:
        obj = {"thought": "scripted", **obj}
    return json.dumps(obj)


def _my_guesses(ctx: TurnContext) -> set[str]:
    from pytest_gameeval.games.age.rules import read_reply

    tried = set()
    for e in ctx.events:
        if e.kind == REPLY and e.speaker == ctx.seat.name:
            try:
                tried.add(squash(read_reply(e.text, False)["guess"]))
            except (ParseError, RuleViolation):  # a failed reply is no guess
                pass
    return tried


def random_player(ctx: TurnContext, rng: random.Random) -> str:
    heard = {squash(e.text) for e in ctx.events if e.kind == SPEECH}
    fresh = [f"It is {a} and {b}." for a in ADJECTIVES for b in ADJECTIVES if a != b]
    fresh = [d for d in fresh if squash(d) not in heard]  # never repeat a clue (a rule)
    description = rng.choice(fresh)
    own = ctx.seat.private["word"]
    tried = _my_guesses(ctx)
    words = sorted({w for pair in _pairs(ctx) for w in pair})
    candidates = [w for w in words if w != own and squash(w) not in tried] or [w for w in words if w != own]
    return _reply(ctx, description, rng.choice(candidates))


def oracle_player(ctx: TurnContext, rng: random.Random) -> str:
    own = ctx.seat.private["word"]
    turn_number = 1 + sum(1 for e in ctx.events if e.kind == REPLY and e.speaker == ctx.seat.name)
    description = (
        f"{ctx.seat.name}, clue {turn_number}: it has to do with {ctx.seat.private.get('topic') or 'this topic'}."
    )
    partner = next((b if a == own else a for a, b in _pairs(ctx) if own in (a, b)), "")
    return _reply(ctx, description, partner)


POLICIES = {
    "random": {"player": random_player},
    "oracle": {"player": oracle_player},
}
