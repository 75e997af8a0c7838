"""A seat played by any inspect Model (OpenAI, Anthropic, the embedded model, ...)."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
)
from inspect_ai.util import JSONSchema, LimitExceededError

from pytest_gameeval.engine.errors import EngineError, GameEvalError
from pytest_gameeval.engine.player import Player, Reply, TurnContext, current_turn
from pytest_gameeval.engine.replies import ReplyFormat
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.engine.views import Message
from pytest_gameeval.transport import fast_path
from pytest_gameeval.transport.provider import provider_error, watch_retries
from pytest_gameeval.transport.usage import billed_tokens

# how much a deterministic seat's temperature rises on each re-prompt (Werewolf Arena raises it by
# 0.2 a retry). Measured on SmolLM2-135M re-asked after a repeated question, 5 seeds each: at 0 it
# repeated 5 of 5 times, at 0.5 3 of 5, at 1.0 2 of 5, its rejected reply out of view (docs/fidelity.md)
RESAMPLE_STEP = 0.5

_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def to_inspect(messages: list[Message]) -> list[ChatMessage]:
    return [_ROLES[m["role"]](content=m["content"]) for m in messages]


def response_schema(reply: ReplyFormat) -> ResponseSchema:
    """The turn's reply format as inspect's structured-output request."""
    return ResponseSchema(name=reply.name, json_schema=JSONSchema.model_validate(reply.json_schema()))


class InspectConversation:
    """A seat's prompts as inspect messages, converted incrementally.

    A seat's prompt grows by a message or two a turn. The messages of the unchanged prefix are the
    very ChatMessage objects sent last time (same ids), as in an inspect agent's own growing
    `state.messages`: we build only the new tail, and inspect's sample buffer and log condensing
    recognise the re-sent messages by identity instead of serialising and hashing the whole
    history again on every call. Any change (a merged last message, a message taken out of the
    view) ends the shared prefix there, so the result always equals `to_inspect(messages)`.
    """

    def __init__(self) -> None:
        self._sent: list[Message] = []
        self._converted: list[ChatMessage] = []

    def convert(self, messages: list[Message]) -> list[ChatMessage]:
        same = 0
        for old, new in zip(self._sent, messages):
            if old["role"] != new["role"] or old["content"] != new["content"]:
                break
            same += 1
        converted = self._converted[:same] + to_inspect(messages[same:])  # a new list: inspect keeps each call's input
        self._sent, self._converted = [dict(m) for m in messages], converted
        return converted


class ModelPlayer(Player):
    """`structured`: send each turn's reply schema with the request (constrained decoding); the
    front end decides it from the `structured` option and the model (inspect_ext/decoding.py).
    `reference`: the seat is a game's fixed reference opponent, not a model under test."""

    def __init__(self, model: Model, config: GenerateConfig | None = None, *, structured: bool = False,
                 reference: bool = False, self_play: bool = False):
        self.model = model
        self.reference = reference
        self.self_play = self_play  # an unbound role the evaluated model plays (not a role bound to it)
        self.config = config or GenerateConfig()
        self.label = str(model)
        self.structured = structured
        self.conversation = InspectConversation()
        watch_retries(model)  # progress lines say why a call is being retried

    def _temperature(self) -> float | None:
        """The temperature a call is sampled at when the config sets none: the provider's default
        where it says it (the embedded model's `-M temperature`), else unknown."""
        if self.config.temperature is not None:
            return self.config.temperature
        default = getattr(getattr(self.model, "api", None), "default_temperature", None)
        return float(default) if isinstance(default, (int, float)) else None

    def _sampling(self, ctx: TurnContext) -> GenerateConfig | None:
        """A deterministic seat's re-prompt is sampled anew: temperature raised by RESAMPLE_STEP per
        attempt, with a seed of its own (derived from the game's seed, the seat, the turn and the
        attempt, so the same game seed still plays the same game). None: sampled as configured."""
        if not (ctx.resample and ctx.attempt and self._temperature() == 0):
            return None
        seed = derive_seed(ctx.game_seed, ctx.seat.name, ctx.turn.action, len(ctx.events), ctx.attempt) % 2**31
        return GenerateConfig(temperature=round(RESAMPLE_STEP * ctx.attempt, 3), seed=seed)

    def _config(self, ctx: TurnContext) -> GenerateConfig:
        # the seat's own config as is when nothing is added (most calls): a merge deep-copies it,
        # and inspect merges what it is given into a config of its own in any case
        sampling = self._sampling(ctx)
        config = self.config if sampling is None else self.config.merge(sampling)
        if not self.structured or ctx.turn.reply is None:
            return config
        return config.merge(GenerateConfig(response_schema=response_schema(ctx.turn.reply)))

    async def act(self, ctx: TurnContext) -> Reply:
        token = current_turn.set(ctx)
        config = self._config(ctx)
        sampling = {"temperature": config.temperature if config.temperature is not None else self._temperature(),
                    **({"seed": config.seed, "resampled": True} if config.seed is not None and ctx.attempt else {})}
        fast_path.install(self.model)  # each call: inspect may have made its SDK client anew
        try:
            output = await self.model.generate(self.conversation.convert(ctx.messages), config=config)
        except (LimitExceededError, EngineError, GameEvalError):
            raise  # budgets and harness bugs are not the model's failure
        except Exception as e:
            if "ContextOverflow" in type(e).__name__:  # the model's context is full: the game's own end
                return Reply("", error=f"{type(e).__name__}: {e}"[:500], context_overflow=True)
            # anything else failed at the provider (after inspect's retries, where it retries):
            # no game was played, the front end makes it a harness error with this cause
            raise provider_error(e, self.model) from None
        finally:
            current_turn.reset(token)
        if not output.choices:  # a 200 that holds no reply (`choices: []`): unreadable, not a move
            raise provider_error(ValueError("the response holds no choices (no reply)"), self.model,
                                 kind="unreadable response")
        if output.stop_reason == "content_filter":  # the provider withheld the reply: its own kind
            return Reply("", error=f"the provider's content filter withheld the reply{_said(output)}",
                         content_filter=True)
        if output.error:
            return Reply("", error=str(output.error)[:500])
        if output.stop_reason == "model_length":  # the provider says the context is full
            return Reply(
                "",
                error="the prompt and reply exceed the model's context (stop reason model_length)",
                context_overflow=True,
            )
        billed = billed_tokens(output.usage)
        return Reply(
            output.completion,
            input_tokens=billed.pop("input_tokens"),
            output_tokens=billed.pop("output_tokens"),
            tokens=billed,
            sampling=sampling,
        )


def _said(output: Any) -> str:
    """What the provider said of a filtered reply, if anything (': ...')."""
    text = (output.completion or "").strip() or str(output.error or "").strip()
    return f": {' '.join(text.split())[:200]}" if text else ""
