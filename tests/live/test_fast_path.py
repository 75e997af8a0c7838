"""The fast path (transport/fast_path.py) sends the very bytes the SDK would: request bodies captured
on a loopback server (fault_server.py, real HTTP, the real openai SDK through inspect) are compared
with the fast path on and off, for direct calls and for whole games in chat and flat style."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request
from contextlib import contextmanager
from typing import Iterator

import pytest
from fault_server import start
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model

from pytest_gameeval.transport import fast_path


@contextmanager
def serve(fault: str = "healthy") -> Iterator[str]:
    proc, url = start(fault, max_seconds=300)
    try:
        yield url
    finally:
        proc.kill()
        proc.wait()


def bodies(url: str) -> list[str]:
    with urllib.request.urlopen(f"{url}/_faults/bodies", timeout=10) as response:
        return json.loads(response.read())


def conversations() -> list[list]:
    """A system prompt, non-ASCII text, a long history, and a one-message (flat) prompt."""
    long = [ChatMessageSystem(content="You are playing Ask-Guess as the Questioner.")]
    for i in range(40):
        long += [ChatMessageUser(content=f"Answerer: No. Round {i} — «ça va?» 你好 🙂 \"quoted\" \\ back\\slash"),
                 ChatMessageAssistant(content=f"Is it number {i}?")]
    long.append(ChatMessageUser(content="Your turn."))
    return [[ChatMessageSystem(content="Système: règles ✓"), ChatMessageUser(content="Ünïcödé question?")],
            [ChatMessageUser(content="Everything in one message:\n\nHost: ask a question.")],
            long]


async def _send(url: str, fast: bool, provider: str) -> None:
    if provider == "openai":
        model = get_model("openai-api/loopback/bench", base_url=f"{url}/v1", api_key="sk-test", memoize=False)
        create = model.api.client.chat.completions
    else:  # inspect's Anthropic provider streams (messages.stream)
        model = get_model("anthropic/claude-sonnet-4-0", base_url=url, api_key="sk-ant-test", memoize=False)
        create = model.api.client.messages
    state = fast_path.install(model) if fast else "off"
    assert state == ("on" if fast else "off")
    method = "create" if provider == "openai" else "stream"
    assert getattr(getattr(create, method), "gameeval_fast_path", False) is fast
    for messages in conversations():
        await model.generate(messages, config=GenerateConfig(max_tokens=20, temperature=0.5))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_direct_calls_send_the_same_bytes(monkeypatch, provider):
    captured = {}
    for fast in (False, True):
        monkeypatch.setenv(fast_path.ENV, "1" if fast else "0")
        with serve() as url:
            asyncio.run(_send(url, fast, provider))
            captured[fast] = bodies(url)
    assert len(captured[True]) == len(conversations())
    assert captured[True] == captured[False]
    assert "Round 39" in captured[True][2]  # the history went out whole
    assert json.loads(captured[True][2])["messages"][-1]["content"] in ("Your turn.", [{"type": "text",
                                                                                       "text": "Your turn."}])


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
@pytest.mark.parametrize("style", ["chat", "flat"])
def test_whole_games_send_the_same_bytes_and_play_the_same(tmp_path, style):
    runs = {}
    for fast in ("0", "1"):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_XDIST"))}
        with serve() as url:
            env.update(OPENAI_BASE_URL=f"{url}/v1", OPENAI_API_KEY="sk-test", GAMEEVAL_FAST_PATH=fast)
            report = tmp_path / f"{style}-{fast}.json"
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "--gameeval-only", "-p", "no:cacheprovider", "--gameeval-model",
                 "openai/gpt-4o-mini", "--gameeval-games", "askguess", "--gameeval-limit", "2", "--gameeval-option",
                 "max_rounds=4", "--gameeval-option", f"style={style}", "--gameeval-concurrency", "1",
                 "--gameeval-report", str(report)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stdout[-2000:]
            cases = json.loads(report.read_text())["cases"]
            runs[fast] = (bodies(url), [(c["id"], c["outcome"], c["scores"], c["usage"]) for c in cases])
    assert runs["1"][0] == runs["0"][0] and len(runs["1"][0]) >= 8
    assert runs["1"][1] == runs["0"][1]


def test_both_openai_providers_take_it(monkeypatch):
    monkeypatch.setenv(fast_path.ENV, "1")
    for name in ("openai/gpt-4o-mini", "openai-api/loopback/bench"):
        model = get_model(name, base_url="http://127.0.0.1:9/v1", api_key="sk-test", memoize=False)
        assert fast_path.install(model) == "on"
        assert model.api.client.chat.completions.create.gameeval_fast_path
        assert model.api.client.responses.create.gameeval_fast_path
    monkeypatch.setenv(fast_path.ENV, "0")
    assert fast_path.install(get_model("openai/gpt-4o-mini", api_key="sk-test", memoize=False)) == "off"


class _ChangedCompletions:
    async def create(self, messages, model):  # an SDK whose create no longer takes extra_body=
        return None


class _Chat:
    completions = _ChangedCompletions()


def test_the_guard_switches_off_on_a_changed_sdk(capsys, monkeypatch):
    monkeypatch.setenv(fast_path.ENV, "1")
    client = type("AsyncOpenAI", (), {"chat": _Chat(), "__module__": "openai._client"})()
    model = type("Model", (), {"api": type("API", (), {"client": client})()})()
    state = fast_path.install(model)
    assert state.startswith("unavailable")
    assert "extra_body" in capsys.readouterr().err
    assert not getattr(client.chat.completions.create, "gameeval_fast_path", False)
    other = type("Model", (), {"api": type("API", (), {"client": object()})()})()
    assert fast_path.install(other) == "unavailable: not an openai or anthropic SDK client"


def test_the_wrapper_moves_the_bulk_into_extra_body_only_when_it_can():
    seen = []

    async def create(**kwargs):
        seen.append(kwargs)

    fast = fast_path._wrapped(create, "messages")
    asyncio.run(fast(messages=[{"role": "user", "content": "hi"}], model="m", extra_body={"x": 1}))
    asyncio.run(fast(messages=[{"role": "user", "content": "hi"}], model="m", extra_body={"messages": []}))
    asyncio.run(fast(messages=iter([]), model="m"))
    assert seen[0] == {"messages": [], "model": "m", "extra_body": {"x": 1, "messages": [{"role": "user",
                                                                                          "content": "hi"}]}}
    assert seen[1]["messages"] == [{"role": "user", "content": "hi"}]  # a user's own extra_body messages win
    assert "extra_body" not in seen[2]
