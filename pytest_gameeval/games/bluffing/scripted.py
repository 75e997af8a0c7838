"""Scripted Bluffing players (never a model).

- data user (every strength): keeps to the row's label. True statement: confirms it and adds
  the persona fact closest to the question (rapidfuzz). False statement: confirms it just as
  firmly, with the same kind of detail (a consistent liar gives no tell by design).
- random interrogator: asks stock questions, stops early with probability 0.25 per turn, and
  gives a coin-flip verdict (expected win rate 0.5); its probes are random levels.
- evasive interrogator (the weak one, for validity checks): asks every question and then never
  commits to a verdict, so every game ends "no_verdict" (expected win rate 0).
No stronger scripted interrogator exists: with a consistent user nothing in the dialogue
separates true from false statements.
"""

from __future__ import annotations

import random

from rapidfuzz import fuzz

from pytest_gameeval.engine.events import SPEECH
from pytest_gameeval.engine.player import TurnContext
from pytest_gameeval.games.arena.rules import RETRO
from pytest_gameeval.games.bluffing.prompts import INTERROGATOR, LEVEL_NAMES

QUESTIONS = (
    "When did this happen?",
    "Who else can confirm it?",
    "What is the detail you remember best?",
    "How did you feel about it?",
    "Where exactly was that?",
    "What happened right after?",
)


def verdict_text(verdict: bool) -> str:
    return f"I believe your statement is: {'True' if verdict else 'False'}"


def data_user(ctx: TurnContext, rng: random.Random) -> str:
    facts = ctx.seat.private.get("facts") or ["I remember it well."]
    question = [e.text for e in ctx.events if e.kind == SPEECH and e.speaker == INTERROGATOR][-1]
    fact = max(facts, key=lambda f: (fuzz.token_set_ratio(question, f), -facts.index(f)))
    opener = "Yes, that is true." if ctx.seat.private.get("truth") else "Yes, it really is true."
    return f"{opener} {fact}"[:600]


def random_interrogator(ctx: TurnContext, rng: random.Random) -> str:
    if ctx.turn.action == RETRO:
        return rng.choice(LEVEL_NAMES)
    asked = sum(1 for e in ctx.events if e.kind == SPEECH and e.speaker == INTERROGATOR)
    if ctx.turn.action == "verdict" or (asked >= 1 and rng.random() < 0.25):
        return verdict_text(rng.random() < 0.5)
    return QUESTIONS[asked % len(QUESTIONS)]


def evasive_interrogator(ctx: TurnContext, rng: random.Random) -> str:
    if ctx.turn.action == RETRO:
        return rng.choice(LEVEL_NAMES)
    if ctx.turn.action == "verdict":
        return "I would rather not say."  # unreadable verdict: re-prompted, then no_verdict
    asked = sum(1 for e in ctx.events if e.kind == SPEECH and e.speaker == INTERROGATOR)
    return QUESTIONS[asked % len(QUESTIONS)]


POLICIES = {
    "random": {"interrogator": random_interrogator, "user": data_user},
    "evasive": {"interrogator": evasive_interrogator, "user": data_user},
}
# opponents=reference: the user seat's default opponent (the random player beside it, so the
# strength plays every seat)
POLICIES["reference"] = POLICIES["random"]
