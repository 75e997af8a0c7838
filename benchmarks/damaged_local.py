"""A real model made worse on purpose, for benchmarks/degradation.py: the embedded model with a
sentence cut from every system prompt it is sent (its rules, by default Ask-Guess's "Each turn, ask
exactly one short question ..."). Not part of the package: load it into a pytest run with

    PYTHONPATH=benchmarks pytest -p damaged_local --gameeval-model damaged/local ...

and give `--gameeval-model-arg cut=REGEX` for another sentence. Everything else (weights, server,
decoding defaults) is the embedded model's own: `damaged/local` differs from `gameeval/local` by the
cut alone.
"""

from __future__ import annotations

import re
from typing import Any

from inspect_ai.model import ChatMessageSystem, ModelAPI, modelapi

from pytest_gameeval.backends.local_provider import LocalModelAPI

DEFAULT_CUT = r"Each turn\b[^.]*[.?!]"  # Ask-Guess's rules sentence (the questioner's and the answerer's)


class DamagedLocalAPI(LocalModelAPI):
    def __init__(self, model_name: str, *args: Any, cut: str = DEFAULT_CUT, **kwargs: Any):
        super().__init__(model_name, *args, **kwargs)
        self.cut = re.compile(cut)

    async def generate(self, input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        damaged = [
            ChatMessageSystem(content=self.cut.sub("", m.text).strip()) if m.role == "system" else m for m in input
        ]
        return await super().generate(damaged, tools, tool_choice, config)


@modelapi(name="damaged")
def damaged() -> type[ModelAPI]:
    return DamagedLocalAPI
