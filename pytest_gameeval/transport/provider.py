"""A failed model call, told apart: the provider's failure, never the model's move.

inspect retries what its provider calls retryable (429, 5xx, refused connections, attempt
timeouts) and raises the rest at once. Whatever reaches us from `Model.generate` is therefore
either a failure retrying cannot fix (a wrong key, an unknown model, a bad request, a URL that
cannot be reached as written, a body that cannot be read) or one whose retries ran out. Either way
no game was played: the front ends make it a harness error with this one-line cause, and stop the
run at once for the first kind (`fatal`).

We read the SDKs' own exception types by name and attribute (`status_code`, `body`), not by
import: the openai and anthropic SDKs are optional, and an inspect provider may bring another.
"""

from __future__ import annotations

import json
import socket
from typing import Any

from inspect_ai.model import GenerateConfig

from pytest_gameeval.engine.errors import ProviderError
from pytest_gameeval.engine.live import note_retry
from pytest_gameeval.transport.retry_defaults import ATTEMPT_TIMEOUT, MAX_RETRIES, TIMEOUT

# what each HTTP status means to a user reading one line; 4xx outside the retryable ones are fatal
HTTP_KINDS = {400: "bad request", 401: "authentication failed", 403: "permission denied",
              404: "not found (unknown model or wrong base URL)", 413: "request too large",
              422: "bad request", 429: "rate limited"}
RETRYABLE_STATUS = {408, 409, 429}  # and every 5xx


def _unwrapped(error: BaseException) -> tuple[BaseException, bool]:
    """The exception that says what happened, and whether inspect's retries ran out on it:
    tenacity's RetryError holds the last attempt's, an exception group its only member."""
    retried = False
    for _ in range(10):
        last = getattr(error, "last_attempt", None)
        if type(error).__name__ == "RetryError" and last is not None and last.exception() is not None:
            error, retried = last.exception(), True
        elif isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        else:
            break
    return error, retried


