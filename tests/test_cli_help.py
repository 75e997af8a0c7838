"""`gameeval --help`: one line per command; every command's --help explains every argument."""

import re

import pytest

from pytest_gameeval.cli import COMMANDS, main

SUBCOMMANDS = {name: [name] for name in COMMANDS} | {"report": ["report", "diff"], "report merge": ["report", "merge"]}


def help_text(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def test_top_level_help_has_one_line_per_command(capsys):
    text = help_text([], capsys)
    listed = re.findall(r"^  (\S+)\s{2,}(\S.*)$", text.split("commands:", 1)[1], re.M)
    assert [name for name, _ in listed] == list(COMMANDS)
    assert "validity" in dict(listed)


def undocumented(text: str) -> list[str]:
    """Argument entries of an argparse help text that have no description."""
    lines = text.splitlines()
    missing, in_args = [], False
    for i, line in enumerate(lines):
        if line.endswith(":") and not line.startswith(" "):
            in_args = line in ("options:", "positional arguments:")
            continue
        if not in_args or not re.match(r"^  \S", line):
            continue
        described = re.search(r"\S\s{2,}\S", line.strip()) or (
            i + 1 < len(lines) and re.match(r"^\s{6,}\S", lines[i + 1]))
        if not described:
            missing.append(line.strip())
    return missing


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_option_is_explained(command, capsys):
    text = help_text(SUBCOMMANDS[command], capsys)
    assert undocumented(text) == [], text
