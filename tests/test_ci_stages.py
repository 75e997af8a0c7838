"""Every test marked slow runs in some stage of `.ci/run` (issue 60): a slow test listed nowhere runs
nowhere, since the README's command leaves slow tests out."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ci_commands() -> str:
    """.ci/run without its comments."""
    return "\n".join(line.split("#", 1)[0] for line in (ROOT / ".ci" / "run").read_text().splitlines())


def test_every_file_with_slow_tests_is_run_by_a_ci_stage():
    ci = _ci_commands()
    listed = set(re.findall(r"tests/[\w/]+\.py", ci))
    slow = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
            if re.search(r"pytest\.mark\.slow\b", p.read_text(encoding="utf-8"))}
    assert slow - listed == set(), f"slow tests no stage of .ci/run runs: {sorted(slow - listed)}"


def test_a_test_one_stage_deselects_runs_in_a_stage_of_its_own():
    ci = _ci_commands()
    for test in re.findall(r"--deselect\s+(\S+)", ci):
        assert len(re.findall(re.escape(test), ci)) >= 2, f".ci/run leaves out {test}: run it in a stage, or remove it"
