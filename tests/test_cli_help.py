"""`gameeval --help`: one line per command; every command's --help explains every argument."""

import re

import pytest

from pytest_gameeval.cli import COMMANDS, main

SUBCOMMANDS = {name: [name] for name in COMMANDS} | {"report": ["report", "diff"], "report merge": ["report", "merge"]}
SUBCOMMANDS |= {f"history {action}": ["history", action] for action in ("list", "show", "compare", "page", "add")}


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


@pytest.mark.parametrize("argv, usage, message", [
    (["--verison", "report"], "usage: gameeval ",
     "gameeval: error: unknown option --verison (did you mean --version?)"),
    (["report", "diff", "--formt", "json", "a", "b"], "usage: gameeval report diff ",
     "gameeval report diff: error: unknown option --formt (did you mean --format?)"),
    (["report", "--formt", "diff", "a", "b"], "usage: gameeval report ",
     "gameeval report: error: unknown option --formt"),
    (["estimate", "openai/x", "--limt", "3"], "usage: gameeval estimate ",
     "gameeval estimate: error: unknown option --limt (did you mean --limit?)"),
    (["reprot", "diff"], "usage: gameeval ", "gameeval: error: argument COMMAND: invalid choice: 'reprot'"),
])
def test_an_unknown_command_or_option_is_named_by_the_command_that_got_it(argv, usage, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage) and message in err.splitlines()[-1], err


def test_known_options_abbreviations_and_negative_numbers_still_parse(tmp_path, capsys):
    """argparse's unique prefixes (--form), values after `=` and negative numbers are not unknown options."""
    from pytest_gameeval.cli.parser import CommandParser, unknown_option

    parser = CommandParser(prog="x")
    parser.add_argument("--format")
    parser.add_argument("--seed", type=int)
    parser.add_argument("-T", action="append")
    parser.add_argument("files", nargs="*")
    assert unknown_option(parser, ["--form", "json", "--seed", "-1", "-Tmax_rounds=5", "a", "--format=md"]) is None
    args = parser.parse_args(["--form", "json", "--seed", "-1", "-Tmax_rounds=5", "a"])
    assert (args.format, args.seed, args.T, args.files) == ("json", -1, ["max_rounds=5"], ["a"])
    assert unknown_option(parser, ["a", "--", "--anything"]) is None


def test_the_installed_command_names_a_mistyped_option(tmp_path):
    import subprocess

    result = subprocess.run(["gameeval", "report", "diff", "--formt", "json", "a", "b"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    last = result.stderr.splitlines()[-1]
    assert last == "gameeval report diff: error: unknown option --formt (did you mean --format?)"
