"""The suite runs in a random order (pytest-randomly, in the dev extra), but a pytest that a test
starts runs in file order unless it asks for `-p randomly` (conftest's autouse fixture): tests read
inner runs' output line by line, and a shuffled inner run made CI red by its seed."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]
pytest.importorskip("pytest_randomly")

TWO_TESTS = "def test_a(): pass\ndef test_b(): pass\n"


def test_a_pytester_run_is_in_file_order_unless_it_asks(pytester):
    pytester.makepyfile(TWO_TESTS)
    assert "randomly-seed" not in pytester.runpytest_inprocess("-v").stdout.str()
    assert "randomly-seed" in pytester.runpytest_inprocess("-v", "-p", "randomly").stdout.str()


def test_a_subprocess_run_is_in_file_order_unless_it_asks(tmp_path):
    (tmp_path / "test_two.py").write_text(TWO_TESTS)
    def run(*args):
        return subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *args, str(tmp_path)],
                              capture_output=True, text=True, cwd=tmp_path, timeout=300).stdout
    assert "randomly-seed" not in run()
    assert "randomly-seed" in run("-p", "randomly")
