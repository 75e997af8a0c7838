"""Scripted Ask-Guess players of known strength.

- random questioner: guesses labels in a random order (ST within 30 of 100 labels: 0.30
  in expectation);
- category questioner (strong): asks the CIFAR-100 superclass questions first, then guesses
  within the superclass the answerer confirmed;
- oracle answerer (also the reference answerer): truthful about its word's superclass, says
  gameover on a correct guess and no to other words, and declines any other question;
- random answerer: says yes/no at random and gameover at random.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache

from pytest_gameeval.engine.data import data_path, load_jsonl
from pytest_gameeval.engine.events import SPEECH
from pytest_gameeval.engine.matching import mentions
from pytest_gameeval.engine.player import TurnContext

CATEGORY_QUESTIONS = {
    "aquatic mammals": "Is it a mammal that lives in water?",
    "fish": "Is it a fish?",
    "flowers": "Is it a flower?",
    "food containers": "Is it a container for food or drink?",
    "fruit and vegetables": "Is it a fruit or a vegetable?",
    "household electrical devices": "Is it an electrical device used at home?",
    "household furniture": "Is it a piece of furniture?",
    "insects": "Is it an insect?",
    "large carnivores": "Is it a large meat-eating animal?",
    "large man-made outdoor things": "Is it a large structure built by people outdoors?",
    "large natural outdoor scenes": "Is it a natural landscape or scene?",
    "large omnivores and herbivores": "Is it a large plant-eating or omnivorous animal?",
    "medium-sized mammals": "Is it a medium-sized wild mammal?",
    "non-insect invertebrates": "Is it an invertebrate that is not an insect?",
    "people": "Is it a person?",
    "reptiles": "Is it a reptile?",
    "small mammals": "Is it a small mammal?",
    "trees": "Is it a tree?",
    "vehicles 1": "Is it an everyday road or rail vehicle?",
    "vehicles 2": "Is it an unusual or special-purpose vehicle?",
}


def _labels(ctx: TurnContext) -> list[dict]:
    """The words this game draws from (the user's own with -T data=FILE)."""
    return _load_labels(str(data_path(ctx.options, __package__, "cifar100.jsonl")))


@lru_cache(maxsize=4)
def _load_labels(path: str) -> list[dict]:
    return load_jsonl(path, {"label": str})


def _said(ctx: TurnContext, seat: str) -> list[str]:
    return [e.text for e in ctx.events if e.kind == SPEECH and e.speaker == seat]


def _wrap(ctx: TurnContext, text: str) -> str:
    return json.dumps({"thought": "scripted", "speak": text}) if ctx.options.cot else text


def _guess(label: str) -> str:
    return f"Is it a {label.replace('_', ' ')}?"


def random_questioner(ctx: TurnContext, rng: random.Random) -> str:
    asked = set(_said(ctx, ctx.turn.seat))
    options = [_guess(row["label"]) for row in _labels(ctx)]
    options = [q for q in options if q not in asked]
    return _wrap(ctx, rng.choice(options))


def category_questioner(ctx: TurnContext, rng: random.Random) -> str:
    asked = _said(ctx, ctx.turn.seat)
    answers = [e.text for e in ctx.events if e.kind == SPEECH and e.speaker != ctx.turn.seat]
    confirmed = None
    for question, answer in zip(asked, answers[-len(asked):] if asked else []):
        category = next((c for c, q in CATEGORY_QUESTIONS.items() if q == question), None)
        if category and answer.lower().startswith("yes"):
            confirmed = category
    if confirmed is None:
        remaining = [q for q in CATEGORY_QUESTIONS.values() if q not in asked]
        if remaining:
            return _wrap(ctx, rng.choice(sorted(remaining)))
    pool = [r["label"] for r in _labels(ctx) if confirmed is None or r.get("category") == confirmed]
    remaining = [_guess(label) for label in pool if _guess(label) not in asked]
    return _wrap(ctx, rng.choice(sorted(remaining)) if remaining else "Is it something else?")


def oracle_answerer(ctx: TurnContext, rng: random.Random) -> str:
    """Answers only what its word's data decides (label, aliases, superclass) and never guesses:
    the reference answerer (opponents=reference)."""
    word, category = ctx.seat.private["word"], ctx.seat.private.get("category")
    if ctx.turn.action == "describe":
        return _wrap(ctx, f"It belongs to the group: {category}.")
    question = [e.text for e in ctx.events if e.kind == SPEECH and e.speaker != ctx.seat.name][-1]
    labels = _labels(ctx)
    row = next((r for r in labels if r["label"].replace("_", " ") == word), {"aliases": [], "homograph": False})
    if mentions(question, word, row["aliases"], row["homograph"]):
        return _wrap(ctx, "gameover")
    if question == CATEGORY_QUESTIONS.get(category):
        return _wrap(ctx, "Yes.")
    if question in CATEGORY_QUESTIONS.values() or any(
        mentions(question, r["label"].replace("_", " "), r.get("aliases", [])) for r in labels
    ):
        return _wrap(ctx, "No.")
    # a question its data cannot decide: no made-up answer (where only yes/no/gameover is
    # allowed, protocol=paper's hard mode, "No.")
    only_yes_no = ctx.options.protocol == "paper" and ctx.options.mode == "hard"
    return _wrap(ctx, "No." if only_yes_no else "I cannot tell you that; ask another question.")


def random_answerer(ctx: TurnContext, rng: random.Random) -> str:
    if ctx.turn.action == "describe":
        return _wrap(ctx, "It is something you may know.")
    return _wrap(ctx, "gameover" if rng.random() < 0.05 else rng.choice(["Yes.", "No."]))


POLICIES = {
    "random": {"questioner": random_questioner, "answerer": random_answerer},
    "oracle": {"questioner": category_questioner, "answerer": oracle_answerer},
}
POLICIES["reference"] = POLICIES["oracle"]  # opponents=reference: the answerer seat's default
