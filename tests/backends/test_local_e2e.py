"""The embedded model end to end: Ask-Guess over real HTTP through inspect's OpenAI-compatible
provider (the real openai SDK inside inspect), and identical records from identical seeded runs."""

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import GenerateConfig, get_model
from test_local_model import _port_open, _start_serve, _stop_serve, needs_weights, stop_servers  # noqa: F401

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.model import ModelPlayer

ROOT = Path(__file__).resolve().parents[2]
OUTCOMES = {"ST", "EE", "RLE", "AME", "CE"}


@pytest.mark.slow
@needs_weights
def test_askguess_over_http_with_inspects_openai_compatible_provider(tmp_path):
    proc, line = _start_serve("--n-parallel", "4", "--n-ctx", "2048")
    base_url = line.rpartition(" at ")[2]
    port = int(base_url.rsplit(":", 1)[1].split("/")[0])
    try:
        env = {"LOCALSMOL_BASE_URL": base_url, "LOCALSMOL_API_KEY": "unused", "PATH": str(Path(sys.executable).parent)}
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("inspect")),
                "eval",
                "tasks/askguess.py",
                "--model",
                "openai-api/localsmol/smollm2",
                "--limit",
                "2",
                "-T",
                "max_rounds=2",
                "--max-tokens",
                "40",
                "--temperature",
                "0",
                "--log-dir",
                str(tmp_path / "logs"),
                "--display",
                "plain",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            env={**__import__("os").environ, **env},
        )
    finally:
        assert _stop_serve(proc) == 0
    assert not _port_open("127.0.0.1", port)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (log,) = [read_eval_log(p) for p in list_eval_logs(str(tmp_path / "logs"))]
    assert log.status == "success"
    assert len(log.samples) == 2
    for sample in log.samples:
        assert sample.scores["gameeval_askguess"].answer in OUTCOMES
        completions = [e.output.completion for e in sample.events if e.event == "model"]
        assert completions and any(c.strip() for c in completions)  # real model text
        assert sample.metadata["gameeval_record"]["seats"][0]["model"] == "openai-api/localsmol/smollm2"


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
@needs_weights
def test_identical_seeded_runs_give_identical_records(stop_servers):  # noqa: F811
    spec = get_spec("askguess")
    options = spec.parse_options({"max_rounds": 2, "seed": 3})
    row = spec.rows(options)[0]
    model = get_model(
        "gameeval/local",
        n_ctx=2048,
        n_parallel=2,
        cache_prompt=False,
        memoize=False,
        config=GenerateConfig(max_tokens=40),
    )

    def once():
        return asyncio.run(play_case(spec, row, 0, options, lambda seat, role: ModelPlayer(model))).to_dict()

    first, second = once(), once()
    assert first == second
    assert any(e["kind"] == "reply" and e["text"].strip() for e in first["events"])
