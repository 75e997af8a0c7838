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
from typing import Any, AsyncIterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

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

    def __init__(self, fault: str, seed: int = 0):
        self.fault = fault
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
        if body.get("stream") and fault != "no-stream":
            return StreamingResponse(_anthropic_events(text, body.get("model", "loopback")),
                                     media_type="text/event-stream")
        return JSONResponse(_anthropic_message(text, body.get("model", "loopback")))

    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(dict(faults.served))

    async def bodies(request: Request) -> JSONResponse:
        return JSONResponse(faults.bodies)

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/v1/messages", messages, methods=["POST"]),
                             Route("/_faults/served", stats, methods=["GET"]),
                             Route("/_faults/bodies", bodies, methods=["GET"])])


def _anthropic_message(text: str, model: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 50, "output_tokens": 10}}


async def _anthropic_events(text: str, model: str) -> AsyncIterator[str]:
    start = _anthropic_message("", model) | {"content": [], "stop_reason": None,
                                             "usage": {"input_tokens": 50, "output_tokens": 1}}
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


def start(fault: str, max_seconds: float = 900) -> tuple[subprocess.Popen[str], str]:
    """This server with `fault`, in a process of its own on a free port: (process, its base URL)."""
    proc = subprocess.Popen([sys.executable, __file__, "--fault", fault, "--port", "0", "--max-seconds",
                             str(max_seconds)], stdout=subprocess.PIPE, text=True)
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
    args = parser.parse_args()
    config = uvicorn.Config(make_app(Faults(args.fault)), host="127.0.0.1", port=args.port, log_level="warning",
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
