"""Scripted TofuKingdom players.

- random: the Prince asks random legal questions and names a random player; answerers give
  a random answer their obligation allows (truth-tellers the truth, liars a random falsehood,
  the Spy camp anything).
- oracle: the Prince deduces — it keeps every assignment of identities consistent with the
  answers heard and the camps' obligations, and names the player who is the Princess in most
  of them. Answerers lie strategically: the Queen camp points at the Queen, the Spy camp at
  the Spy (the Prince camp must tell the truth anyway).
- naive: the Prince asks everyone who the Princess is and believes the majority (answerers
  as in random) — the Queen camp's three liars can steer it.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from pytest_gameeval.engine.events import SPEECH
from pytest_gameeval.engine.player import TurnContext
from pytest_gameeval.games.tofukingdom.roles import (
    CAMP_OF,
    HIDDEN_ROLES,
    LIE,
    OBLIGATION,
    QUESTIONS,
    TRUTH,
    title,
    true_answer,
)

PRINCE_SEAT = "Prince"


def _names(ctx: TurnContext) -> list[str]:
    return [f"Player {i}" for i in range(1, len(HIDDEN_ROLES) + 1)]


def _reply(**fields: Any) -> str:
    return json.dumps({"thought": "scripted", **fields})


def _question(rng: random.Random, addressee: str, names: list[str]) -> dict[str, Any]:
    kind = rng.choice(QUESTIONS)
    q: dict[str, Any] = {"question": kind}
    if kind == "identity_of":
        q["target"] = rng.choice([n for n in names if n != addressee])
    return q


def heard_answers(ctx: TurnContext) -> list[tuple[str, str, str | None, str]]:
    """(speaker, question kind, target, answer) for every answer heard so far."""
    return [
        (e.speaker, e.data["question"], e.data.get("target"), e.data["answer"])
        for e in ctx.events if e.kind == SPEECH and "answer" in e.data
    ]


def consistent_assignments(names: list[str], answers: list[tuple[str, str, str | None, str]]) -> list[dict[str, str]]:
    """Every identity assignment under which each answer kept its speaker's obligation."""
    found = []
    for perm in itertools.permutations(HIDDEN_ROLES):
        identities = dict(zip(names, perm))
        ok = True
        for speaker, kind, target, answer in answers:
            duty = OBLIGATION[identities[speaker]]
            truth = true_answer(kind, speaker, target, identities)
            if (duty == TRUTH and answer != truth) or (duty == LIE and answer == truth):
                ok = False
                break
        if ok:
            found.append(identities)
    return found


def _addressee(ctx: TurnContext) -> str:
    return ctx.turn.data["addressee"]


def random_prince(ctx: TurnContext, rng: random.Random) -> str:
    names = _names(ctx)
    if ctx.turn.action == "ask":
        return _reply(**_question(rng, _addressee(ctx), names))
    if ctx.turn.action == "extra":
        player = rng.choice(names)
        return _reply(player=player, **_question(rng, player, names))
    return _reply(princess=rng.choice(names))


def oracle_prince(ctx: TurnContext, rng: random.Random) -> str:
    names = _names(ctx)
    if ctx.turn.action == "ask":
        # "Who is the Princess?" from everyone: truth-tellers agree on her, liars exclude a name.
        return _reply(question="princess")
    worlds = consistent_assignments(names, heard_answers(ctx))
    if ctx.turn.action == "extra":
        # Ask the player whose identity is most uncertain about themself.
        def spread(n: str) -> int:
            return len({w[n] for w in worlds})
        player = max(sorted(names), key=lambda n: (spread(n), rng.random())) if worlds else rng.choice(names)
        return _reply(player=player, question="identity")
    if not worlds:
        return _reply(princess=rng.choice(names))
    counts = {n: sum(1 for w in worlds if w[n] == "princess") for n in names}
    best = max(counts.values())
    return _reply(princess=rng.choice([n for n in names if counts[n] == best]))


def naive_prince(ctx: TurnContext, rng: random.Random) -> str:
    names = _names(ctx)
    if ctx.turn.action in ("ask", "extra"):
        extra = {"player": rng.choice(names)} if ctx.turn.action == "extra" else {}
        return _reply(question="princess", **extra)
    votes = [answer for _, kind, _, answer in heard_answers(ctx) if kind == "princess"]
    if not votes:
        return _reply(princess=rng.choice(names))
    best = max(votes.count(n) for n in names)
    return _reply(princess=rng.choice([n for n in names if votes.count(n) == best]))


def _truth(ctx: TurnContext) -> tuple[str, str, str | None, dict[str, str]]:
    identities = ctx.seat.private["identities"]
    kind, target = ctx.turn.data["kind"], ctx.turn.data.get("target")
    return kind, true_answer(kind, ctx.seat.name, target, identities), target, identities


def _options(kind: str, identities: dict[str, str]) -> list[str]:
    return list(identities) if kind == "princess" else list(HIDDEN_ROLES)


def _say(kind: str, value: str) -> str:
    return _reply(answer=value if kind == "princess" else title(value))


def random_answerer(ctx: TurnContext, rng: random.Random) -> str:
    kind, truth, _, identities = _truth(ctx)
    duty = OBLIGATION[ctx.seat.role]
    if duty == TRUTH:
        return _say(kind, truth)
    options = _options(kind, identities)
    if duty == LIE:
        options = [o for o in options if o != truth]
    return _say(kind, rng.choice(options))


def strategic_answerer(ctx: TurnContext, rng: random.Random) -> str:
    kind, truth, target, identities = _truth(ctx)
    duty = OBLIGATION[ctx.seat.role]
    if duty == TRUTH:
        return _say(kind, truth)
    camp = CAMP_OF[ctx.seat.role]
    decoy = next(n for n, r in identities.items() if r == camp)  # the Queen or the Spy
    about = ctx.seat.name if kind == "identity" else target
    if kind == "princess":
        wanted = decoy
    elif about == decoy:
        wanted = "princess"
    elif identities.get(about) == "princess":
        wanted = camp  # the real Princess is "the Queen" / "the Spy"
    else:
        wanted = truth
    if duty == LIE and wanted == truth:
        wanted = rng.choice([o for o in _options(kind, identities) if o != truth])
    return _say(kind, wanted)


POLICIES = {
    "random": {"prince": random_prince, **{r: random_answerer for r in HIDDEN_ROLES}},
    "oracle": {"prince": oracle_prince, **{r: strategic_answerer for r in HIDDEN_ROLES}},
    "naive": {"prince": naive_prince, **{r: random_answerer for r in HIDDEN_ROLES}},
}
