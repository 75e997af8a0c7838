"""Scripted players: deterministic policies for tests and baselines (never a model)."""

from __future__ import annotations

import json
import random
from typing import Callable, Iterable

from pytest_gameeval.players.base import Reply, TurnContext

Policy = Callable[[TurnContext, random.Random], str]


class ScriptedPlayer:
    """A policy with its own seeded random source, so a game replays exactly."""

    def __init__(self, policy: Policy, seed: int, label: str):
        self.policy = policy
        self.rng = random.Random(seed)
        self.label = label

    async def act(self, ctx: TurnContext) -> Reply:
        return Reply(self.policy(ctx, self.rng))


class ReplayPlayer:
    """Replays fixed replies in order (a unit-test device). `None` replays a failed call."""

    def __init__(self, replies: Iterable[str | None], label: str = "replay"):
        self.replies = list(replies)
        self.label = label
        self.prompts: list[TurnContext] = []

    async def act(self, ctx: TurnContext) -> Reply:
        self.prompts.append(ctx)
        if not self.replies:
            raise AssertionError(f"{self.label}: ran out of scripted replies at {ctx.turn.action}")
        text = self.replies.pop(0)
        if text is None:
            return Reply("", error="scripted chat error")
        return Reply(text)


def cot(speak: str, thought: str = "scripted", **extra: str) -> str:
    """A chain-of-thought JSON reply, as scripted policies write them."""
    return json.dumps({"thought": thought, "speak": speak, **extra})
