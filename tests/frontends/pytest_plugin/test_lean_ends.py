"""The run's two ends stay lean (issue 62), through real pytest in a temporary project whose ini
names a model, as a user's project would: `--collect-only` and `--help` load no model (the
embedded model's server is never started: no child process) and import neither a provider's
SDK nor scipy; a run that plays loads scipy only after its games start (transport/preload.py), not
before the first model call, and its report is still written with every game."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

INI = """[tool.pytest.ini_options]
gameeval_model = "{model}"
gameeval_games = "askguess"
gameeval_limit = "2"
"""

# what the process holds once our pytest_configure ran (trylast: after the plugin's) and once
# collection is done, i.e. just before the first game would start
PROBE = '''
import json, os, sys
import psutil
import pytest

HEAVY = ("inspect_ai", "openai", "scipy", "numpy")


def _probe(when):
    path = os.environ["GAMEEVAL_TEST_PROBE"]
    seen = json.load(open(path)) if os.path.exists(path) else {}
    seen[when] = {"modules": [m for m in HEAVY if m in sys.modules],
                  "children": [p.name() for p in psutil.Process().children(recursive=True)]}
    with open(path, "w") as f:
        json.dump(seen, f)


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    _probe("configured")


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    _probe("collected")


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config):
    _probe("ended")  # after the session's end (the report's hooks), before the plugin's own unconfigure
'''


def run(project: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    probe = project / "probe.json"
    probe.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *args],
                          cwd=project, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0", "GAMEEVAL_TEST_PROBE": str(probe)})
    return done, json.loads(probe.read_text()) if probe.exists() else {}


def project_with(tmp_path: Path, model: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(INI.format(model=model))
    (tmp_path / "conftest.py").write_text(PROBE)
    (tmp_path / "test_mine.py").write_text("def test_one():\n    pass\n")
    return tmp_path


@pytest.mark.parametrize("args", [["--co"], ["--help"]], ids=["collect-only", "help"])
def test_collect_only_and_help_load_no_model_and_start_no_server(tmp_path, args):
    project = project_with(tmp_path, "gameeval/local")  # loading it would start a llama.cpp server
    done, seen = run(project, *args)
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]
    assert seen, "the probe did not run"
    for when, held in seen.items():
        assert held["children"] == [], (when, held)  # no model server started
        # no provider's SDK (no model made), no scipy, and no inspect: the plan of every case is made
        # (the options checked against the games' specs) without the runner's module
        assert held["modules"] == [], (when, held)
    if args == ["--co"]:
        assert done.stdout.strip().splitlines()[-1].startswith("3 tests collected"), done.stdout[-2000:]


def test_scipy_loads_after_the_games_start_and_the_report_is_whole(tmp_path):
    project = project_with(tmp_path, "gameeval/scripted")
    done, seen = run(project, "--gameeval-only", "--gameeval-report", "r.json")
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]
    assert "scipy" not in seen["collected"]["modules"], seen  # not before the first game
    assert "numpy" not in seen["collected"]["modules"], seen
    report = json.loads((project / "r.json").read_text())
    played = [c for c in report["cases"] if c["status"] == "played"]
    assert len(played) == 2 and report["games"]["askguess"]["metrics"], report["games"]["askguess"]
