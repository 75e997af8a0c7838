"""`pytest --help` as a user reads it: every --gameeval-no-... flag says what it does itself
(issue 39: --gameeval-no-only showed --gameeval-only's help behind "do not")."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


def option_help(text: str) -> dict[str, str]:
    """flag -> its help, one line, from pytest's --help output (wrapped lines joined)."""
    entries: dict[str, str] = {}
    flag = None
    for line in text.splitlines():
        start = re.match(r"^  (--[\w-]+)(?:=\S+)?(?:\s{2,}(\S.*))?$", line)
        if start:
            flag = start.group(1)
            entries[flag] = start.group(2) or ""
        elif flag and re.match(r"^\s{6,}\S", line):
            entries[flag] = f"{entries[flag]} {line.strip()}".strip()
        else:
            flag = None
    return entries


@pytest.fixture(scope="module")
def help_of(tmp_path_factory) -> dict[str, str]:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"],
        cwd=tmp_path_factory.mktemp("help"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return option_help(run.stdout)


def test_no_only_has_its_own_help(help_of):
    assert "--gameeval-only" in help_of and "--gameeval-no-only" in help_of
    assert help_of["--gameeval-no-only"].startswith("collect test files as usual beside the game cases")
    assert "collect no test files" not in help_of["--gameeval-no-only"]


def test_every_off_flag_says_what_it_does(help_of):
    off = sorted(flag for flag in help_of if flag.startswith("--gameeval-no-"))
    assert len(off) >= 5  # cache, only, resume, gate-allow-missing, allow-version-change
    for flag in off:
        on = flag.replace("--gameeval-no-", "--gameeval-")
        assert on in help_of, flag
        assert help_of[flag] and help_of[on] not in help_of[flag], f"{flag} repeats {on}'s help: {help_of[flag]!r}"
