"""`inspect score LOG` on our logs (issue 53): the scorer is found by the name the log recorded,
re-scoring gives the same values, score values are valid JSON (an undefined one is null, never
NaN; the results' metrics keep inspect's own NaN for "no value") and the metric names are the
ones inspect's readers (evals_df) look for."""

from __future__ import annotations

import ast
import json
import subprocess
import zipfile
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.analysis._dataframe.evals.extract import eval_log_headline_stderr, eval_log_headline_value
from inspect_ai.log import read_eval_log

from pytest_gameeval.games.registry import GAMES, get_spec

ROOT = Path(__file__).resolve().parents[3]


def _no_nan(text: bytes) -> None:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in a log file: not JSON")

    json.loads(text, parse_constant=refuse)


def test_inspect_score_rescores_a_log_with_the_same_values_and_every_value_is_json(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # as a user runs it: from the project, where the log's task file is
    (log,) = inspect_eval("tasks/askguess.py", model="gameeval/scripted/random", limit=3, epochs=2,
                          task_args={"max_rounds": 3}, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    out = tmp_path / "rescored.eval"
    result = subprocess.run(["inspect", "score", log.location, "--action", "overwrite", "--output-file", str(out),
                             "--display", "none"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0 and "couldn't be loaded" not in result.stdout + result.stderr, result.stdout
    original, rescored = read_eval_log(log.location), read_eval_log(str(out))
    assert [s.scores for s in rescored.samples] == [s.scores for s in original.samples]
    assert rescored.results.scores == original.results.scores
    values = original.samples[0].scores["gameeval_askguess"].value
    assert values["rounds_st"] is None  # no success in 3 rounds: undefined, null
    for path in (log.location, str(out)):  # each sample's scores (samples_df's score columns) are JSON
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if name.startswith("samples/"):
                    _no_nan(json.dumps(json.loads(z.read(name))["scores"]).encode())
    headline = next(s for s in original.results.scores if s.name == "played_quality")
    assert set(headline.metrics) == {"mean", "stderr", "n_defined", "low95", "high95"}
    assert eval_log_headline_value(original) == headline.metrics["mean"].value
    assert eval_log_headline_stderr(original) == headline.metrics["stderr"].value  # evals_df's column


def test_every_task_file_registers_its_scorer_when_it_loads():
    """inspect score imports the log's task file and looks the scorer up by name."""
    for game in GAMES:
        tree = ast.parse((ROOT / "tasks" / f"{game}.py").read_text())
        names = {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
                 if isinstance(t, ast.Name)}
        assert f"gameeval_{game}" in names, game


def test_the_task_docstrings_say_who_plays_an_unbound_seat():
    """An unbound role the game has a reference policy for is played by it, not by the evaluated model."""
    for game in GAMES:
        doc = ast.get_docstring(ast.parse((ROOT / "tasks" / f"{game}.py").read_text())) or ""
        if get_spec(game).reference_roles:
            assert "the evaluated model plays it (" not in doc and "reference" in doc, game


@pytest.mark.slow  # .ci/run runs it
def test_inspect_score_finds_the_scorer_of_a_task_run_by_its_registered_name(tmp_path):
    """`inspect eval gameeval/askguess` has no task file: the entry point registers the scorer's name."""
    (log,) = inspect_eval("gameeval/askguess", model="gameeval/scripted/random", limit=2,
                          task_args={"max_rounds": 3}, log_dir=str(tmp_path / "logs"), display="none")
    out = tmp_path / "rescored.eval"
    result = subprocess.run(["inspect", "score", log.location, "--action", "overwrite", "--output-file", str(out),
                             "--display", "none"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0 and out.exists(), result.stdout + result.stderr
    rescored, original = read_eval_log(str(out)), read_eval_log(log.location)
    assert [s.scores for s in rescored.samples] == [s.scores for s in original.samples]
