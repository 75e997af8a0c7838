"""Prompt caching and a bill, as the providers do them, for the loopback servers (never a model).

A prompt is a list of blocks (the system prompt, then each message's text). A block of N characters
is ceil(N / 4) tokens; a token is known by the block it sits in and its place there, so two prompts
share a prefix exactly when they share their first blocks (and the start of the next).

- OpenAI (`OpenAICache`): any prefix of at least `min_prefix` tokens that an earlier request sent is
  served from the cache, counted in whole 128-token blocks, reported as
  `usage.prompt_tokens_details.cached_tokens` (part of `prompt_tokens`) and billed at the cache-read
  price; writing the cache costs nothing extra. OpenAI's own minimum is 1,024 tokens; a smaller one
  lets short games cache too.
- Anthropic (`AnthropicCache`): a request marks breakpoints (`cache_control` on a block; on the
  request itself: the end of the prompt, inspect's automatic caching). The longest breakpoint prefix
  an earlier request wrote is read (`cache_read_input_tokens`); the prompt up to the last breakpoint
  beyond it, if at least `min_prefix` tokens, is written (`cache_creation_input_tokens`); the rest
  is `input_tokens`.

`Bill` prices every call with the provider's four prices (USD per million tokens; the table inspect
reads with `--model-cost-config`), by its own arithmetic, so a test can hold a report against it.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

BLOCK = 128  # OpenAI counts cached tokens in blocks of 128


def block_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _prefix_keys(blocks: list[str]) -> list[tuple[int, str]]:
    """(tokens so far, a key of the prompt up to there) at the end of every block."""
    digest, total, out = hashlib.sha256(), 0, []
    for text in blocks:
        digest.update(text.encode() + b"\x00")
        total += block_tokens(text)
        out.append((total, digest.hexdigest()))
    return out


class OpenAICache:
    def __init__(self, min_prefix: int = 1024):
        self.min_prefix = min_prefix
        self.seen: dict[str, int] = {}  # key of a prompt's prefix at each block's end -> its tokens

    def usage(self, blocks: list[str]) -> dict[str, int]:
        """prompt_tokens and cached_tokens of one request; remembers its prefixes."""
        keys = _prefix_keys(blocks)
        hit = max((n for n, key in keys if key in self.seen), default=0)
        # the next block's start is shared too, up to the shorter of the two (a longer earlier prompt
        # that shares this one's first blocks); whole 128-token blocks of the shared prefix count
        cached = hit // BLOCK * BLOCK if hit >= self.min_prefix else 0
        self.seen.update((key, n) for n, key in keys)
        total = keys[-1][0] if keys else 0
        return {"prompt_tokens": total, "cached_tokens": cached}


class AnthropicCache:
    def __init__(self, min_prefix: int = 1024):
        self.min_prefix = min_prefix
        self.written: set[str] = set()

    def usage(self, blocks: list[str], breakpoints: list[int]) -> dict[str, int]:
        """input_tokens, cache_read_input_tokens and cache_creation_input_tokens of one request whose
        blocks at the indexes `breakpoints` carry a cache breakpoint."""
        keys = _prefix_keys(blocks)
        total = keys[-1][0] if keys else 0
        marks = sorted({i for i in breakpoints if 0 <= i < len(keys)})
        read = max((keys[i][0] for i in marks if keys[i][1] in self.written), default=0)
        write = 0
        if marks and keys[marks[-1]][0] > read and keys[marks[-1]][0] >= self.min_prefix:
            write = keys[marks[-1]][0] - read
            self.written.update(keys[i][1] for i in marks if keys[i][0] >= self.min_prefix)
        return {"input_tokens": total - read - write, "cache_read_input_tokens": read,
                "cache_creation_input_tokens": write}


class Bill:
    """Every call's tokens and price, and the total."""

    def __init__(self, prices: dict[str, dict[str, float]] | None = None):
        self.prices = prices or {}
        self.calls: list[dict[str, Any]] = []

    def add(self, model: str, input_tokens: int, output_tokens: int, cache_read: int = 0,
            cache_write: int = 0) -> None:
        price = self.prices.get(model) or next(iter(self.prices.values()), None)
        usd = None if price is None else (
            input_tokens * price["input"] + output_tokens * price["output"] + cache_read * price["input_cache_read"]
            + cache_write * price["input_cache_write"]) / 1_000_000
        self.calls.append({"model": model, "input_tokens": input_tokens, "output_tokens": output_tokens,
                           "input_tokens_cache_read": cache_read, "input_tokens_cache_write": cache_write,
                           "usd": usd})

    def summary(self) -> dict[str, Any]:
        keys = ("input_tokens", "output_tokens", "input_tokens_cache_read", "input_tokens_cache_write")
        usd = [c["usd"] for c in self.calls]
        return {"calls": len(self.calls), **{k: sum(c[k] for c in self.calls) for k in keys},
                "usd": None if None in usd else sum(usd), "per_call": self.calls}


def read_prices(path: str | None) -> dict[str, dict[str, float]]:
    """The provider's price list: a table in inspect's --model-cost-config format (YAML or JSON)."""
    if not path:
        return {}
    import yaml  # JSON is YAML

    return {str(k): {f: float(v[f]) for f in ("input", "output", "input_cache_read", "input_cache_write")}
            for k, v in yaml.safe_load(Path(path).read_text(encoding="utf-8")).items()}
