"""The tokens a provider billed for one call, as inspect's `ModelUsage` gives them."""

from __future__ import annotations

from typing import Any

# inspect's ModelUsage fields we record beside input/output, by the record's key (the same names):
# prompt tokens served from the provider's cache, written to it, and reasoning tokens (part of output)
EXTRA_TOKENS = ("input_tokens_cache_read", "input_tokens_cache_write", "reasoning_tokens")


def billed_tokens(usage: Any) -> dict[str, int]:
    """input_tokens and output_tokens (0 without a usage), and each extra count the provider
    reported (left out when it reported none, so a record without caching stays as it was)."""
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    out = {"input_tokens": usage.input_tokens or 0, "output_tokens": usage.output_tokens or 0}
    out.update({k: int(v) for k in EXTRA_TOKENS if (v := getattr(usage, k, None))})
    return out
