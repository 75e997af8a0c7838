"""Live APIs that fail, the way they fail in the wild: a fault-injecting OpenAI- and Anthropic-
compatible server on 127.0.0.1 (fault_server.py, a real HTTP server; the real openai and anthropic
SDKs through inspect's providers), played through the pytest plugin with a baseline, `inspect
eval` and `gameeval compare`, each asserting the exit code, a bound on wall time and the cause.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fault_server import start
from inspect_ai.log import read_eval_log

PROVIDER_FAILED = 6  # run/exit_codes.py
ASKGUESS = ["--gameeval-games", "askguess", "--gameeval-limit", "2", "--gameeval-option", "max_rounds=3"]


class Servers:
    """One fault server per fault, started when first asked for, stopped at the module's end."""

    def __init__(self) -> None:
        self.running: dict[str, tuple[subprocess.Popen[str], str]] = {}

    def url(self, fault: str) -> str:
        if fault not in self.running:
            self.running[fault] = start(fault)
        return self.running[fault][1]

    def stop(self) -> None:
        for proc, _ in self.running.values():
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def servers():
    s = Servers()
    yield s
    s.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def environment(base_url: str, provider: str = "openai") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PYTEST_XDIST"))}
    # CI=true as CI services set it: pytest's short summary then holds each failure's whole message (the
    # gate item's table too), and the provider's cause must still be the last lines
    env.update(GAMEEVAL_PROGRESS_SECONDS="5", INSPECT_LOG_LEVEL="warning", CI="true")
    if provider == "openai":
        env.update(OPENAI_BASE_URL=f"{base_url}/v1", OPENAI_API_KEY="sk-test-not-a-key")
    else:
        env.update(ANTHROPIC_BASE_URL=base_url, ANTHROPIC_API_KEY="sk-ant-test-not-a-key")
    return env


