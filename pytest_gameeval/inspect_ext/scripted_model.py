"""`gameeval/scripted[/STRENGTH]`: the game's scripted players behind inspect's model path.

For tests, baselines and benchmarks: every call goes through inspect (logging, concurrency,
retries) but the reply comes from the scripted policy for the seat being played, found via
the turn context the engine sets. -M latency=SECONDS simulates a remote model's latency.
Token counts are whitespace-word counts (honestly approximate; no tokenizer, no network).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage
from inspect_ai.tool import ToolChoice, ToolInfo

from pytest_gameeval.engine.errors import EngineError
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.base import current_turn


class ScriptedModelAPI(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        latency: float = 0.0,
        seed: int = 0,
        connections: int = 256,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.strength = model_name.split("/", 1)[1] if "/" in model_name else "random"
        self.latency = float(latency)
        self.seed = int(seed)
        self.connections = int(connections)

    def max_connections(self) -> int:
        return self.connections

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig,
    ) -> ModelOutput:
        ctx = current_turn.get()
        if ctx is None:
            raise EngineError("gameeval/scripted only plays seats of gameeval games (no game turn in progress)")
        policies = get_spec(ctx.game).scripted.get(self.strength)
        if policies is None or ctx.seat.role not in policies:
            raise EngineError(f"gameeval/scripted/{self.strength}: no policy for {ctx.game} role {ctx.seat.role!r}")
        # Stateless across games: the random source follows from the game and the seat's view.
        rng = random.Random(derive_seed(self.seed, ctx.game_seed, ctx.seat.name, len(ctx.events), ctx.attempt))
        text = policies[ctx.seat.role](ctx, rng)
        if self.latency:
            await asyncio.sleep(self.latency)
        prompt_words = sum(len(str(m.content).split()) for m in input)
        output = ModelOutput.from_content(model=self.model_name, content=text)
        output.usage = ModelUsage(input_tokens=prompt_words, output_tokens=len(text.split()), total_tokens=prompt_words + len(text.split()))
        return output
