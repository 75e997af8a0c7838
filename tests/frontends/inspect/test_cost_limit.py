"""inspect's own --model-cost-config and per-sample --cost-limit pass through our tasks (issue 46): a
game the limit stops mid-way is scored "not finished" with undefined scores (not a loss, not a
crash of the scorer), and the run ends with status success; the score `cost_usd` is what each game
spent, as inspect priced it, and the progress lines add it up. Over the loopback OpenAI-compatible
server on 127.0.0.1, through inspect's `openai/` provider (its price is looked up by inspect, which
knows only the models of its own database: hence gpt-4o-mini's name on a loopback address)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import loopback_server
from inspect_ai.log import list_eval_logs, read_eval_log

ROOT = Path(__file__).resolve().parents[3]
PRICE = "openai/gpt-4o-mini:\n  input: 1000\n  output: 4000\n  input_cache_write: 0\n  input_cache_read: 500\n"


@pytest.fixture(scope="module")
def base_url():
    with loopback_server(600) as url:
        yield url


def inspect_eval(base_url: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "prices.yaml").write_text(PRICE)
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "unused", "GAMEEVAL_PROGRESS_SECONDS": "5"}
    run = subprocess.run(
        ["inspect", "eval", "tasks/askguess.py", "--model", "openai/gpt-4o-mini", "--model-cost-config",
         str(tmp_path / "prices.yaml"), "-T", "max_rounds=5", "--limit", "2", "--display", "none", "--log-dir",
         str(tmp_path / "logs"), *extra],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    return run


def test_inspects_cost_limit_stops_a_game_and_the_scorer_says_not_finished(base_url, tmp_path):
    inspect_eval(base_url, tmp_path, "--cost-limit", "0.5")
    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    assert log.status == "success"
    for sample in log.samples:
        assert sample.limit is not None and sample.limit.type == "cost"
        score = next(iter(sample.scores.values()))
        assert score.answer == "not finished (sample limit)" and score.value["cost_usd"] > 0.5  # what it did spend
        assert sample.model_usage["openai/gpt-4o-mini"].total_cost > 0.5  # inspect priced it from our file


def test_each_games_cost_is_a_score_and_the_progress_lines_add_it_up(base_url, tmp_path):
    run = inspect_eval(base_url, tmp_path)
    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    costs = [next(iter(s.scores.values())).value["cost_usd"] for s in log.samples]
    assert costs == [pytest.approx(s.model_usage["openai/gpt-4o-mini"].total_cost) for s in log.samples]
    cost = next(s for s in log.results.scores if s.name == "cost_usd").metrics["mean"].value
    assert cost == pytest.approx(sum(costs) / 2)
    assert f"gameeval final: askguess cost ${sum(costs):.4f} over 2 priced games" in run.stderr
