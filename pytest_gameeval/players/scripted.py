"""Scripted players: deterministic policies for tests and baselines (never a model)."""

from __future__ import annotations

import json
import random
from typing import Callable, Iterable

from pytest_gameeval.engine.game import Seat
from pytest_gameeval.engine.play import SeatBinder
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.engine.spec import GameSpec

Policy = Callable[[TurnContext, random.Random], str]


class ScriptedPlayer(Player):
    """A policy with its own seeded random source, so a game replays exactly."""

    def __init__(self, policy: Policy, seed: int, label: str):
        self.policy = policy
        self.rng = random.Random(seed)
        self.label = label

    async def act(self, ctx: TurnContext) -> Reply:
        return Reply(self.policy(ctx, self.rng))


class ReplayPlayer(Player):
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


def scripted_binder(spec: GameSpec, strengths: dict[str, str], seed: int = 0) -> SeatBinder:
    """Seats played by the game's scripted policies, for `engine.play.play_case`; `strengths` maps
    model role -> strength (key "*" for any role not named)."""

    def bind(seat: Seat, model_role: str) -> Player:
        strength = strengths.get(model_role, strengths.get("*", "random"))
        policies = spec.scripted.get(strength)
        if policies is None or seat.role not in policies:
            raise KeyError(f"{spec.name}: no scripted {strength!r} policy for role {seat.role!r}")
        return ScriptedPlayer(policies[seat.role], derive_seed(seed, seat.name), f"scripted/{strength}")

    return bind


def cot(speak: str, thought: str = "scripted", **extra: str) -> str:
    """A chain-of-thought JSON reply {"thought", "speak", ...}, as a test replays one."""
    return json.dumps({"thought": thought, "speak": speak, **extra})