def plugin(tmp: Path, base_url: str, *extra: str, provider: str = "openai", report: str = "run.json",
           timeout: float = 400) -> tuple[int, str, float]:
    """The plugin as a CI job runs it: (exit code, output, seconds)."""
    model = "openai/gpt-4o-mini" if provider == "openai" else "anthropic/claude-sonnet-4-0"
    argv = [sys.executable, "-m", "pytest", "--gameeval-only", "-p", "no:cacheprovider", "--gameeval-model", model,
            *ASKGUESS, "--gameeval-report", str(tmp / report), *extra]
    start = time.monotonic()
    done = subprocess.run(argv, cwd=tmp, env=environment(base_url, provider), capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, done.stdout + done.stderr, time.monotonic() - start


@pytest.fixture(scope="module")
def baseline(servers, tmp_path_factory) -> Path:
    """A baseline report made with the healthy server, as a user's last release would be."""
    tmp = tmp_path_factory.mktemp("baseline")
    code, out, _ = plugin(tmp, servers.url("healthy"), report="base.json")
    assert code == 0, out[-3000:]
    return tmp / "base.json"


def last_lines(out: str, n: int = 8) -> str:
    return "\n".join(out.strip().splitlines()[-n:])


def played(report: Path) -> list[dict]:
    return [c for c in json.loads(report.read_text())["cases"] if c["status"] == "played"]


def served(url: str) -> int:
    """Calls the fault server has answered so far (0 for the mistyped port: no server there)."""
    if url.endswith(":185000"):
        return 0
    return sum(httpx.get(f"{url}/_faults/served", timeout=10).json().values())


CALLS_BEFORE_THE_STOP = 2  # each of the two games' first call, in flight together; a retry would add more
FAST = [  # (fault or a URL of our own, provider, words of the cause)
    ("401", "openai", "HTTP 401 authentication failed: Incorrect API key provided"),
    ("401", "anthropic", "HTTP 401 authentication failed: invalid x-api-key"),
    ("truncated", "openai", "unreadable response: JSONDecodeError"),
    ("empty-choices", "openai", "unreadable response: the response holds no choices"),
    ("port-typo", "openai", "base URL is not valid: connect(): port must be 0-65535"),
    ("no-stream", "anthropic", "call failed: AssertionError"),  # a body inspect's streaming reader cannot use
]


@pytest.mark.parametrize("fault,provider,cause", FAST, ids=[f"{f}-{p}" for f, p, _ in FAST])
def test_what_retrying_cannot_fix_fails_at_once_with_its_cause(servers, baseline, tmp_path, fault, provider, cause):
    url = "http://127.0.0.1:185000" if fault == "port-typo" else servers.url(fault)
    before = served(url)
    code, out, _ = plugin(tmp_path, url, f"--gameeval-baseline={baseline}", provider=provider)
    assert code == PROVIDER_FAILED, last_lines(out, 30)
    # at once: no call retried (counted by the server, not timed: a busy machine is slow, not wrong)
    assert served(url) - before <= CALLS_BEFORE_THE_STOP, (served(url) - before, last_lines(out, 30))
    tail = last_lines(out)
    assert "gameeval: the run stopped" in tail and cause in tail, tail
    assert url.split("//")[1].split("/")[0] in tail  # the base URL, never the key
    assert "not-a-key" not in out
    report = json.loads((tmp_path / "run.json").read_text())
    assert not [c for c in report["cases"] if c["status"] == "played"]
    assert report["games"]["askguess"]["cases_played"] == 0
    assert report["gate"]["verdict"] == "fail"
    assert "askguess: 0 played" in out


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_faults_that_pass_with_retries_play_to_the_healthy_result(servers, baseline, tmp_path):
    """429 (Retry-After 1) on each conversation's first 3 calls, and 500 on 30 % of calls: the games
    are played, with the same moves and outcomes as against the healthy server."""
    base = {c["id"]: (c["outcome"], c["scores"]) for c in played(baseline)}
    for fault in ("429-first", "500-some"):
        code, out, seconds = plugin(tmp_path, servers.url(fault), f"--gameeval-baseline={baseline}",
                                    report=f"{fault}.json")
        assert code == 0, last_lines(out, 30)
        assert {c["id"]: (c["outcome"], c["scores"]) for c in played(tmp_path / f"{fault}.json")} == base
        assert "provider" not in out.split("=== gameeval ===")[-1]


def test_a_content_filter_is_its_own_kind_not_the_models_forfeit(servers, tmp_path):
    code, out, _ = plugin(tmp_path, servers.url("content-filter"))
    assert "2 games ended by the provider's content filter" in out, last_lines(out, 20)
    for case in played(tmp_path / "run.json"):
        assert case["outcome"] == "aborted"
        evaluated = next(s for s, seat in case["seats"].items() if seat["played_as"] == "evaluated")
        assert case["failures"][evaluated]["content_filter"] == 1
        assert case["failures"][evaluated]["forfeit"] == 0


def test_anthropic_streaming_plays_end_to_end(servers, tmp_path):
    code, out, _ = plugin(tmp_path, servers.url("healthy"), provider="anthropic")
    assert code == 0, last_lines(out, 30)
    assert len(played(tmp_path / "run.json")) == 2
    assert "askguess: 2 played, 0 harness errors" in out


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_a_model_arg_timeout_sets_the_attempt_timeout_instead_of_crashing(servers, baseline, tmp_path):
    code, out, seconds = plugin(tmp_path, servers.url("hang"), f"--gameeval-baseline={baseline}",
                                "--gameeval-model-arg", "timeout=2", "--gameeval-timeout", "3",
                                "--gameeval-max-retries", "1")
    assert code == PROVIDER_FAILED, last_lines(out, 30)
    assert seconds < 60, seconds
    assert "timed out (after inspect's retries ran out)" in last_lines(out)
    assert "TypeError" not in out


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_what_may_pass_is_retried_within_bounds_then_fails_with_its_cause(servers, baseline, tmp_path):
    """With the defaults and no option: a dead port, 429 on every call and a server that never
    answers each end within 5 minutes, exit 6, the cause last; progress lines say why they wait.
    The three run at once (each is a wait, not work)."""
    cases = {"dead": (f"http://127.0.0.1:{free_port()}", "connection failed", "connection refused, retry"),
             "429": (servers.url("429"), "HTTP 429 rate limited", "429 rate limited, retry"),
             "hang": (servers.url("hang"), "timed out", "no reply in 90 s, retry 1 of 5")}

    def run(name: str) -> tuple[int, str, float]:
        folder = tmp_path / name
        folder.mkdir()
        return plugin(folder, cases[name][0], f"--gameeval-baseline={baseline}")

    with ThreadPoolExecutor(3) as pool:
        results = dict(zip(cases, pool.map(run, cases)))
    for name, (code, out, seconds) in results.items():
        _, cause, waiting = cases[name]
        assert code == PROVIDER_FAILED, (name, last_lines(out, 30))
        assert seconds < 300, (name, seconds)
        assert cause in last_lines(out) and "after inspect's retries ran out" in last_lines(out), (name, out[-2000:])
        assert waiting in out, (name, out[-3000:])


INSPECT_FAULTS = {"401": ([], "HTTP 401"), "truncated": ([], "unreadable response"),
                  "empty-choices": ([], "no choices"),
                  "hang": (["--attempt-timeout", "2", "--timeout", "3", "--max-retries", "1"], "timed out"),
                  "429": (["--timeout", "3", "--max-retries", "1"], "HTTP 429 rate limited")}


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
@pytest.mark.parametrize("fault", list(INSPECT_FAULTS))
def test_inspect_eval_ends_with_the_cause_on_one_line(servers, tmp_path, fault):
    extra, cause = INSPECT_FAULTS[fault]
    inspect = str(Path(sys.executable).with_name("inspect"))
    argv = [inspect, "eval", "gameeval/askguess", "--model", "openai/gpt-4o-mini",
            "--limit", "2", "-T", "max_rounds=3", "--log-dir", str(tmp_path / fault), "--display", "plain", *extra]
    start = time.monotonic()
    done = subprocess.run(argv, cwd=tmp_path, env=environment(servers.url(fault)), capture_output=True,
                          text=True, timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.startswith("gameeval: provider failure: ")]
    log = next((tmp_path / fault).glob("*.eval"))
    assert read_eval_log(str(log), header_only=True).status == "error"  # never a finished evaluation
    assert len(lines) == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert cause in lines[0]
    assert time.monotonic() - start < 60


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_gameeval_compare_ends_with_the_cause(servers, tmp_path):
    gameeval = str(Path(sys.executable).with_name("gameeval"))
    for fault, extra in (("401", []), ("hang", ["--attempt-timeout", "2", "--timeout", "3", "--max-retries", "1"])):
        argv = [gameeval, "compare", "openai/gpt-4o-mini", "openai/gpt-4o", "--limit", "1", "-T", "max_rounds=3",
                "--out", str(tmp_path / fault), "--display", "plain", *extra]
        start = time.monotonic()
        done = subprocess.run(argv, cwd=tmp_path, env=environment(servers.url(fault)), capture_output=True,
                              text=True, timeout=180)
        assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("gameeval: error: a run failed: ") and "ProviderError" in last, last
        assert ("HTTP 401" if fault == "401" else "timed out") in last
        assert time.monotonic() - start < 90


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_a_run_killed_by_sigterm_keeps_its_finished_games_and_resumes(servers, tmp_path):
    import signal

    model = ["--gameeval-model", "openai/gpt-4o-mini", "--gameeval-games", "askguess", "--gameeval-limit", "8",
             "--gameeval-option", "max_rounds=3", "--gameeval-concurrency", "1", "--gameeval-report", "run.json"]
    argv = [sys.executable, "-m", "pytest", "--gameeval-only", "-p", "no:cacheprovider", *model]
    env = environment(servers.url("slow"))
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    journal = tmp_path / "run.json.journal-main.jsonl"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and (not journal.exists() or len(journal.read_text().splitlines()) < 2):
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2, out[-2000:]
    kept = len(journal.read_text().splitlines())
    assert 2 <= kept < 8
    assert f"{kept} finished games kept in {journal}" in out
    assert not (tmp_path / "run.json").exists()  # no report of a part of the run
    done = subprocess.run([*argv, "--gameeval-resume"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert f"resumed: reused {kept} finished games from the journal of an interrupted run" in done.stdout
