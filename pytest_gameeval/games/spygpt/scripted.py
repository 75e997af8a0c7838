"""Scripted SpyGPT players (never a model).

- good describer ("oracle"): aggressive — names the domain and spells the word's beginning and
  length (specific, yet without the word); conservative — only the domain (shared by the
  distractors), so the target cannot be singled out.
- bad describer ("random", "bad"): aggressive — a vague sentence; conservative — gives the
  spelling away (the opposite of what the mode asks).
- overlap judge ("oracle", "bad"): scores by the best rapidfuzz similarity between the word and
  any word of the description, so spelling hints raise the target's score.
- random judge ("random"): a uniform score 1-5.
"""

from __future__ import annotations

import random
import re

from rapidfuzz import fuzz

from pytest_gameeval.engine.matching import mentions
from pytest_gameeval.engine.player import TurnContext
from pytest_gameeval.games.spygpt.rules import describe_json


def _hint(word: str) -> str:
    prefix = word[: max(1, min(3, len(word) - 1))]
    return f"its name starts with '{prefix}' and has {len(word)} letters"


def _safe(text: str, target: str, fallback: str) -> str:
    return fallback if mentions(text, target) else text


def good_describer(ctx: TurnContext, rng: random.Random) -> str:
    target, mode = ctx.seat.private["target"], ctx.seat.private["mode"]
    domain = _domain(ctx) or "thing"
    if mode == "aggressive":
        text = f"A kind of {domain}; {_hint(target)}."
    else:
        text = f"A common kind of {domain}."
    return describe_json(_safe(text, target, "Something familiar to most people."))


def bad_describer(ctx: TurnContext, rng: random.Random) -> str:
    target, mode = ctx.seat.private["target"], ctx.seat.private["mode"]
    if mode == "aggressive":
        text = rng.choice(["It is something people know.", "You may have seen it somewhere.", "It exists."])
    else:
        text = f"Hint: {_hint(target)}."
    return describe_json(_safe(text, target, "It exists."))


def _domain(ctx: TurnContext) -> str | None:
    return ctx.seat.private.get("domain")


def overlap_score(word: str, description: str) -> int:
    """1-5 from the best rapidfuzz ratio between the word and any word of the description."""
    tokens = re.findall(r"[a-z]+", description.lower())
    best = max((fuzz.ratio(word.lower(), t) for t in tokens), default=0.0)
    return max(1, min(5, 1 + round(best / 25)))


def overlap_judge(ctx: TurnContext, rng: random.Random) -> str:
    return str(overlap_score(ctx.turn.data["word"], ctx.turn.data["description"]))


def random_judge(ctx: TurnContext, rng: random.Random) -> str:
    return f"Score: {rng.randint(1, 5)}"


POLICIES = {
    "random": {"describer": bad_describer, "judge": random_judge},
    "oracle": {"describer": good_describer, "judge": overlap_judge},
    "bad": {"describer": bad_describer, "judge": overlap_judge},
}
