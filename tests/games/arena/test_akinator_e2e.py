"""End to end through inspect: the GameArena tasks with the scripted provider (offline)."""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval

from pytest_gameeval.inspect_ext.task import game_task


def _check(logs):
    assert [log.status for log in logs] == ["success"] * len(logs)
    for log in logs:
        [sample] = log.samples
        [score] = sample.scores.values()
        assert score.value["win"] in (0.0, 1.0) and score.answer
        assert score.value["probe_failures"] == 0.0
        notes = sample.metadata["gameeval_record"]["notes"]
        assert any("model role 'user' is not bound" in n for n in notes)  # the self-play warning is explicit


def test_akinator_task_runs_through_inspect(tmp_path):
    logs = inspect_eval(game_task("akinator", max_questions=2, retrospective=True, objects="dog"),
                        model="gameeval/scripted", log_dir=str(tmp_path), display="none")
    _check(logs)
    assert not math.isnan(logs[0].samples[0].scores["gameeval_akinator"].value["recall"])


@pytest.mark.slow
def test_taboo_and_bluffing_tasks_run_through_inspect(tmp_path):
    tasks = [
        game_task("taboo", max_rounds=2, retrospective=True, limit=1),
        game_task("bluffing", max_questions=2, retrospective=True, limit=1),
    ]
    _check(inspect_eval(tasks, model="gameeval/scripted", log_dir=str(tmp_path), display="none"))
