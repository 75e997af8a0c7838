"""Game versions (issue 36): the committed table (games/versions.json) is held against the code,
so a change to a game without a new version fails here with the command that gives it one."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_gameeval
from pytest_gameeval.engine.versions import code_text, fingerprint_parts, fingerprints, read_table
from pytest_gameeval.games import version_table
from pytest_gameeval.games.registry import GAMES, get_spec

PACKAGE = Path(pytest_gameeval.__file__).parent
BIN = Path(sys.executable).parent


def test_every_game_is_the_code_its_version_names():
    found = version_table.problems()
    assert not found, "\n".join(found)


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "pytest_gameeval"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return root


def test_a_changed_prompt_without_a_new_version_fails_and_the_bump_command_fixes_it(tmp_path):
    root = _copy(tmp_path)
    prompts = root / "games" / "askguess" / "prompts.py"
    text = prompts.read_text()
    assert text.count("as the Questioner. ") == 1
    prompts.write_text(text.replace("as the Questioner. ", "as the Questioner. Please be polite. "))
    found = version_table.problems(root)
    now = read_table(PACKAGE)["games"]["askguess"]["version"]
    assert len(found) == 1 and found[0].startswith(f"askguess changed since its version {now}"), found
    assert "gameeval versions --bump askguess --note" in found[0]
    table = version_table.bump(["askguess"], "the questioner is asked politely; played_quality may move", root=root)
    assert table["games"]["askguess"]["version"] == now + 1 and table["package"] != read_table(PACKAGE)["package"]
    assert version_table.problems(root) == []
    assert f"### Version {now + 1} (pytest-gameeval" in (root / "games" / "askguess" / "README.md").read_text()
    assert f'__version__ = "{table["package"]}"' in (root / "__init__.py").read_text()
    # a second change on the same branch, before landing: --amend keeps the new version
    prompts.write_text(prompts.read_text().replace("Please be polite.", "Be kind."))
    assert (
        version_table.bump(["askguess"], "also kindly", amend=True, root=root)["games"]["askguess"]["version"]
        == now + 1
    )
    assert version_table.problems(root) == []


def test_comments_docstrings_and_line_endings_do_not_count_code_does(tmp_path):
    source = (
        '"""doc # not a comment"""\nx = "a # b"  # a comment\n\n\n'
        'def f():\n    """d\n    # e"""\n    return b"#"  # z\n'
    )
    assert code_text(source) == 'x = "a # b"\ndef f():\n    return b"#"'
    assert code_text(source.replace("\n", "\r\n")) == code_text(source)
    root = _copy(tmp_path)
    before = fingerprints(list(GAMES.values()), root)
    for path in [*root.rglob("*.py"), *root.rglob("*.jsonl")]:  # every text with CRLF line endings
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    runner = root / "engine" / "runner.py"
    runner.write_text(runner.read_text() + "\n# a new comment\n")
    assert fingerprints(list(GAMES.values()), root) == before
    runner.write_text(runner.read_text() + "\nRETRIES_NOTE = 1\n")  # the turn loop's code: every game changes
    after = fingerprints(list(GAMES.values()), root)
    assert all(after[p] != before[p] for p in GAMES.values())


def test_what_a_fingerprint_covers():
    parts = fingerprint_parts(GAMES["spygame"])
    assert (
        "pytest_gameeval/games/spygame/prompts.py" in parts
        and "pytest_gameeval/games/spygame/data/pairs.jsonl" in parts
    )
    assert "pytest_gameeval.games.spyfall.rules" in parts  # SpyGame plays through SpyFall's rules
    assert {
        "pytest_gameeval.engine.runner",
        "pytest_gameeval.engine.degenerate",
        "pytest_gameeval.players.model",
    } <= set(parts)
    assert not any(p.endswith("README.md") for p in parts)
    assert "pytest_gameeval.games.registry" not in parts and "pytest_gameeval" not in parts
    assert "pytest_gameeval.games.spygame" not in fingerprint_parts(GAMES["askguess"])


def test_every_spec_names_its_version_and_gameeval_version_lists_them():
    table = read_table()
    for game in GAMES:
        spec = get_spec(game)
        assert (
            spec.version == str(table["games"][game]["version"])
            and spec.fingerprint == table["games"][game]["fingerprint"]
        )
    proc = subprocess.run([str(BIN / "gameeval"), "--version"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert (
        lines[0]
        == f"gameeval (pytest-gameeval) {pytest_gameeval.__version__}"
        == f"gameeval (pytest-gameeval) {table['package']}"
    )
    assert [line.split()[0] for line in lines[2:]] == list(GAMES)
    assert all(line.split()[-1] == str(table["games"][line.split()[0]]["version"]) for line in lines[2:])


@pytest.mark.parametrize("argv, message", [
    (["--bump", "askgess", "--note", "x"], "unknown game(s) askgess"),
    (["--bump", "askguess"], "--note: say what changed"),
    (["--note", "x"], "--note and --amend go with --bump GAME"),
])
def test_versions_command_bad_input_is_one_line(argv, message):
    proc = subprocess.run([str(BIN / "gameeval"), "versions", *argv], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip().startswith("gameeval: error:") and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
