"""A fault-injecting OpenAI- and Anthropic-compatible server on 127.0.0.1, for the live-API tests.

    python tests/live/fault_server.py --fault 401 --port 0     # prints: listening on http://127.0.0.1:PORT

Never a model: healthy answers are legal Ask-Guess moves (the Questioner asks a question it has not
asked, the Answerer says "No."), so a healthy game runs its rounds out. Faults (`--fault`):

    healthy            every call answered
    slow               every call answered after 0.5 s
    401                every call: 401 with the provider's own error body ("Incorrect API key ...")
    truncated          200 with a JSON body cut off mid-object
    empty-choices      200 with `choices: []`
    429                every call: 429 with Retry-After: 1
    429-first          a conversation's first 3 calls 429 (Retry-After: 1), then healthy
    500-some           30 % of calls 500 (seeded), the rest healthy
    hang               accepts the request and never answers
    content-filter     200, finish_reason content_filter, empty content
    no-stream          Anthropic: a whole JSON message although the request asked for a stream

OpenAI's chat completions at /v1/chat/completions, Anthropic's Messages at /v1/messages (streamed as
server-sent events when the request asks `stream: true`, as inspect's Anthropic provider does).
It exits by itself after `--max-seconds`.

Billing like Anthropic (benchmarks/loopback_billing.py): `--cache anthropic` reads the request's cache
breakpoints (`cache_control` on blocks, and on the request: inspect's automatic caching) and reports
`cache_read_input_tokens` / `cache_creation_input_tokens` beside `input_tokens` (from `--cache-min`
tokens); a block of N characters is ceil(N / 4) tokens. `--prices FILE` (inspect's
--model-cost-config table) prices each call; `GET /_bill` returns the bill.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, AsyncIterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from loopback_billing import AnthropicCache, Bill, read_prices  # noqa: E402  (shared with the OpenAI loopback)

FAULTS = ("healthy", "slow", "401", "truncated", "empty-choices", "429", "429-first", "500-some", "hang",
          "content-filter", "no-stream")
QUESTIONS = ("Is it alive?", "Is it bigger than a shoe box?", "Is it found indoors?", "Is it made by people?",
             "Does it have legs?", "Can it fly?", "Does it live in water?", "Is it used for travel?")
OPENAI_401 = {"error": {"message": "Incorrect API key provided: sk-wrong. You can find your API key at your "
                                   "provider's dashboard.", "type": "invalid_request_error", "param": None,
                        "code": "invalid_api_key"}}
ANTHROPIC_401 = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}


def reply_for(messages: list[dict[str, Any]], system: str = "") -> str:
    """A legal Ask-Guess move: the Answerer says no; the Questioner asks its round's question."""
    first = messages[0].get("content", "") if messages else ""
    if "as the Answerer" in (system or str(first)):
        return "No."
    asked = sum(m.get("role") == "assistant" for m in messages)
    return QUESTIONS[asked % len(QUESTIONS)].replace("?", f" (question {asked + 1})?")


class Faults:
    """Which fault a request gets; counts what was served."""

    def __init__(self, fault: str, seed: int = 0, cache: AnthropicCache | None = None, bill: Bill | None = None):
        self.fault = fault
        self.cache = cache  # Anthropic's prompt caching, when on
        self.bill = bill or Bill()
        self.rng = random.Random(seed)
        self.served: Counter[str] = Counter()
        self.first_calls: Counter[str] = Counter()  # conversation (its system prompt) -> calls seen
        self.bodies: list[str] = []  # every request body (OpenAI's and Anthropic's), as received

    def pick(self, conversation: str) -> str:
        fault = self.fault
        if fault == "429-first":
            self.first_calls[conversation] += 1
            fault = "429" if self.first_calls[conversation] <= 3 else "healthy"
        elif fault == "500-some":
            fault = "500" if self.rng.random() < 0.3 else "healthy"
        self.served[fault] += 1
        return fault


def _common(fault: str, anthropic: bool) -> Response | None:
    if fault == "401":
        return JSONResponse(ANTHROPIC_401 if anthropic else OPENAI_401, status_code=401)
    if fault == "429":
        body = {"error": {"message": "Rate limit reached for requests", "type": "rate_limit_error"}}
        return JSONResponse(body, status_code=429, headers={"retry-after": "1"})
    if fault == "500":
        return JSONResponse({"error": {"message": "The server had an error", "type": "server_error"}},
                            status_code=500)
    if fault == "truncated":
        return Response('{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "mess',
                        status_code=200, media_type="application/json")
    return None


async def _hang() -> Response:
    await asyncio.sleep(3600)
    return Response(status_code=504)


