"""`gameeval/scripted[/STRENGTH]`: the game's scripted players behind inspect's model path.

For tests, baselines and benchmarks: every call goes through inspect (logging, concurrency,
retries) but the reply comes from the scripted policy for the seat being played, found via
the turn context the engine sets. -M latency=SECONDS simulates a remote model's latency.
Token counts are whitespace-word counts (honestly approximate; no tokenizer, no network).

Structured decoding (``-T structured=on``): the request's response schema is honoured by shape only:
a plain-text turn's reply is sent as {"<field>": "<text>"}; policies are not constrained further.

Fault injection (-M fault_rate=0.1 -M faults=rate_limit,server_error,timeout,truncated):
that share of calls raises a retryable rate-limit/server/timeout error (inspect retries it
with a short wait; the game sees a chat error only if every retry fails) or returns a reply
cut in half with stop_reason "max_tokens" (the game sees the broken text).
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import JSONSchema
from tenacity.wait import wait_fixed

from pytest_gameeval.engine.errors import EngineError, GameEvalError
from pytest_gameeval.engine.player import current_turn
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.games.registry import check_scripted_model, get_spec
from pytest_gameeval.inspect_ext.cli_errors import one_line_error

FAULT_KINDS = ("rate_limit", "server_error", "timeout", "truncated")


class InjectedFault(Exception):
    """A transient failure injected on purpose (retryable, like a real 429/5xx/timeout)."""


def _as_schema(text: str, schema: JSONSchema) -> str:
    """A scripted reply under structured decoding: a plain-text turn's reply becomes {"<field>": text}
    (JSON replies already have the turn's shape; policies are not constrained otherwise)."""
    fields = list(schema.properties or {})
    if len(fields) != 1:
        return text
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    return text if isinstance(obj, dict) and fields[0] in obj else json.dumps({fields[0]: text})


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
        fault_rate: float = 0.0,
        faults: str = ",".join(FAULT_KINDS),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.strength = model_name.split("/", 1)[1] if "/" in model_name else "random"
        try:  # a typo: one line now, not a failed call in every game
            check_scripted_model(f"gameeval/{model_name}")
        except GameEvalError as e:
            raise one_line_error(f"gameeval: {e}") from None
        try:
            self.latency = float(latency)
            self.seed = int(seed)
            self.connections = int(connections)
            self.fault_rate = float(fault_rate)
        except ValueError as e:
            raise one_line_error(f"gameeval/scripted: bad model argument ({e})") from None
        self.faults = [f.strip() for f in str(faults).split(",") if f.strip()]
        unknown = set(self.faults) - set(FAULT_KINDS)
        if unknown or not 0.0 <= self.fault_rate <= 1.0:
            raise one_line_error(
                f"gameeval/scripted: faults must be among {', '.join(FAULT_KINDS)} and 0 <= fault_rate <= 1"
            )
        self.fault_rng = random.Random(self.seed)
        self.injected: dict[str, int] = {kind: 0 for kind in FAULT_KINDS}

    def should_retry(self, ex: Exception) -> bool:
        return isinstance(ex, InjectedFault)

    def retry_wait(self) -> Any:
        return wait_fixed(0.01)  # injected faults need no real back-off

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
        if config.response_schema is not None:
            text = _as_schema(text, config.response_schema.json_schema)
        if self.latency:
            await asyncio.sleep(self.latency)
        fault = (
            self.fault_rng.choice(self.faults) if self.faults and self.fault_rng.random() < self.fault_rate else None
        )
        if fault:
            self.injected[fault] += 1
            if fault != "truncated":
                raise InjectedFault(f"injected {fault.replace('_', ' ')}")
        prompt_words = sum(len(str(m.content).split()) for m in input)
        if fault == "truncated":
            text = text[: len(text) // 2]
        output = ModelOutput.from_content(
            model=self.model_name, content=text, stop_reason="max_tokens" if fault else "stop"
        )
        output.usage = ModelUsage(
            input_tokens=prompt_words, output_tokens=len(text.split()), total_tokens=prompt_words + len(text.split())
        )
        return output
