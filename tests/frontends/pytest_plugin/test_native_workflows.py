"""pytest's less common workflows keep the data and tell the truth (issue 59), through real pytest
in a temporary project whose ini names a model, as a user's project would: a node id or path of the
user's own tests plays no game, the user's folder named `gameeval/` is theirs, `--co` and `--help`
touch no journal and load no model, and `python -X dev` sees no unclosed file of ours."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ctrl_c_able

INI = """[tool.pytest.ini_options]
gameeval_model = "gameeval/scripted"
gameeval_games = "askguess"
gameeval_limit = "4"
"""


def run(cwd: Path, *args: str, python: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *python, "-m", "pytest", "-q", "-p", "no:randomly", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"})


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(INI)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mine.py").write_text("def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    return tmp_path


@pytest.mark.slow  # several pytest runs in a user's project (~13 s on 2 busy cores)
def test_a_pasted_id_or_path_of_the_users_tests_plays_no_game(project):
    for args in (["tests/test_mine.py::test_one"], ["tests/test_mine.py"], ["tests"]):
        done = run(project, *args)
        assert done.returncode == 0, done.stdout[-2000:]
        assert "gameeval" not in done.stdout and not (project / "reports").exists(), (args, done.stdout[-2000:])
        assert last_line(done).startswith("1 passed" if "::" in args[0] else "2 passed"), last_line(done)


@pytest.mark.slow  # five pytest runs, one with two xdist workers (~35 s on 2 busy cores)
def test_games_come_with_no_path_the_project_or_a_game_id(project):
    assert last_line(run(project)).startswith("6 passed")  # testpaths / the current dir: the user's and the games
    assert last_line(run(project, ".")).startswith("6 passed")
    assert last_line(run(project, "tests/test_mine.py::test_one", "gameeval::askguess")).startswith("5 passed")
    done = run(project, "--gameeval-only", "tests")
    assert last_line(done).startswith("4 passed"), done.stdout[-2000:]
    done = run(project, "tests/test_mine.py", "-n", "2")  # the workers collect what the controller decided
    assert done.returncode == 0 and last_line(done).startswith("2 passed"), (done.stdout + done.stderr)[-2000:]


def test_a_users_folder_named_gameeval_runs_its_own_tests(project):
    (project / "gameeval").mkdir()
    (project / "gameeval" / "test_theirs.py").write_text("def test_theirs():\n    pass\n")
    done = run(project, "gameeval", "-rA")
    assert done.returncode == 0, done.stdout[-2000:]
    assert "PASSED gameeval/test_theirs.py::test_theirs" in done.stdout
    assert last_line(done).startswith("1 passed") and "skipped" not in last_line(done), last_line(done)


def interrupt_once_journalled(cwd: Path, journal: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A run cut by Ctrl-C as soon as its first game is journalled (the event, whatever the load)."""
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *args]
    proc = subprocess.Popen(ctrl_c_able(argv), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"})
    deadline = time.monotonic() + 240
    while proc.poll() is None and time.monotonic() < deadline and not (journal.exists() and journal.read_text()):
        time.sleep(0.02)  # polling for the journal's first line, not waiting out a time
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(argv, proc.returncode, out, "")


def _journal(project: Path) -> Path:
    return project / "reports" / "gameeval-report.json.journal-main.jsonl"


@pytest.mark.slow  # five pytest runs (~30 s on 2 busy cores)
def test_collect_only_help_and_other_games_leave_the_journal_alone(project):
    journal = _journal(project)
    many = ["--gameeval-only", "--gameeval-limit", "60", "--gameeval-trials", "2"]  # 120 games: ~10 s or more
    cut = interrupt_once_journalled(project, journal, *many)
    assert cut.returncode == 2, cut.stdout[-2000:]
    before = journal.read_text()
    assert before.count("\n") >= 1, cut.stdout[-2000:]
    assert last_line(run(project, "--co")).startswith("6 tests collected")  # the ini's 4 games and the user's 2
    assert run(project, "--help").returncode == 0
    other = run(project, "--gameeval-only", "--gameeval-games", "spyfall", "--gameeval-limit", "2")
    assert other.returncode == 0, other.stdout[-2000:]
    assert journal.read_text() == before  # the other game's run took only its own games out
    resumed = run(project, *many, "--gameeval-resume")
    assert resumed.returncode == 0, resumed.stdout[-2000:]
    assert f"reused {before.count(chr(10))} finished game" in resumed.stdout
    assert not journal.exists()  # the run that put its games into a report removed them


def test_collect_only_loads_no_model(project):
    """A model that cannot load (an unknown provider) is not touched by `--co`; a run says so in
    one line before any game."""
    listed = run(project, "--co", "--gameeval-model=nosuchprovider/model")
    assert listed.returncode == 0 and last_line(listed).startswith("6 tests collected"), listed.stdout[-2000:]
    played = run(project, "--gameeval-model=nosuchprovider/model")
    assert played.returncode == 4, played.stdout[-2000:]
    assert "ERROR: gameeval: cannot load model 'nosuchprovider/model'" in played.stderr
    assert "Traceback" not in played.stdout + played.stderr


def test_dev_mode_sees_no_unclosed_file_of_ours(project):
    done = run(project, "tests", python=("-X", "dev"))
    assert done.returncode == 0, done.stdout[-2000:]
    assert "ResourceWarning" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-3000:]
