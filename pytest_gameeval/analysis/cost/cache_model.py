"""How a provider's prompt cache bills a game's calls, for the estimate (analysis/cost/estimate.py).

A seat's prompt each round is the previous round's prompt plus what happened since, so all of the
previous prompt is a cached prefix of the next one:

- OpenAI-style (every model but Anthropic's; automatic): the previous prompt, in whole 128-token
  blocks, is read from the cache when it is at least `min_prefix` tokens (OpenAI's 1,024); writing
  costs nothing extra.
- Anthropic-style (`anthropic/...`; inspect's `cache_prompt` default on): the previous prompt is read
  when at least `min_prefix` tokens, and the new part is written (billed at `input_cache_write`)
  once the prompt is that long.

An estimate, not a bill: a provider also drops prefixes it has not seen for minutes.
"""

from __future__ import annotations

from typing import Literal

MIN_PREFIX = 1024  # tokens: OpenAI's shortest cached prefix, and Anthropic's for its Sonnet and Opus models
BLOCK = 128

Style = Literal["openai", "anthropic"]


def style_of(model: str) -> Style:
    return "anthropic" if model.startswith("anthropic/") else "openai"


def split_prompt(prompt: float, previous: float, style: Style, min_prefix: int = MIN_PREFIX) -> tuple[float, float,
                                                                                                        float]:
    """(uncached input, cache read, cache write) tokens of a prompt whose seat last sent `previous`."""
    prefix = min(previous, prompt) if previous >= min_prefix else 0.0
    if style == "openai":
        read = float(int(prefix) // BLOCK * BLOCK)
        return prompt - read, read, 0.0
    write = prompt - prefix if prompt >= min_prefix else 0.0
    return prompt - prefix - write, prefix, write
