"""Scripted Taboo players of known strength (never a model).

- data user (every strength): round r's message names the r-th clue word of the row's
  `related` list ("Think of: X."), skipping any clue that contains the word.
- random guesser: a neutral reply, or with probability 0.2 per round a guess of a random
  known word (so it mostly survives: the game's rules reward survival).
- strong guesser: scores every known word by how many of the user's messages name one of its
  clue words and guesses as soon as exactly one word has the best score; otherwise neutral.
  Its probe lists the best-scoring words.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from pytest_gameeval.engine.data import data_path, load_jsonl
from pytest_gameeval.engine.events import SPEECH
from pytest_gameeval.engine.matching import mentions
from pytest_gameeval.engine.player import TurnContext
from pytest_gameeval.games.arena.rules import MAX_LIST, RETRO, SCRIPTED_LIST, USER

NEUTRAL = "I see. Please go on."


@lru_cache(maxsize=4)
def _words(path: str) -> list[dict[str, Any]]:
    return load_jsonl(path, {"word": str, "related": list})


def words(ctx: TurnContext) -> list[dict[str, Any]]:
    """The words this game draws from (the user's own with -T data=FILE)."""
    return _words(str(data_path(ctx.options, __package__, "words.jsonl")))


def guess_text(word: str) -> str:
    return f"My guess of the word is: {word}"


def data_user(ctx: TurnContext, rng: random.Random) -> str:
    word, related = ctx.seat.private["word"], ctx.seat.private.get("related", [])
    usable = [r for r in related if not mentions(r, word)] or ["something you use every day"]
    given = sum(1 for e in ctx.events if e.kind == SPEECH and e.speaker == USER)
    return f"Think of: {usable[given % len(usable)]}."[:140]


def _scores(ctx: TurnContext) -> list[tuple[int, str]]:
    messages = [e.text for e in ctx.events if e.kind == SPEECH and e.speaker == USER]
    scored = []
    for row in words(ctx):
        hits = sum(1 for m in messages if any(mentions(m, r) for r in row["related"]))
        scored.append((hits, row["word"]))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return scored


def _listing(names: list[str]) -> str:
    return "\n".join(f"{i}. {n}" for i, n in enumerate(names[:MAX_LIST], start=1))


def strong_guesser(ctx: TurnContext, rng: random.Random) -> str:
    scored = _scores(ctx)
    if ctx.turn.action == RETRO:
        return _listing([w for _, w in scored[: max(SCRIPTED_LIST, 8)]])
    best = scored[0][0]
    top = [w for s, w in scored if s == best]
    if ctx.turn.action == "guess":  # protocol=paper: told it said the word, it must guess now
        return guess_text(top[0])
    if best > 0 and len(top) == 1:
        return guess_text(top[0])
    return NEUTRAL


def random_guesser(ctx: TurnContext, rng: random.Random) -> str:
    pool = [row["word"] for row in words(ctx)]
    if ctx.turn.action == RETRO:
        return _listing(rng.sample(pool, min(len(pool), SCRIPTED_LIST + 1)))
    if ctx.turn.action == "guess":  # protocol=paper: told it said the word, it must guess now
        return guess_text(rng.choice(pool))
    return guess_text(rng.choice(pool)) if rng.random() < 0.2 else NEUTRAL


POLICIES = {
    "random": {"guesser": random_guesser, "user": data_user},
    "strong": {"guesser": strong_guesser, "user": data_user},
}
# opponents=reference: the user seat's default opponent (the strong player beside it, so the
# strength plays every seat)
POLICIES["reference"] = POLICIES["strong"]
