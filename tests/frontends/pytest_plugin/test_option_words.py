"""Options as pytest users write them (issue 53): `--gameeval-X VALUE` works where pytest allows it;
where pytest's rootdir logic took the value for a test path (an existing path outside the project),
the one error line names the option whose value it took and says to write `--gameeval-X=VALUE`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PRICES = "gameeval/scripted: {input: 0, output: 0, input_cache_write: 0, input_cache_read: 0}\n"


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                           "--gameeval-only", *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"})


def project(tmp_path: Path) -> Path:
    (tmp_path / "prices.yaml").write_text(PRICES)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pytest.ini").write_text("[pytest]\ngameeval_limit = 2\n")
    (proj / "local-prices.yaml").write_text(PRICES)
    return proj


@pytest.mark.slow  # .ci/run runs it
def test_two_word_options_work_inside_the_project(tmp_path):
    proj = project(tmp_path)
    done = run(proj, "--gameeval-model", "gameeval/scripted", "--gameeval-games", "askguess",
               "--gameeval-cost-config", "local-prices.yaml")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout.strip().splitlines()[-1]  # the ini file's gameeval_limit was read


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_a_value_taken_for_a_path_names_its_own_option(tmp_path):
    proj = project(tmp_path)
    prices = str(tmp_path / "prices.yaml")
    done = run(proj, "--gameeval-model=gameeval/scripted", "--gameeval-games", "askguess",
               "--gameeval-cost-config", prices)
    assert done.returncode == 4
    [line] = [x for x in done.stderr.splitlines() if x.strip()]
    assert line.startswith(f"ERROR: gameeval: --gameeval-cost-config {prices} (two words) made pytest take {prices} "
                           "for a test path") and line.endswith(f"write --gameeval-cost-config={prices}"), line
    fixed = run(proj, "--gameeval-model=gameeval/scripted", "--gameeval-games", "askguess",
                f"--gameeval-cost-config={prices}")
    assert fixed.returncode == 0 and "2 passed" in fixed.stdout, fixed.stdout[-2000:] + fixed.stderr[-2000:]
