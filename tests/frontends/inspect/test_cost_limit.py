"""inspect's own --model-cost-config and per-sample --cost-limit pass through our tasks (issue 46): a
game the limit stops mid-way is scored "not finished" with undefined scores (not a loss, not a
crash of the scorer), and the run ends with status success; the score `cost_usd` is what the game
spent, as inspect priced it. Over the loopback OpenAI-compatible
server on 127.0.0.1, through inspect's `openai/` provider (its price is looked up by inspect, which
knows only the models of its own database: hence gpt-4o-mini's name on a loopback address)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log

ROOT = Path(__file__).resolve().parents[3]
LOOPBACK = ROOT / "benchmarks" / "loopback_openai.py"


def test_inspects_cost_limit_stops_a_game_and_the_scorer_says_not_finished(tmp_path):
    (tmp_path / "prices.yaml").write_text(
        "openai/gpt-4o-mini:\n  input: 1000\n  output: 4000\n  input_cache_write: 0\n  input_cache_read: 500\n")
    server = subprocess.Popen([sys.executable, str(LOOPBACK), "--latency", "0", "--port", "0", "--max-seconds", "300"],
                              stdout=subprocess.PIPE, text=True)
    try:
        env = {**os.environ, "OPENAI_BASE_URL": server.stdout.readline().split()[-1], "OPENAI_API_KEY": "unused",
               "GAMEEVAL_PROGRESS_SECONDS": "0"}
        run = subprocess.run(
            ["inspect", "eval", "tasks/askguess.py", "--model", "openai/gpt-4o-mini", "--model-cost-config",
             str(tmp_path / "prices.yaml"), "--cost-limit", "0.5", "-T", "max_rounds=5", "--limit", "2",
             "--display", "none", "--log-dir", str(tmp_path / "logs")],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    finally:
        server.terminate()
        server.wait(10)
    assert run.returncode == 0, run.stderr[-2000:]
    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    assert log.status == "success"
    for sample in log.samples:
        assert sample.limit is not None and sample.limit.type == "cost"
        score = next(iter(sample.scores.values()))
        assert score.answer == "not finished (sample limit)" and score.value["cost_usd"] > 0.5  # what it did spend
        assert sample.model_usage["openai/gpt-4o-mini"].total_cost > 0.5  # inspect priced it from our file
