"""inspect's less common workflows on our tasks (issue 59), through the real inspect CLI and API:
`-T` values checked as strictly as the pytest plugin's options (the same one-line messages), an
epochs reducer of inspect's own keeps an undefined score undefined, and Ctrl-C (SIGINT to the
process) stops an eval without a span warning of ours."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ctrl_c_able
from inspect_ai import Epochs
from inspect_ai import eval as inspect_eval

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def inspect_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "inspect"), "eval", "gameeval/askguess", "--model", "gameeval/scripted", *args,
                           "--display", "none", "--limit", "1", "--log-dir", str(cwd / "logs")],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


def plugin(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "--gameeval-only", "-p", "no:cacheprovider",
                           "--gameeval-model=gameeval/scripted", "--gameeval-games", "askguess", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("value, message", [
    ("max_rounds=1.5", "task argument max_rounds=1.5 must be of type int"),  # was: 1 round, silently
    ("limit=-1", "task argument limit=-1 must be at least 0"),  # was: every row but the last
])
def test_task_arguments_are_checked_as_the_plugin_checks_them(tmp_path, value, message):
    (tmp_path / "conftest.py").write_text("")
    done = inspect_cli(tmp_path, "-T", value)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode != 0 and lines == [f"gameeval: {message}"], lines
    by_plugin = plugin(tmp_path, "--gameeval-option", value, "--co")
    assert by_plugin.returncode == 4 and f"ERROR: gameeval: {message}" in by_plugin.stderr, by_plugin.stderr


def test_a_reducer_of_inspects_keeps_an_undefined_score_undefined(tmp_path, monkeypatch):
    """rounds_st is undefined when no game was won: inspect's mean over trials read our null as 0."""
    monkeypatch.chdir(ROOT)
    for reducer in ("mean", "median"):
        (log,) = inspect_eval("tasks/askguess.py", model="gameeval/scripted/random", limit=2,
                              epochs=Epochs(2, reducer), task_args={"max_rounds": 2},
                              log_dir=str(tmp_path / "logs"), display="none")
        assert log.status == "success" and log.eval.config.epochs_reducer == [reducer]
        values = [s.scores["gameeval_askguess"].value["rounds_st"] for s in log.samples]
        assert all(isinstance(v, float) and math.isnan(v) for v in values), values  # inspect's own way: NaN
        [rounds_st] = [s for s in log.results.scores if s.name == "rounds_st"]
        assert math.isnan(rounds_st.metrics["mean"].value), (reducer, rounds_st.metrics)
        [rounds] = [s for s in log.results.scores if s.name == "rounds"]
        assert rounds.metrics["mean"].value == 2.0  # a defined key is reduced as before


def test_a_rate_reduced_over_epochs_keeps_its_interval_within_0_and_1(tmp_path, monkeypatch):
    """Over --epochs a rate's value per sample is 0.5 (won one of two trials): its Student t interval
    over 3 samples was printed as ST 0.167 [-0.55, 0.884]; a rate's interval lies in [0, 1]."""
    monkeypatch.chdir(ROOT)
    (log,) = inspect_eval("tasks/askguess.py", model="gameeval/scripted/random", limit=3, epochs=Epochs(2, "median"),
                          log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    bounded = [s for s in log.results.scores if "low95" in s.metrics and s.name not in ("rounds",)]
    [st] = [s for s in log.results.scores if s.name == "ST"]
    assert (st.metrics["mean"].value * 3) % 1, st.metrics  # a reduced ST of 0.5: the case this test is about
    for score in bounded:
        low, high = score.metrics["low95"].value, score.metrics["high95"].value
        assert 0.0 <= low <= high <= 1.0, (score.name, low, high)


@pytest.mark.slow  # the inspect CLI's start and 20 games in flight (~20-40 s on 2 busy cores)
def test_ctrl_c_stops_an_eval_without_span_warnings(tmp_path):
    proc = subprocess.Popen(
        ctrl_c_able([str(BIN / "inspect"), "eval", "tasks/askguess.py", "--model", "gameeval/scripted",
                     "-M", "latency=0.3", "--limit", "20", "--log-dir", str(tmp_path / "logs"), "--display", "plain"]),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "1"})
    assert proc.stdout is not None
    before = []
    for line in proc.stdout:  # the progress line says games are in flight
        before.append(line)
        if "playing; in play:" in line:
            break
    proc.send_signal(signal.SIGINT)  # the line above is the event: games are in flight
    rest, _ = proc.communicate(timeout=120)
    out = "".join(before) + rest
    assert "playing; in play:" in out, out[-3000:]
    assert "Task interrupted" in out or "interrupted" in out.lower(), out[-3000:]
    assert "Exiting span created" not in out, out[-3000:]  # rich wraps the rest of the warning onto more lines
