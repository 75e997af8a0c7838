"""The end of `inspect eval` answers first (issue 68): the box shows the headline with its interval and
n, the outcomes, the turn-level measure and the cost in about 20 lines on 80 columns, while the log
keeps every score with every metric the scorer declares; GAMEEVAL_SCORES=all brings inspect's grid back."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from inspect_ai._util.registry import registry_log_name
from inspect_ai.log import list_eval_logs, read_eval_log

from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.inspect_ext.scorer import COST_KEY, FAILURE_KEYS, _metrics_of, mean_def, n_defined

ROOT = Path(__file__).resolve().parents[3]


def inspect_eval(tmp_path: Path, **env: str) -> list[str]:
    run = subprocess.run(
        ["inspect", "eval", "tasks/askguess.py", "--model", "gameeval/scripted/random", "--limit", "5",
         "-T", "max_rounds=5", "--log-dir", str(tmp_path / "logs")],
        cwd=ROOT, env={**os.environ, "COLUMNS": "80", **env}, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("╭"))  # the box inspect draws at the end
    return [line.rstrip() for line in lines[top:] if line.strip()]


def declared_metrics() -> dict[str, set[str]]:
    """Every score key the Ask-Guess scorer declares, with the names its metrics have in the log."""
    spec = get_spec("askguess")
    keys = [spec.headline, *spec.outcome_labels, *spec.mean_keys, *FAILURE_KEYS.values()]
    declared = {k: {registry_log_name(m) for m in _metrics_of(k, set(spec.rate_keys), spec)} for k in keys}
    declared[COST_KEY] = {registry_log_name(m) for m in (mean_def(), n_defined())}
    return declared


def test_answer_lines_from_a_logs_scores_and_every_metric_kept(tmp_path):
    """In process (fast): the lines our end screen makes from the log's own results, and the log."""
    from inspect_ai import eval as inspect_eval_api

    import gameeval.tasks as registered
    from pytest_gameeval.inspect_ext.end_screen import task_scores

    (log,) = inspect_eval_api(registered.askguess(max_rounds=5), model="gameeval/scripted/random", limit=4,
                              log_dir=str(tmp_path / "logs"), display="none")
    lines = [str(t) for t in task_scores(log.results.scores)]
    assert lines[0].startswith("askguess: played_quality ") and "over n=4 games  (headline)" in lines[0]
    assert [line[:12] for line in lines[1:]] == ["  outcomes  ", "  turns     ", "  cost      ", "  9 more sco"]
    assert all(len(line) <= 80 for line in lines)
    in_log = {s.name: set(s.metrics) for s in log.results.scores if s.metrics}
    assert in_log == declared_metrics()  # every score, every metric, as the scorer declares them


@pytest.mark.slow  # two real `inspect eval` processes with inspect's own display
def test_the_box_answers_first_in_twenty_lines_and_the_log_keeps_every_metric(tmp_path):
    box = inspect_eval(tmp_path)
    assert len(box) <= 20 and all(len(line) <= 80 for line in box), "\n".join(box)
    scores = [i for i, line in enumerate(box) if line.startswith("askguess: played_quality")]
    assert scores, "\n".join(box)
    head = box[scores[0]]
    assert re.search(r"played_quality \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] over n=5 games", head)
    assert scores[0] <= 3  # at the top of the box: right under its title
    rest = box[scores[0] + 1:]
    assert rest[0].startswith("  outcomes  played 5/5") and "RLE 5/5" in rest[0]
    assert rest[1].startswith("  turns     legal_first_try 1.000")
    assert rest[2].startswith("  cost      $0.0000 over 5 games")
    assert any("more scores in the log" in line and "GAMEEVAL_SCORES=all" in line for line in rest[3:])
    assert "rounds_st" not in "\n".join(box)  # the detail is in the log, not here

    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    in_log = {s.name: set(s.metrics) for s in log.results.scores if s.metrics}
    assert in_log == declared_metrics()  # every score, every metric, as the scorer declares them


@pytest.mark.slow
def test_gameeval_scores_all_shows_inspects_grid_of_every_score(tmp_path):
    box = "\n".join(inspect_eval(tmp_path, GAMEEVAL_SCORES="all"))
    assert "rounds_st" in box and "missed_guesses" in box and "n_defined" in box
    assert "more scores in the log" not in box


def test_no_finished_game_is_said_not_crashed():
    """Every game stopped by a sample limit (--cost-limit): every estimate is NaN; the box says so."""
    from pytest_gameeval.metrics.answer_first import Estimate, answer_lines

    nan = float("nan")
    lines = answer_lines("askguess", "played_quality", {"played_quality": Estimate(nan, 0), "played": Estimate(nan, 2),
                                                         "ST": Estimate(nan, 2)}, ("ST",), "legal_first_try", (None, 0))
    assert lines == ["askguess: played_quality: no game was played", "  outcomes  none ST",
                     "  cost      not priced (no price for a model: --model-cost-config)"]
