"""A seat played by any inspect Model (OpenAI, Anthropic, the embedded model, ...)."""

from __future__ import annotations

from inspect_ai.model import (
    ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig, Model,
)
from inspect_ai.util import LimitExceededError

from pytest_gameeval.engine.errors import EngineError, GameEvalError
from pytest_gameeval.engine.views import Message
from pytest_gameeval.players.base import Reply, TurnContext, current_turn

_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def to_inspect(messages: list[Message]) -> list[ChatMessage]:
    return [_ROLES[m["role"]](content=m["content"]) for m in messages]


class ModelPlayer:
    def __init__(self, model: Model, config: GenerateConfig | None = None):
        self.model = model
        self.config = config or GenerateConfig()
        self.label = str(model)

    async def act(self, ctx: TurnContext) -> Reply:
        token = current_turn.set(ctx)
        try:
            output = await self.model.generate(to_inspect(ctx.messages), config=self.config)
        except (LimitExceededError, EngineError, GameEvalError):
            raise  # budgets and harness bugs are not the model's failure
        except Exception as e:  # the call failed after inspect's own retries: a chat error
            return Reply("", error=f"{type(e).__name__}: {e}"[:500])
        finally:
            current_turn.reset(token)
        if output.error:
            return Reply("", error=str(output.error)[:500])
        usage = output.usage
        return Reply(
            output.completion,
            input_tokens=usage.input_tokens if usage else 0,
            output_tokens=usage.output_tokens if usage else 0,
        )
