"""The arena's outer layers, plain ASGI (no per-request task): security headers on every
response, errors included; a body limit counted while the body streams in; and a last guard that
turns any error into one log line without its message (a message may hold a person's text or a
session id) instead of a traceback.

Order, outside in: SecurityHeaders(Guard(Starlette(TrustedHost, BodyLimit, routes))). Starlette's
own error middleware sits outside its user middleware, so its 500 page gets its headers from
SecurityHeaders, and the exception it re-raises for the server to log stops at Guard.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no address (with its session id) to other sites; Origin kept for our posts
    "Cache-Control": "no-store",
}
DIGITS = re.compile(r"[0-9]{1,18}")


class BodyTooLarge(Exception):
    """The request's body went past the limit while it streamed in (the app answers 413)."""


class SecurityHeaders:
    """Adds SECURITY_HEADERS to every response."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    headers.setdefault(key, value)
            await send(message)

        await self.app(scope, receive, send_with_headers if scope["type"] == "http" else send)


class BodyLimit:
    """At most `max_body` bytes of body on any route: a larger Content-Length gets `too_large`
    without the app being called; a body without one (chunked) is counted as it is received and
    BodyTooLarge is raised inside the app's read once it passes the limit, before any parsing."""

    def __init__(self, app: Any, max_body: int, too_large: Any):
        self.app = app
        self.max_body = max_body
        self.too_large = too_large  # an ASGI response for a declared length over the limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not DIGITS.fullmatch(declared) or int(declared) > self.max_body):
            await self.too_large(scope, receive, send)
            return
        received = 0

        async def counted() -> Any:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise BodyTooLarge(f"more than {self.max_body} bytes")
            return message

        await self.app(scope, counted, send)


class Guard:
    """The last catch: an error escaping the app is one line on stderr (its type, the method and
    the route's shape, never its message or the address, which holds a session id)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        started = False

        async def watched(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as e:  # Starlette's error middleware has sent its 500 page, unless the error came before it
            route = getattr(scope.get("route"), "path", None) or "(no route)"
            print(f"arena: error {type(e).__name__} answering {scope.get('method', '')} {route} "
                  "(details withheld: they may hold a person's text)", file=sys.stderr, flush=True)
            if not started and scope["type"] == "http":
                await PlainTextResponse("The server could not answer this request.", 500)(scope, receive, send)
