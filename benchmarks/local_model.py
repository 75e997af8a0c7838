"""Benchmark the embedded model (gameeval/local): prints one JSON object, asserts nothing.

    python benchmarks/local_model.py [--n-parallel 8] [--max-tokens 64] [--flash-attn off] \
        [--askguess-rounds 30] [--model-path P]

Measures, on this machine:
- server load time (xllamacpp.Server start, includes KV-cache allocation and warm-up);
- prompt and completion tokens/second from llama.cpp's own per-request timings (one request alone);
- wall time for 8 different requests sent one after another vs all at once (continuous batching),
  both with the async openai client straight to the server and through inspect's ``gameeval/local``;
- decoding speed with a long cached prompt (game prompts grow to thousands of tokens), with
  llama.cpp's flash attention off and on: the evidence for the ``flash_attn=off`` default;
- wall time per Ask-Guess game (self-play, played concurrently through the engine with inspect's
  ``gameeval/local``), games per minute and completion tokens per second over those games.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import json
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_gameeval.backends.local_server import (  # noqa: E402  (imports no native code)
    DEFAULT_FLASH_ATTN,
    DEFAULT_N_CTX,
    FLASH_ATTN_CHOICES,
    LocalServerSpec,
    start_server,
    stop_all_servers,
    xllamacpp_module,
)

PROMPTS = [
    f"We are playing a word game. Describe the word '{word}' in two sentences without saying it."
    for word in ["apple", "river", "castle", "guitar", "winter", "doctor", "pencil", "ocean"]
]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _loopback_client(base_url: str) -> Any:
    """The async openai client straight to the local server (no proxy from the environment, no retries)."""
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient

    return AsyncOpenAI(
        base_url=base_url, api_key="unused", max_retries=0, http_client=DefaultAsyncHttpxClient(trust_env=False)
    )


async def _openai_client_runs(base_url: str, model_id: str, max_tokens: int) -> dict:
    client = _loopback_client(base_url)

    async def one(prompt: str) -> dict:
        response = await client.chat.completions.create(
            model=model_id,
            messages=[{"role": "user", "content": prompt}],
            max_tokens=max_tokens,
            temperature=0,
            seed=0,
            extra_body={"cache_prompt": False},  # measure prompt processing every time
        )
        timings = (response.model_extra or {}).get("timings", {})
        return {
            "prompt_tokens": response.usage.prompt_tokens,
            "completion_tokens": response.usage.completion_tokens,
            "timings": timings,
            "text": response.choices[0].message.content,
        }

    await one("Hello")  # warm the connection and the slot
    single = await one(PROMPTS[0])

    start = time.perf_counter()
    sequential = [await one(p) for p in PROMPTS]
    sequential_s = time.perf_counter() - start

    start = time.perf_counter()
    concurrent = await asyncio.gather(*(one(p) for p in PROMPTS))
    concurrent_s = time.perf_counter() - start
    await client.close()

    completion_tokens = sum(r["completion_tokens"] for r in sequential)
    prompt_tokens = sum(r["prompt_tokens"] for r in sequential)
    t = single["timings"]
    return {
        "single_request": {
            "prompt_tokens": single["prompt_tokens"],
            "completion_tokens": single["completion_tokens"],
            "prompt_tokens_per_s": round(t.get("prompt_per_second", 0.0), 1),
            "completion_tokens_per_s": round(t.get("predicted_per_second", 0.0), 1),
        },
        "eight_requests": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "sequential_wall_s": round(sequential_s, 3),
            "concurrent_wall_s": round(concurrent_s, 3),
            "speedup": round(sequential_s / concurrent_s, 2),
            "sequential_completion_tokens_per_s": round(completion_tokens / sequential_s, 1),
            "concurrent_completion_tokens_per_s": round(
                sum(r["completion_tokens"] for r in concurrent) / concurrent_s, 1
            ),
            "same_text_sequential_vs_concurrent": [r["text"] for r in sequential] == [r["text"] for r in concurrent],
        },
    }


async def _long_context_decode(
    base_url: str, model_id: str, sequences: int, prompt_words: int, max_tokens: int
) -> dict:
    """``sequences`` different long prompts, cached first, then decoded at once (like concurrent games)."""
    client = _loopback_client(base_url)
    filler = " ".join(PROMPTS * (1 + prompt_words // 150)).split()[:prompt_words]

    async def one(index: int, tokens: int) -> Any:
        return await client.chat.completions.create(
            model=model_id,
            messages=[{"role": "user", "content": f"Game {index}. " + " ".join(filler)}],
            max_tokens=tokens, temperature=0, seed=0,
            extra_body={"ignore_eos": True},  # always decode max_tokens, so runs compare
        )

    async with client:
        await asyncio.gather(*(one(i, 1) for i in range(sequences)))  # fill the prompt cache
        start = time.perf_counter()
        replies = await asyncio.gather(*(one(i, max_tokens) for i in range(sequences)))
        wall = time.perf_counter() - start
    completion = sum(r.usage.completion_tokens for r in replies)
    return {
        "sequences": sequences, "prompt_tokens": replies[0].usage.prompt_tokens, "wall_s": round(wall, 2),
        "completion_tokens_per_s": round(completion / wall, 1),
    }


async def _inspect_runs(model_args: dict, max_tokens: int) -> dict:
    from inspect_ai.model import GenerateConfig, get_model

    import pytest_gameeval.backends.registry  # noqa: F401  (registers gameeval/...)

    model = get_model("gameeval/local", config=GenerateConfig(max_tokens=max_tokens), memoize=False, **model_args)
    await model.generate("Hello")

    start = time.perf_counter()
    sequential = [await model.generate(p) for p in PROMPTS]
    sequential_s = time.perf_counter() - start

    start = time.perf_counter()
    concurrent = await asyncio.gather(*(model.generate(p) for p in PROMPTS))
    concurrent_s = time.perf_counter() - start
    return {
        "sequential_wall_s": round(sequential_s, 3),
        "concurrent_wall_s": round(concurrent_s, 3),
        "speedup": round(sequential_s / concurrent_s, 2),
        "completion_tokens": sum(o.usage.output_tokens for o in sequential if o.usage),
        "same_text_sequential_vs_concurrent": [o.completion for o in sequential] == [o.completion for o in concurrent],
        "note": "prompt caching on (the default), so repeated prompts skip prompt processing",
    }


async def _askguess_games(model_args: dict, n_games: int, max_rounds: int) -> dict:
    """Ask-Guess self-play games at once, as `inspect eval` would run them (default max_tokens)."""
    from inspect_ai.model import get_model

    from pytest_gameeval.engine.play import play_case
    from pytest_gameeval.games.registry import get_spec
    from pytest_gameeval.players.model import ModelPlayer

    model = get_model("gameeval/local", memoize=False, **{k: v for k, v in model_args.items() if v is not None})
    spec = get_spec("askguess")
    options = spec.parse_options({"max_rounds": max_rounds})
    rows = spec.rows(options)[:n_games]
    start = time.perf_counter()
    records = await asyncio.gather(
        *(play_case(spec, row, 0, options, lambda seat, role: ModelPlayer(model)) for row in rows)
    )
    wall = time.perf_counter() - start
    completion = sum(u["output_tokens"] for r in records for u in r.usage.values())
    calls = sum(u["calls"] for r in records for u in r.usage.values())
    return {
        "games": len(records), "max_rounds": max_rounds, "concurrent": True, "wall_s": round(wall, 2),
        "wall_s_per_game": round(wall / len(records), 2), "games_per_minute": round(60 * len(records) / wall, 2),
        "model_calls": calls, "completion_tokens": completion, "completion_tokens_per_s": round(completion / wall, 1),
        "outcomes": {label: sum(r.label == label for r in records) for label in {r.label for r in records}},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-parallel", type=int, default=8)
    parser.add_argument("--n-ctx", type=int, default=DEFAULT_N_CTX)
    parser.add_argument("--n-threads", type=int, default=None)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--model-path", default=None)
    parser.add_argument("--flash-attn", choices=FLASH_ATTN_CHOICES, default=DEFAULT_FLASH_ATTN)
    parser.add_argument("--long-prompt-words", type=int, default=2500, help="words per long prompt (0: skip)")
    parser.add_argument("--askguess-games", type=int, default=4, help="Ask-Guess games to time (0: skip)")
    parser.add_argument("--askguess-rounds", type=int, default=5)
    args = parser.parse_args(argv)

    xllamacpp = xllamacpp_module()  # sets OMP_WAIT_POLICY=PASSIVE first, as the provider does

    spec = LocalServerSpec.create(
        model_path=args.model_path, n_ctx=args.n_ctx, n_parallel=args.n_parallel, n_threads=args.n_threads,
        flash_attn=args.flash_attn,
    )
    start = time.perf_counter()
    server = start_server(spec)
    load_s = time.perf_counter() - start
    try:
        direct = asyncio.run(_openai_client_runs(server.base_url, server.model_id, args.max_tokens))
    finally:
        server.stop()

    long_context = {}
    for flash_attn in ("off", "on") if args.long_prompt_words else ():
        long_server = start_server(replace(spec, flash_attn=flash_attn))
        try:
            long_context[f"flash_attn_{flash_attn}"] = asyncio.run(
                _long_context_decode(
                    long_server.base_url, long_server.model_id, 5, args.long_prompt_words, args.max_tokens
                )
            )
        finally:
            long_server.stop()

    model_args = {
        "model_path": args.model_path,
        "n_ctx": args.n_ctx,
        "n_parallel": args.n_parallel,
        "flash_attn": args.flash_attn,
    }
    if args.n_threads:
        model_args["n_threads"] = args.n_threads
    try:
        through_inspect = asyncio.run(_inspect_runs(model_args, args.max_tokens))
        askguess = (
            asyncio.run(_askguess_games(model_args, args.askguess_games, args.askguess_rounds))
            if args.askguess_games
            else None
        )
    finally:
        stop_all_servers()

    result = {
        "benchmark": "gameeval/local",
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "nproc": os.cpu_count(),
            "cores_available": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
            "cpu": _cpu_model(),
            "python": platform.python_version(),
            "load_average_1_5_15_min": [round(x, 2) for x in os.getloadavg()],
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
            "xllamacpp": getattr(xllamacpp, "__version__", "?"),
            "ggml_cpu_features": xllamacpp.get_system_info().strip(),
        },
        "model": server.model_id,
        "settings": {
            "n_parallel": spec.n_parallel,
            "n_ctx_per_request": server.n_ctx,
            "n_threads": spec.n_threads,
            "flash_attn": spec.flash_attn,
            "max_tokens": args.max_tokens,
            "temperature": 0,
        },
        "load_s": round(load_s, 3),
        "openai_client_direct": direct,
        "long_prompt_decode_5_at_once": long_context or None,
        "inspect_gameeval_local": through_inspect,
        "askguess_games": askguess,
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
