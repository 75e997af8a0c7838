"""scripts/flake_hunt.sh (issue 67) as a developer runs it: a command N times in random orders
beside a CPU hog, each failure printed with the seed that reproduces its order, a summary line per
run in runs.jsonl, exit 1 when any run failed, and a stopped hunt still naming its run's failures."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("pytest_randomly")  # the dev extra installs it


def hunt_command(tmp_path: Path, runs: int, *pytest_args: str) -> tuple[list[str], dict[str, str]]:
    """The script's argv and environment: its logs under tmp_path/out, one hog, this venv's python."""
    env = {**os.environ, "OUT": str(tmp_path / "out"), "HOGS": "1",
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    argv = ["bash", str(ROOT / "scripts" / "flake_hunt.sh"), str(runs), "--", *pytest_args, "-p", "no:cacheprovider"]
    return argv, env


def hunt(tmp_path: Path, runs: int, test_file: Path) -> subprocess.CompletedProcess[str]:
    argv, env = hunt_command(tmp_path, runs, str(test_file))
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # two short pytest runs beside a hog (~40 s on 2 busy cores)
def test_green_runs_are_counted_with_their_seeds(tmp_path):
    (tmp_path / "test_fine.py").write_text("def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    done = hunt(tmp_path, 2, tmp_path / "test_fine.py")
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [json.loads(line) for line in (tmp_path / "out" / "runs.jsonl").read_text().splitlines()]
    assert [r["exit"] for r in runs] == [0, 0] and all(r["summary"].startswith("2 passed") for r in runs)
    assert all(f"seed {r['seed']} exit 0" in done.stdout for r in runs)
    assert done.stdout.strip().splitlines()[-1].startswith("flake_hunt: 2 runs, 0 failed")


@pytest.mark.slow  # three short pytest runs beside a hog (~40 s on 2 busy cores)
def test_a_failure_is_printed_with_its_seed_and_fails_the_hunt(tmp_path):
    (tmp_path / "test_broken.py").write_text("def test_fine():\n    pass\n\ndef test_broken():\n    assert False\n")
    done = hunt(tmp_path, 1, tmp_path / "test_broken.py")
    assert done.returncode == 1, done.stdout + done.stderr
    [run] = [json.loads(line) for line in (tmp_path / "out" / "runs.jsonl").read_text().splitlines()]
    assert run["exit"] == 1 and run["summary"].startswith("1 failed, 1 passed"), run
    assert f"seed {run['seed']}: FAILED " in done.stdout and done.stdout.count("test_broken.py::test_broken") == 1
    assert "flake_hunt: 1 runs, 1 failed" in done.stdout


@pytest.mark.slow  # one pytest run with two xdist workers, stopped once a test has failed (~15 s on 2 busy cores)
@pytest.mark.parametrize("stop", ["sigterm", "ctrl-c in a terminal"])
def test_a_stopped_hunt_names_the_failures_of_its_run_in_flight(tmp_path, stop):
    """SIGTERM, or Ctrl-C in the terminal the hunt runs in (util-linux's `script` gives it one), stops
    its run as Ctrl-C stops pytest: the short summary still names what failed so far, with the seed that
    reproduces the order (before, the run was killed and the names lost)."""
    (tmp_path / "test_broken.py").write_text("def test_broken():\n    assert False\n")
    # on the other worker (--dist loadfile), a test that outlives the failure
    (tmp_path / "test_block.py").write_text(
        "import time\n\ndef test_block():\n"
        "    deadline = time.monotonic() + 300\n"
        "    while time.monotonic() < deadline:  # until the hunt stops this run\n"
        "        time.sleep(0.05)\n")
    out = tmp_path / "out"
    argv, env = hunt_command(tmp_path, 3, str(tmp_path / "test_broken.py"), str(tmp_path / "test_block.py"),
                             "-n", "2", "--dist", "loadfile")
    if stop != "sigterm":  # in the foreground of a terminal, whose ^C reaches the whole process group
        argv = ["script", "-qfec", shlex.join(argv), "/dev/null"]
    hunt_run = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while not any(re.search(r"^[.F]*F", log.read_text(), re.M) for log in out.glob("run-1-*.log")):
            assert time.monotonic() < deadline, "the run never reported test_broken's failure"
            assert hunt_run.poll() is None, hunt_run.stdout.read()
            time.sleep(0.05)  # polling the run's log for the failure's F
        if stop == "sigterm":
            hunt_run.terminate()
            stdout, _ = hunt_run.communicate(timeout=120)
        else:
            stdout, _ = hunt_run.communicate("\x03", timeout=120)
    finally:
        hunt_run.kill()
    assert hunt_run.returncode == 130, stdout
    [run] = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert [f.rsplit("/", 1)[-1] for f in run["failures"]] == ["test_broken.py::test_broken"], run
    assert f"seed {run['seed']}: FAILED " in stdout and "test_broken.py::test_broken" in stdout
    assert "flake_hunt: stopped in run 1 of 3" in stdout
