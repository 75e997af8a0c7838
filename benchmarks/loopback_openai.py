"""A loopback OpenAI-compatible chat server with a fixed latency, for benchmarks (never a model).

    python benchmarks/loopback_openai.py --latency 1.0 --port 0    # prints: listening on http://127.0.0.1:PORT/v1

`POST /v1/chat/completions` waits `--latency` seconds and answers with a usage block and a legal
Ask-Guess move (`reply_for`): the Questioner gets a question it has not asked before, one no
CIFAR-100 label matches, the Answerer "No.". So no reply is rejected and no game ends early: an
Ask-Guess game with both seats on this server (opponents=self) makes exactly 2 x max_rounds calls
(tests/test_benchmarks.py plays the benchmark's games against `reply_for` to keep that true).
It listens on 127.0.0.1 only and exits by itself after `--max-seconds`.

For the benchmark it notes, per request, its arrival time (CLOCK_MONOTONIC, comparable across
processes), the game round it belongs to (the number of assistant messages in the history plus
one) and the CPU time the client process tree had used when it arrived (`--watch PID` or
`POST /_bench/watch {"pid": PID}`); `GET /_bench/stats` returns them and the server's own CPU.

Billing like the provider (benchmarks/loopback_billing.py): `--cache openai` reports repeated prompt
prefixes as OpenAI does (`usage.prompt_tokens_details.cached_tokens`, in 128-token blocks, from
`--cache-min` tokens: OpenAI's 1,024 by default, less so that short games cache too), and
`--prices FILE` (inspect's --model-cost-config table) prices each call; `GET /_bill` returns the
bill: every call's tokens and USD and the totals. Without `--cache` the usage is as before.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import time
from typing import Any

import psutil
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its sibling, when loaded as a module
from loopback_billing import Bill, OpenAICache, read_prices  # noqa: E402

# distinct questions (a repeat is a rule violation, re-prompted), none naming a CIFAR-100 label
QUESTIONS = (
    "Is it alive?", "Is it bigger than a shoe box?", "Is it found indoors?", "Is it made by people?",
    "Does it have legs?", "Is it something you can hold in one hand?", "Can it fly?", "Does it live in water?",
    "Is it used for travel?", "Is it a kind of food?", "Is it soft to the touch?", "Does it make a sound?",
    "Is it older than a hundred years?", "Is it found in a city?", "Is it green?", "Does it have wheels?",
    "Is it heavier than a person?", "Would a child play with it?", "Does it grow?", "Is it dangerous?",
    "Is it found on a farm?", "Does it need electricity?", "Is it mostly made of wood?", "Is it furry?",
    "Could it fit in a car?", "Is it common in Europe?", "Does it have a shell?", "Is it a tool?",
    "Can you sit on it?", "Is it seen at night?",
)
ANSWER = "No."  # the Answerer's reply: a legal answer that never ends the game


def reply_for(messages: list[dict[str, Any]]) -> str:
    """The reply to one request: the Answerer (named in its system prompt) says no; the Questioner
    asks its round's question (its round: its own earlier replies + 1)."""
    system = str(messages[0].get("content", "")) if messages else ""
    if "as the Answerer" in system:
        return ANSWER
    asked = sum(m.get("role") == "assistant" for m in messages)
    question = QUESTIONS[asked % len(QUESTIONS)]
    return question if asked < len(QUESTIONS) else f"{question[:-1]}, question {asked + 1}?"


class ClientCpu:
    """User+system CPU seconds of a process and its descendants (xdist workers included)."""

    def __init__(self) -> None:
        self.root: psutil.Process | None = None

    def watch(self, pid: int) -> None:
        self.root = psutil.Process(pid)

    def seconds(self) -> float | None:
        if self.root is None:
            return None
        total = 0.0
        try:
            for proc in [self.root, *self.root.children(recursive=True)]:
                t = proc.cpu_times()
                total += t.user + t.system
        except psutil.Error:
            return None
        return total


def usage_for(messages: list[dict[str, Any]], cache: OpenAICache | None) -> dict[str, Any]:
    """The usage block of a reply (10 completion tokens); with a cache, the cached prefix too."""
    if cache is None:
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in messages) // 4
        return {"prompt_tokens": prompt_tokens, "completion_tokens": 10, "total_tokens": prompt_tokens + 10}
    seen = cache.usage([str(m.get("content", "")) for m in messages])
    return {"prompt_tokens": seen["prompt_tokens"], "completion_tokens": 10,
            "total_tokens": seen["prompt_tokens"] + 10,
            "prompt_tokens_details": {"cached_tokens": seen["cached_tokens"]}}


def make_app(latency: float, client: ClientCpu, cache: OpenAICache | None = None,
             bill: Bill | None = None) -> Starlette:
    arrivals: list[list[Any]] = []  # [arrival, round, client cpu, done]
    bill = bill or Bill()

    async def chat(request: Request) -> JSONResponse:
        arrived = time.monotonic()
        body = await request.json()
        messages = body.get("messages", [])
        entry = [arrived, 1 + sum(m.get("role") == "assistant" for m in messages), client.seconds(), None]
        arrivals.append(entry)
        await asyncio.sleep(latency)
        usage = usage_for(messages, cache)
        cached = usage.get("prompt_tokens_details", {}).get("cached_tokens", 0)
        bill.add(body.get("model", "loopback"), usage["prompt_tokens"] - cached, 10, cache_read=cached)
        entry[3] = time.monotonic()
        return JSONResponse(
            {
                "id": f"chatcmpl-{len(arrivals)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "loopback"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": reply_for(messages)},
                    }
                ],
                "usage": usage,
            }
        )

    async def watch(request: Request) -> JSONResponse:
        client.watch(int((await request.json())["pid"]))
        arrivals.clear()
        return JSONResponse({"ok": True})

    async def stats(request: Request) -> JSONResponse:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return JSONResponse({"requests": arrivals, "server_cpu_s": own.ru_utime + own.ru_stime})

    async def billed(request: Request) -> JSONResponse:
        return JSONResponse(bill.summary())

    return Starlette(routes=[
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/_bill", billed, methods=["GET"]),
        Route("/_bench/watch", watch, methods=["POST"]),
        Route("/_bench/stats", stats, methods=["GET"]),
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds before each reply")
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--watch", type=int, default=None, help="client PID whose CPU time to sample")
    parser.add_argument("--max-seconds", type=float, default=3600, help="exit after this long, whatever happens")
    parser.add_argument("--cache", choices=("openai",), default=None, help="report cached prompt prefixes")
    parser.add_argument("--cache-min", type=int, default=1024, help="the shortest prefix the cache serves (tokens)")
    parser.add_argument("--prices", default=None, help="price table (inspect's --model-cost-config) for GET /_bill")
    args = parser.parse_args()
    client = ClientCpu()
    if args.watch:
        client.watch(args.watch)
    cache = OpenAICache(args.cache_min) if args.cache else None
    app = make_app(args.latency, client, cache, Bill(read_prices(args.prices)))
    config = uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning",
                            access_log=False, backlog=2048, timeout_keep_alive=600)
    server = uvicorn.Server(config)

    async def serve() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                return await task
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"listening on http://127.0.0.1:{port}/v1", flush=True)
        try:
            await asyncio.wait_for(asyncio.shield(task), args.max_seconds)
        except asyncio.TimeoutError:
            server.should_exit = True
            await task

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:  # uvicorn re-raises the SIGINT it stopped on
        pass


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