def make_app(faults: Faults) -> Starlette:
    async def chat(request: Request) -> Response:
        raw = await request.body()
        faults.bodies.append(raw.decode("utf-8"))  # as it came over the wire (the fast path's tests)
        body = json.loads(raw)
        messages = body.get("messages", [])
        fault = faults.pick(str(messages[0].get("content", ""))[:200] if messages else "")
        if fault == "hang":
            return await _hang()
        if (early := _common(fault, anthropic=False)) is not None:
            return early
        if fault == "slow":
            await asyncio.sleep(0.5)
        content = "" if fault == "content-filter" else reply_for(messages)
        finish = "content_filter" if fault == "content-filter" else "stop"
        choices = [] if fault == "empty-choices" else [
            {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}]
        return JSONResponse({"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()),
                             "model": body.get("model", "loopback"), "choices": choices,
                             "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}})

    async def messages(request: Request) -> Response:
        raw = await request.body()
        faults.bodies.append(raw.decode("utf-8"))
        body = json.loads(raw)
        system = body.get("system", "")
        system = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
        fault = faults.pick(system[:200])
        if fault == "hang":
            return await _hang()
        if (early := _common(fault, anthropic=True)) is not None:
            return early
        text = reply_for(body.get("messages", []), system)
        usage = anthropic_usage(body, faults.cache)
        model = body.get("model", "loopback")
        faults.bill.add(model, usage["input_tokens"], 10, usage.get("cache_read_input_tokens", 0),
                        usage.get("cache_creation_input_tokens", 0))
        if body.get("stream") and fault != "no-stream":
            return StreamingResponse(_anthropic_events(text, model, usage), media_type="text/event-stream")
        return JSONResponse(_anthropic_message(text, model, usage))

    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(dict(faults.served))

    async def bodies(request: Request) -> JSONResponse:
        return JSONResponse(faults.bodies)

    async def billed(request: Request) -> JSONResponse:
        return JSONResponse(faults.bill.summary())

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/v1/messages", messages, methods=["POST"]),
                             Route("/_faults/served", stats, methods=["GET"]),
                             Route("/_faults/bodies", bodies, methods=["GET"]),
                             Route("/_bill", billed, methods=["GET"])])


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def anthropic_usage(body: dict[str, Any], cache: AnthropicCache | None) -> dict[str, int]:
    """The usage of a Messages request: 50 input tokens without caching; with it, the prompt's
    tokens split into read, written and uncached by its cache breakpoints."""
    if cache is None:
        return {"input_tokens": 50, "output_tokens": 10}
    blocks = _blocks(body.get("system") or []) + [b for m in body.get("messages", []) for b in _blocks(m["content"])]
    texts = [str(b.get("text", "")) for b in blocks]
    marks = [i for i, b in enumerate(blocks) if b.get("cache_control")]
    if body.get("cache_control"):  # automatic caching: a breakpoint at the prompt's end
        marks.append(len(blocks) - 1)
    return {**cache.usage(texts, marks), "output_tokens": 10}


def _anthropic_message(text: str, model: str, usage: dict[str, int] | None = None) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": usage or {"input_tokens": 50, "output_tokens": 10}}


async def _anthropic_events(text: str, model: str, usage: dict[str, int] | None = None) -> AsyncIterator[str]:
    usage = usage or {"input_tokens": 50, "output_tokens": 10}
    start = _anthropic_message("", model) | {"content": [], "stop_reason": None,
                                             "usage": usage | {"output_tokens": 1}}
    events = [("message_start", {"type": "message_start", "message": start}),
              ("content_block_start", {"type": "content_block_start", "index": 0,
                                       "content_block": {"type": "text", "text": ""}}),
              ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                       "delta": {"type": "text_delta", "text": text}}),
              ("content_block_stop", {"type": "content_block_stop", "index": 0}),
              ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                     "stop_sequence": None},
                                 "usage": {"output_tokens": 10}}),
              ("message_stop", {"type": "message_stop"})]
    for name, data in events:
        yield f"event: {name}\ndata: {json.dumps(data)}\n\n"


def start(fault: str, max_seconds: float = 900, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """This server with `fault` (and `extra` arguments), in a process of its own on a free port:
    (process, its base URL)."""
    proc = subprocess.Popen([sys.executable, __file__, "--fault", fault, "--port", "0", "--max-seconds",
                             str(max_seconds), *extra], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()  # type: ignore[union-attr]
    if not line.startswith("listening on "):
        proc.kill()
        raise RuntimeError(f"fault server ({fault}) did not start: {line!r}")
    return proc, line.removeprefix("listening on ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault", choices=FAULTS, default="healthy")
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--max-seconds", type=float, default=900, help="exit after this long, whatever happens")
    parser.add_argument("--cache", choices=("anthropic",), default=None, help="report prompt caching")
    parser.add_argument("--cache-min", type=int, default=1024, help="the shortest prefix the cache stores (tokens)")
    parser.add_argument("--prices", default=None, help="price table (inspect's --model-cost-config) for GET /_bill")
    args = parser.parse_args()
    cache = AnthropicCache(args.cache_min) if args.cache else None
    faults = Faults(args.fault, cache=cache, bill=Bill(read_prices(args.prices)))
    config = uvicorn.Config(make_app(faults), host="127.0.0.1", port=args.port, log_level="warning",
                            access_log=False)
    server = uvicorn.Server(config)

    async def serve() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                return await task
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"listening on http://127.0.0.1:{port}", flush=True)
        try:
            await asyncio.wait_for(asyncio.shield(task), args.max_seconds)
        except asyncio.TimeoutError:
            server.should_exit = True
            await task

    asyncio.run(serve())


if __name__ == "__main__":
    main()
