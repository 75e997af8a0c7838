"""Scripted players for the hidden-word voting games (SpyFall here; SpyGame reuses them).

A policy only knows its own word (never its side), like a model. Replies carry every field
either game asks for ({"thought", "guess", "speak"} and {"thought", "reasoning", "speak",
"name"}); each game reads what it needs.

- random: a content-free describer and a voter choosing uniformly among the offered options.
- strong: describes its word with fixed clues derived from the word's letters (never the word),
  picking the first clue nobody else has said; votes for the player whose descriptions overlap
  least with its own word's clues (rapidfuzz similarity), ties drawn at random.
- first_option: the random describer with a voter that always takes the first offered option
  (a deliberately position-biased voter, for the bias report).
"""

from __future__ import annotations

import json
import random
from typing import Any

from rapidfuzz import fuzz

from pytest_gameeval.engine.events import SPEECH
from pytest_gameeval.engine.matching import squash
from pytest_gameeval.engine.player import TurnContext

_VAGUE = [
    "Many people know it well.", "You can find it in everyday life.", "It comes in different kinds.",
    "Some people like it a lot.", "It is quite common.", "It has a recognisable shape.",
    "People talk about it often.", "It can be found in many places.", "It is not too expensive.",
    "Everyone has an opinion about it.",
]
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"]


def clues(word: str) -> list[str]:
    """Fixed clues about a word's spelling, without the word: distinct words get distinct clues."""
    letters = [c for c in squash(word) if c.isalpha() or c.isdigit()]
    out = [f"its first letter is {letters[0]}", f"its last letter is {letters[-1]}", f"it has {len(letters)} letters"]
    out += [f"its {_ORDINALS[i]} letter is {letters[i]}" for i in range(1, min(len(letters) - 1, len(_ORDINALS)))]
    vowels = sum(c in "aeiou" for c in letters)
    out.append(f"it has {vowels} vowels")
    return out


def descriptions(ctx: TurnContext) -> dict[str, list[str]]:
    """Seat -> what it said when describing (content-free "..." left out)."""
    said: dict[str, list[str]] = {}
    for e in ctx.events:
        if e.kind == SPEECH and e.data.get("description") and not e.data.get("content_free"):
            said.setdefault(e.speaker, []).append(e.text)
    return said


def reply(**fields: Any) -> str:
    return json.dumps({"thought": "scripted", **fields})


def overlap(ctx: TurnContext, player: str) -> float | None:
    """How well a player's descriptions fit my own word's clues (0-100); None if it said nothing."""
    mine = clues(ctx.seat.private["word"])
    theirs = descriptions(ctx).get(player, [])
    if not theirs:
        return None
    return sum(max(fuzz.ratio(d.lower(), c) for c in mine) for d in theirs) / len(theirs)


def least_overlap(ctx: TurnContext, candidates: list[str], rng: random.Random) -> str:
    scores = {p: overlap(ctx, p) for p in candidates}
    known = {p: s for p, s in scores.items() if s is not None}
    if not known:
        return rng.choice(candidates)
    low = min(known.values())
    return rng.choice([p for p, s in known.items() if s == low])


def guess_word(ctx: TurnContext, rng: random.Random) -> str:
    return "something related"


# -- describing ----------------------------------------------------------------------------
def describe_random(ctx: TurnContext, rng: random.Random) -> str:
    others = {squash(t) for seat, ts in descriptions(ctx).items() if seat != ctx.seat.name for t in ts}
    fresh = [v for v in _VAGUE if squash(v) not in others] or [f"It is hard to describe, part {len(others) + 1}."]
    return reply(guess=guess_word(ctx, rng), speak=rng.choice(fresh))


def describe_clues(ctx: TurnContext, rng: random.Random) -> str:
    said = descriptions(ctx)
    others = {squash(t) for seat, ts in said.items() if seat != ctx.seat.name for t in ts}
    mine = said.get(ctx.seat.name, [])
    fresh = [c for c in clues(ctx.seat.private["word"]) if squash(c) not in others and c not in mine]
    if fresh:
        speak = fresh[0]
    elif mine:
        speak = mine[-1]  # repeating oneself is allowed; repeating others is not
    else:
        speak = f"it is a word of {len(clues(ctx.seat.private['word']))} clues"
    return reply(guess=guess_word(ctx, rng), speak=speak)


# -- voting --------------------------------------------------------------------------------
def _options(ctx: TurnContext) -> list[str]:
    return list(ctx.turn.data["options"])


def vote_random(ctx: TurnContext, rng: random.Random) -> str:
    choice = rng.choice(_options(ctx))
    return reply(reasoning="no idea", speak=f"I pick {choice} at random.", name=choice)


def vote_overlap(ctx: TurnContext, rng: random.Random) -> str:
    choice = least_overlap(ctx, _options(ctx), rng)
    return reply(reasoning="least overlap with my word", speak=f"{choice} described something different.", name=choice)


def vote_first_option(ctx: TurnContext, rng: random.Random) -> str:
    choice = _options(ctx)[0]
    return reply(reasoning="first option", speak=f"I choose {choice}.", name=choice)


# -- theory-of-mind probe (SpyGame) --------------------------------------------------------
def tom_random(ctx: TurnContext, rng: random.Random) -> str:
    others = ctx.turn.data["others"]
    sides = ["spy", "villager"]
    out: dict[str, Any] = {
        "self_identity": rng.choice(sides),
        "players": {p: {"word": "unknown", "identity": rng.choice(sides)} for p in others},
    }
    if ctx.turn.data.get("second_order"):
        out["they_think"] = {p: {"word": "unknown", "identity": rng.choice(sides)} for p in others}
    return reply(**out)


def tom_overlap(ctx: TurnContext, rng: random.Random) -> str:
    """Players whose descriptions match my clues exactly share my word; if few do, I am the spy."""
    others = ctx.turn.data["others"]
    word = ctx.seat.private["word"]
    alike = [p for p in others if (overlap(ctx, p) or 0) >= 100]
    me_spy = len(alike) < len(others) / 2
    suspect = None if me_spy else least_overlap(ctx, others, rng)
    players = {}
    for p in others:
        if me_spy:
            players[p] = {"word": "unknown", "identity": "villager"}
        else:
            players[p] = {
                "word": "unknown" if p == suspect else word,
                "identity": "spy" if p == suspect else "villager",
            }
    out: dict[str, Any] = {"self_identity": "spy" if me_spy else "villager", "players": players}
    if ctx.turn.data.get("second_order"):
        out["they_think"] = {p: {"word": word, "identity": "villager"} for p in others}
    return reply(**out)


def _policy(describe, vote, tom):
    def policy(ctx: TurnContext, rng: random.Random) -> str:
        action = ctx.turn.action
        if action == "describe":
            return describe(ctx, rng)
        if action == "vote":
            return vote(ctx, rng)
        return tom(ctx, rng)

    return policy


RANDOM = _policy(describe_random, vote_random, tom_random)
STRONG = _policy(describe_clues, vote_overlap, tom_overlap)
FIRST_OPTION = _policy(describe_random, vote_first_option, tom_random)

# nobody knows its side, so both roles play the same policy
POLICIES = {
    "random": {"spy": RANDOM, "villager": RANDOM},
    "strong": {"spy": STRONG, "villager": STRONG},
    "first_option": {"spy": FIRST_OPTION, "villager": FIRST_OPTION},
}
