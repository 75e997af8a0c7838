"""The fast path: a chat request's messages sent past the SDK's client-side transform, byte for byte.

Why: the openai SDK's `chat.completions.create` (and `responses.create`) re-walks the whole
`messages` (`input`) list against its TypedDict graph on every call, with the GIL held, to rename
aliased keys and format special values. Ours are plain wire-format dicts by the time inspect hands
them over, so the walk changes nothing, and it grows with the history: measured 0.36 ms at round 1
and 8.7 ms at round 30 of an Ask-Guess game, most of a call's client CPU (docs/performance.md).

How: the SDK merges `extra_body` into the JSON body *after* the transform, keeping the key order of
the transformed body. So we pass an empty list in the typed argument and the real list in
`extra_body` under the same key: the body that goes on the wire is the same bytes (the key keeps its
place; provider-side prompt caching depends on that), without the walk. The same remedy
hermes-agent took for its chat path.

Where inspect's provider or the SDK changes shape (no such client, a `create` without the keyword
arguments we rely on), the fast path switches itself off for that model with one line of notice:
never a crash, never a different body. `GAMEEVAL_FAST_PATH=0` (or the plugin's
`--gameeval-no-fast-path`) turns it off.
"""

from __future__ import annotations

import inspect as python_inspect
import os
import sys
from typing import Any, Callable

ENV = "GAMEEVAL_FAST_PATH"
# per SDK (the module its client comes from): (path from the client to the resource, its method,
# the bulk argument) for each API we speed up; the first is the one a game's calls go through
RESOURCES = {
    "openai": (("chat.completions", "create", "messages"), ("responses", "create", "input")),
    "anthropic": (("messages", "stream", "messages"), ("messages", "create", "messages")),
}
_noticed: set[str] = set()


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "off", "no")


def _notice(text: str) -> None:
    if text not in _noticed:
        _noticed.add(text)
        print(f"gameeval: fast path off: {text}", file=sys.stderr, flush=True)


def _resource(client: Any, path: str) -> Any:
    for part in path.split("."):
        client = getattr(client, part, None)
    return client


def _shaped_as_expected(create: Callable[..., Any], bulk: str) -> bool:
    """The SDK's `create` takes `bulk` and `extra_body` as keywords (what the remedy relies on)."""
    try:
        parameters = python_inspect.signature(create).parameters
    except (TypeError, ValueError):
        return False
    return all(name in parameters and parameters[name].kind == python_inspect.Parameter.KEYWORD_ONLY
               for name in (bulk, "extra_body"))


def _wrapped(create: Callable[..., Any], bulk: str) -> Callable[..., Any]:
    # a plain function returning what the SDK's returns (a coroutine, or Anthropic's stream manager)
    def create_fast(*args: Any, **kwargs: Any) -> Any:
        items = kwargs.get(bulk)
        extra = kwargs.get("extra_body")
        if args or not isinstance(items, list) or not items or (extra is not None and not isinstance(extra, dict)) \
                or (extra and bulk in extra):
            return create(*args, **kwargs)  # anything unusual: the SDK's own path, unchanged
        kwargs[bulk] = []
        kwargs["extra_body"] = {**(extra or {}), bulk: items}
        return create(**kwargs)

    create_fast.gameeval_fast_path = True  # type: ignore[attr-defined]
    return create_fast


def install(model: Any) -> str:
    """Speed up `model`'s calls where its provider holds an openai or anthropic SDK client; returns
    the state ("on" when the calls a game makes go the fast way, "off", or why it is unavailable)."""
    if not enabled():
        return "off"
    target = getattr(model, "_model", model)  # the plugin's cache wrapper holds the Model
    client = getattr(getattr(target, "api", None), "client", None)
    sdk = type(client).__module__.split(".")[0] if client is not None else ""
    if sdk not in RESOURCES:
        return "unavailable: not an openai or anthropic SDK client"
    wrapped = [_wrap(_resource(client, path), method, bulk) for path, method, bulk in RESOURCES[sdk]]
    return "on" if wrapped[0] else f"unavailable: {sdk}'s {RESOURCES[sdk][0][0]}.{RESOURCES[sdk][0][1]} not wrapped"


def _wrap(resource: Any, method: str, bulk: str) -> bool:
    """Wrap `resource.method` once; False where the SDK is not shaped as the remedy needs."""
    create = getattr(resource, method, None)
    if create is None:
        return False
    if getattr(create, "gameeval_fast_path", False):
        return True
    if not _shaped_as_expected(create, bulk):
        _notice(f"{type(resource).__name__}.{method} of this SDK does not take {bulk}= and extra_body= as keywords "
                "(the SDK changed); requests go the SDK's own way")
        return False
    try:
        setattr(resource, method, _wrapped(create, bulk))
    except (AttributeError, TypeError):
        _notice(f"cannot wrap {type(resource).__name__}.{method}; requests go the SDK's own way")
        return False
    return True
