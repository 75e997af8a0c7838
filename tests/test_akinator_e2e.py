"""End to end through inspect: the three GameArena tasks with the scripted provider (offline)."""

from __future__ import annotations

import math

from inspect_ai import eval as inspect_eval

from pytest_gameeval.inspect_ext.task import game_task


def test_three_arena_tasks_run_through_inspect(tmp_path):
    tasks = [
        game_task("akinator", max_questions=2, retrospective=True, objects="dog"),
        game_task("taboo", max_rounds=2, retrospective=True, limit=1),
        game_task("bluffing", max_questions=2, retrospective=True, limit=1),
    ]
    logs = inspect_eval(tasks, model="gameeval/scripted", log_dir=str(tmp_path), display="none")
    assert [log.status for log in logs] == ["success"] * 3
    for log in logs:
        [sample] = log.samples
        [score] = sample.scores.values()
        assert score.value["win"] in (0.0, 1.0) and score.answer
        assert score.value["probe_failures"] == 0.0
        notes = sample.metadata["gameeval_record"]["notes"]
        assert any("model role 'user' is not bound" in n for n in notes)  # the self-play warning is explicit
    akinator_scores = logs[0].samples[0].scores["gameeval_akinator"].value
    assert not math.isnan(akinator_scores["recall"])
