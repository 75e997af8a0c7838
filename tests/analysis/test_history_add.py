"""`gameeval history add`: an `inspect eval` run's logs (and a report) stored like a plugin run, so
both fronts share one history; what is not a report or a gameeval log is one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gameeval.analysis.history.store import RunStore
from pytest_gameeval.cli import main as cli


def test_what_is_neither_a_report_nor_a_log_is_one_line(tmp_path, capsys):
    store = str(tmp_path / "store")
    assert cli(["history", "--storage", store, "add", str(tmp_path / "nothing")]) == 2
    missing = tmp_path / "nothing"
    assert capsys.readouterr().err.strip() == f"gameeval: error: history add: no such file or folder {missing}"
    junk = tmp_path / "junk.eval"
    junk.write_bytes(b"not a zip")
    assert cli(["history", "--storage", store, "add", str(junk)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"gameeval: error: {junk}: not an inspect log (") and len(err.splitlines()) == 1
    (tmp_path / "empty").mkdir()
    assert cli(["history", "--storage", store, "add", str(tmp_path / "empty")]) == 2
    assert "no successful inspect log of a gameeval task" in capsys.readouterr().err
    assert RunStore(store).runs() == []


@pytest.mark.slow  # inspect eval, then two pytest runs: about 40 s on 2 cores
def test_an_inspect_run_joins_the_history_and_pairs_with_a_plugin_run(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    done = subprocess.run(["inspect", "eval", "gameeval/askguess", "--model", "gameeval/scripted/oracle", "--limit",
                           "20", "--log-dir", "logs"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"})
    assert done.returncode == 0, done.stderr[-2000:]
    store = str(tmp_path / ".gameeval")
    assert cli(["history", "--storage", store, "add", str(tmp_path / "logs"), "--name", "inspect-oracle"]) == 0
    (run,) = RunStore(store).runs()
    assert run.name == "inspect-oracle" and run.model == "gameeval/scripted/oracle"
    assert run.meta["source"] == "inspect logs logs" and run.meta["games"]["askguess"]["cases_played"] == 20
    gated = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--gameeval-only",
                            "--gameeval-games", "askguess", "--gameeval-limit", "20",
                            "--gameeval-model=gameeval/scripted/random", "--gameeval-compare", "--gameeval-autosave"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert gated.returncode == 1, gated.stdout[-3000:]
    assert f"gameeval: baseline run {run.id} ('inspect-oracle'" in gated.stdout
    capsys.readouterr()
    assert cli(["history", "--storage", store, "compare", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["verdict"], r["paired"]) for r in rows] == [("", None), ("worse", True)]  # same cases, same seeds
