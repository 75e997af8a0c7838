"""One evaluation spread over processes (`--limit` ranges) and joined by `gameeval merge-logs`: every
game once, metrics over all of them, a log `inspect eval-retry` and `read_eval_log` understand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log

from pytest_gameeval.cli import main as gameeval_main
from pytest_gameeval.inspect_ext.merge_logs import merge_logs
from pytest_gameeval.inspect_ext.task import game_task

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def part(log_dir: Path, limit, max_rounds: int = 2) -> str:
    """One process's part: `limit` is inspect's (start, end) slice of the samples."""
    (log,) = inspect_eval(game_task("askguess", max_rounds=max_rounds), model="gameeval/scripted", limit=limit,
                          log_dir=str(log_dir), display="none")
    assert log.status == "success"
    return log.location


def test_parts_join_into_one_log_with_metrics_over_every_game(tmp_path):
    parts = [part(tmp_path / "a", (0, 3)), part(tmp_path / "b", (3, 6))]
    whole = part(tmp_path / "whole", 6)
    merged = merge_logs(parts)
    expected = read_eval_log(whole)
    assert sorted(s.id for s in merged.samples) == sorted(s.id for s in expected.samples)
    assert merged.status == "success" and merged.eval.config.sample_id == sorted(s.id for s in expected.samples)
    # same games, same records -> the same metrics as one process playing all six
    got = {(s.name, m.name): m.value for s in merged.results.scores for m in s.metrics.values()}
    want = {(s.name, m.name): m.value for s in expected.results.scores for m in s.metrics.values()}
    assert got.keys() == want.keys() and all(got[k] == pytest.approx(want[k], nan_ok=True) for k in want)
    assert merged.results.total_samples == merged.results.completed_samples == 6


def test_joining_needs_no_api_key_of_the_models_that_played(tmp_path, monkeypatch):
    """Scoring reads the records in the samples and calls no model: joining logs of an API model
    (and of its role models) must work where its key is not set, e.g. on a reviewer's machine."""
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import ModelConfig

    parts = []
    for name, limit in (("a", (0, 3)), ("b", (3, 6))):
        log = read_eval_log(part(tmp_path / name, limit))
        log.eval.model = "openai-api/nokeyservice/some-model"  # as if played through an API
        log.eval.model_roles = {"answerer": ModelConfig(model="openai-api/nokeyservice/other-model")}
        write_eval_log(log, str(tmp_path / f"{name}.eval"))
        parts.append(str(tmp_path / f"{name}.eval"))
    monkeypatch.delenv("NOKEYSERVICE_API_KEY", raising=False)
    merged = merge_logs(parts)
    assert len(merged.samples) == 6 and merged.results.completed_samples == 6
    assert merged.eval.model == "openai-api/nokeyservice/some-model"
    assert merged.eval.model_roles["answerer"].model == "openai-api/nokeyservice/other-model"


def test_overlapping_or_foreign_parts_are_one_clear_error(tmp_path, capsys):
    a = part(tmp_path / "a", (0, 3))
    b = part(tmp_path / "b", (2, 4))
    assert gameeval_main(["merge-logs", str(tmp_path / "out.eval"), a, b]) == 2
    assert "in more than one log" in capsys.readouterr().err
    c = part(tmp_path / "c", (3, 5), max_rounds=3)
    assert gameeval_main(["merge-logs", str(tmp_path / "out.eval"), a, c]) == 2
    assert "game options differ" in capsys.readouterr().err
    assert not (tmp_path / "out.eval").exists()


@pytest.mark.slow
def test_two_processes_merged_then_viewed_and_retried_as_docs_say(tmp_path):
    """The commands of docs/performance.md ("Several processes for one inspect eval")."""
    common = [str(BIN / "inspect"), "eval", "tasks/askguess.py", "--model", "gameeval/scripted", "-T", "max_rounds=2",
              "--display", "none"]
    procs = [
        subprocess.Popen(
            [*common, "--limit", rng, "--log-dir", str(tmp_path / "logs" / "askguess.shards" / str(k))], cwd=ROOT
        )
        for k, rng in ((1, "1-4"), (2, "5-8"))
    ]
    assert [p.wait(timeout=600) for p in procs] == [0, 0]
    shards = sorted(str(p) for p in (tmp_path / "logs" / "askguess.shards").rglob("*.eval"))
    out = tmp_path / "logs" / "askguess.eval"
    subprocess.run([str(BIN / "gameeval"), "merge-logs", str(out), *shards], check=True, cwd=tmp_path, timeout=300)
    merged = read_eval_log(str(out))
    assert merged.status == "success" and len(merged.samples) == 8
    assert str(out) in [
        Path(i.name.removeprefix("file://")).as_posix() for i in list_eval_logs(str(tmp_path / "logs"), recursive=True)
    ]
    subprocess.run(
        [str(BIN / "inspect"), "eval-retry", str(out), "--log-dir", str(tmp_path / "retried"), "--display", "none"],
        check=True,
        cwd=ROOT,
        timeout=600,
    )
    (retried,) = [read_eval_log(i) for i in list_eval_logs(str(tmp_path / "retried"))]
    assert retried.status == "success" and sorted(s.id for s in retried.samples) == sorted(s.id for s in merged.samples)