def _chain(error: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    while error is not None and error not in found and len(found) < 8:
        found.append(error)
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    return found


def _provider_message(error: BaseException) -> str:
    """The provider's own words: the `message` of an error body (OpenAI's and Anthropic's shapes),
    else the exception's text."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
    return str(error)


def _classify(error: BaseException) -> tuple[str, bool, int | None, str]:
    """(kind, retryable, HTTP status, detail) for an exception out of a model call."""
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        kind = HTTP_KINDS.get(status, "server error" if status >= 500 else "HTTP error")
        return kind, status >= 500 or status in RETRYABLE_STATUS, status, _provider_message(error)
    chain = _chain(error)
    names = {type(e).__name__ for e in chain}
    if any(isinstance(e, socket.gaierror) for e in chain):
        return "base URL does not resolve", False, None, str(chain[-1])
    if any(isinstance(e, OverflowError) or type(e).__name__ == "InvalidURL" for e in chain):
        return "base URL is not valid", False, None, str(chain[-1])
    if names & {"AttemptTimeoutError", "StreamIdleTimeoutError", "APITimeoutError", "TimeoutError", "ReadTimeout"}:
        return "timed out", True, None, str(error) or "no reply in time"
    if names & {"APIConnectionError", "ConnectError", "ConnectionRefusedError", "RemoteProtocolError",
                "ReadError", "ConnectionResetError"}:
        return "connection failed", True, None, str(chain[-1]) or str(error)
    if any(isinstance(e, (json.JSONDecodeError, IndexError, KeyError)) for e in chain) or \
            names & {"ValidationError", "APIResponseValidationError"}:
        return "unreadable response", False, None, f"{type(error).__name__}: {error}"
    return "call failed", False, None, f"{type(error).__name__}: {error}"


def _where(model: Any) -> str:
    api = getattr(model, "api", None)
    # inspect keeps a base URL given by argument; one from the environment only its SDK client has
    base_url = getattr(api, "base_url", None) or getattr(getattr(api, "client", None), "base_url", None)
    return f"{model}" + (f" at {base_url}" if base_url else "")


def _redacted(text: str, model: Any) -> str:
    key = getattr(getattr(model, "api", None), "api_key", None)
    if isinstance(key, str) and len(key) >= 6:
        text = text.replace(key, "***")
    return text


def provider_error(error: BaseException, model: Any, kind: str | None = None) -> ProviderError:
    """The ProviderError for an exception out of `model.generate` (or, with `kind`, for a response
    we found unusable): one line naming the model, its base URL (never the key), the status and the
    provider's message."""
    inner, retried = _unwrapped(error)
    if kind is None:
        kind, retryable, status, detail = _classify(inner)
    else:
        retryable, status, detail = False, None, str(inner)
    detail = " ".join(_redacted(detail, model).split())[:300]
    http = f"HTTP {status} " if status else ""
    after = " (after inspect's retries ran out)" if retried or retryable else ""
    cause = f"{_where(model)}: {http}{kind}{after}: {detail}"
    return ProviderError(cause, kind=kind, fatal=not (retried or retryable), model=str(model), status=status)


def waiting_reason(error: BaseException, attempt: int, max_retries: int | None,
                   attempt_timeout: int | None = None) -> str:
    """What a retried call is waiting on, for progress lines: "429 rate limited, retry 3 of 5"."""
    inner, _ = _unwrapped(error)
    kind, _, status, _ = _classify(inner)
    if kind == "timed out":
        kind = f"no reply in {attempt_timeout} s" if attempt_timeout else "attempt timed out"
    if kind == "connection failed":
        refused = any(isinstance(e, ConnectionRefusedError) or "refused" in str(e).lower()
                      or "All connection attempts failed" in str(e) for e in _chain(inner))
        kind = "connection refused" if refused else kind
    of = f" of {max_retries}" if max_retries is not None else ""
    return f"{f'{status} ' if status else ''}{kind}, retry {attempt}{of}"


def watch_retries(model: Any) -> None:
    """Have each retry of `model`'s calls say why in the progress line of the game that made it.

    inspect asks `Model.should_retry(error)` after every failed attempt, inside the call (so in the
    game's own task): we wrap that bound method on this one Model object and only observe, returning
    inspect's own decision. Where inspect's Model has no such method the wrapper is not installed
    (progress lines then show the wait without its reason)."""
    target = getattr(model, "_model", model)  # the plugin's cache wrapper holds the Model
    decide = getattr(target, "should_retry", None)
    if not callable(decide) or getattr(decide, "gameeval_watched", False):
        return
    config = getattr(target, "config", None)

    def should_retry(error: BaseException) -> Any:
        decision = decide(error)
        if decision:
            retries, timeout = getattr(config, "max_retries", None), getattr(config, "attempt_timeout", None)
            note_retry(lambda n: waiting_reason(error, n, retries, timeout))
        return decision

    should_retry.gameeval_watched = True  # type: ignore[attr-defined]
    try:
        target.should_retry = should_retry
    except (AttributeError, TypeError):  # a slotted or frozen Model: no reasons, nothing else changes
        pass


def retry_config(max_retries: int | None = None, timeout: int | None = None,
                 attempt_timeout: int | None = None) -> GenerateConfig:
    """inspect's retry settings: the values given, else our defaults. One attempt never gets longer
    than the whole call (inspect checks the total only between attempts: `--gameeval-timeout 20`
    with the default 90 s attempt would still wait 90 s on a silent server)."""
    timeout = TIMEOUT if timeout is None else timeout
    attempt = ATTEMPT_TIMEOUT if attempt_timeout is None else attempt_timeout
    return GenerateConfig(max_retries=MAX_RETRIES if max_retries is None else max_retries, timeout=timeout,
                          attempt_timeout=min(attempt, timeout))


# `-M`-style model arguments that are inspect's retry settings, not the SDK client's: the SDK's
# `timeout` collides with the one inspect passes itself (a TypeError), so they become settings
RETRY_MODEL_ARGS = {"timeout": "attempt_timeout", "attempt_timeout": "attempt_timeout",
                    "max_retries": "max_retries", "total_timeout": "timeout"}
