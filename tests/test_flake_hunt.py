"""scripts/flake_hunt.sh (issue 67) as a developer runs it: a command N times in random orders
beside a CPU hog, each failure printed with the seed that reproduces its order, a summary line per
run in runs.jsonl, exit 1 when any run failed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("pytest_randomly")  # the dev extra installs it


def hunt(tmp_path: Path, runs: int, test_file: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OUT": str(tmp_path / "out"), "HOGS": "1",
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    return subprocess.run(["bash", str(ROOT / "scripts" / "flake_hunt.sh"), str(runs), "--", str(test_file),
                           "-p", "no:cacheprovider"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


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
