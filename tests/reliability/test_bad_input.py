"""Bad input is one clear error line (issue 9, item 7): malformed data files (named, with the
line), unknown or mistyped task arguments, unreadable or mismatched baseline reports, an unwritable
report path. Non-zero exit where there is a command, and no partial file left behind.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import pytest_gameeval.backends.registry  # noqa: F401  (imported once for in-process pytester runs)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval import cli
from pytest_gameeval.engine.data import game_data_dir
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import GAMES, get_spec

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
NO_DATA_FILES = {"tofukingdom"}  # deals are generated from the seed; there is no file to corrupt


def _corrupt_copy(tmp_path: Path) -> Path:
    """A copy of every game's shipped data/ (as $GAMEEVAL_DATASETS/GAME/) with line 2 of every data file broken."""
    copy = tmp_path / "datasets"
    for game, package in GAMES.items():
        if game_data_dir(package).is_dir():
            shutil.copytree(game_data_dir(package), copy / game)
    for file in list(copy.rglob("*.jsonl")) + list(copy.rglob("*.json")):
        lines = file.read_text(encoding="utf-8").splitlines()
        if file.suffix == ".jsonl":
            lines.insert(1, '{"label": "broken", "aliases": [')
        else:
            lines = ["{", '  "oops": ,'] + lines
        file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return copy


@pytest.mark.parametrize("game", sorted(GAMES))
def test_malformed_data_file_names_file_and_line(game, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(_corrupt_copy(tmp_path)))
    spec = get_spec(game)
    options = spec.parse_options({})
    if game in NO_DATA_FILES:
        assert spec.rows(options)
        return
    with pytest.raises(GameEvalError) as info:
        spec.rows(options)
    message = str(info.value)
    assert "\n" not in message
    assert str(tmp_path) in message and ":2:" in message, message


@pytest.mark.parametrize("game", sorted(GAMES))
def test_unknown_and_mistyped_task_arguments_are_one_clear_error(game):
    spec = get_spec(game)
    with pytest.raises(GameEvalError, match="unknown task argument") as info:
        spec.parse_options({"no_such_argument": 1})
    assert "\n" not in str(info.value) and "no_such_argument" in str(info.value)
    with pytest.raises(GameEvalError, match="seed") as info:
        spec.parse_options({"seed": "not-a-number"})
    assert "\n" not in str(info.value)


def _report_diff(capsys, *paths) -> tuple[int, str]:
    code = cli.main(["report", "diff", *map(str, paths)])
    err = capsys.readouterr().err.strip()
    return code, err


def test_unreadable_or_mismatched_baseline_report(tmp_path, capsys):
    good = ROOT / "reports" / "baseline-local-askguess.json"
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema": "pytest-gameeval/report", ')
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": "someone-else/report", "schema_version": 99}))
    for bad in (tmp_path / "missing.json", broken, other):
        code, err = _report_diff(capsys, bad, good)
        assert code != 0
        assert err.startswith("gameeval: error:") and "\n" not in err, err
        assert bad.name in err


def test_unwritable_report_path_fails_cleanly(pytester):
    (pytester.path / "not_a_dir").write_text("a file where a directory should be")
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--gameeval-games", "askguess", "--gameeval-model", "gameeval/scripted/oracle",
        "--gameeval-limit", "1", "--gameeval-option", "max_rounds=2", "--gameeval-report", "not_a_dir/report.json",
    )
    assert result.ret != 0
    text = result.stdout.str() + result.stderr.str()
    errors = [line for line in text.splitlines() if "not_a_dir" in line and "rror" in line]
    assert errors, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    leftovers = [p.name for p in pytester.path.rglob("*") if ".tmp" in p.name or p.name.endswith(".records.jsonl")]
    assert leftovers == []


def test_report_path_that_is_a_directory_leaves_no_temporary_file(tmp_path):
    from pytest_gameeval.analysis.report.file import write_json_atomic

    target = tmp_path / "report.json"
    target.mkdir()
    with pytest.raises(GameEvalError, match="cannot write report") as info:
        write_json_atomic(target, {"a": 1})
    assert "\n" not in str(info.value)
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_missing_api_key_is_one_plain_line(pytester, monkeypatch, capsys):
    """inspect's 'ERROR: Unable to initialise OpenAI client' plus rich markup on a second line
    became one line without '[bold][blue]', in the pytest plugin and in `gameeval tournament`."""
    for key in ("OPENAI_API_KEY", "AZUREAI_OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--gameeval-only",
        "--gameeval-games",
        "askguess",
        "--gameeval-model",
        "openai/gpt-4o-mini",
        "--gameeval-limit",
        "1",
    )
    assert result.ret != 0
    # stdout and stderr apart: the model is now made at the first game (issue 59), after pytest's
    # summary line, which ends stdout without a newline of its own in pytester's capture
    text = result.stdout.str() + "\n" + result.stderr.str()
    lines = [line for line in text.splitlines() if "OPENAI_API_KEY" in line]
    assert len(lines) == 1, text[-3000:]
    assert lines[0].startswith(
        "ERROR: gameeval: openai/gpt-4o-mini: Unable to initialise OpenAI client: No OPENAI_API_KEY"
    )
    assert "[bold]" not in text and "ERROR: Unable" not in text
    capsys.readouterr()  # drop what the subprocess printed
    code = cli.main(["tournament", "spyfall", "--models", "gameeval/scripted,openai/gpt-4o-mini", "--limit", "1",
                     "--log-dir", str(pytester.path / "logs")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "[bold]" not in err
    assert err.startswith("gameeval: error: openai/gpt-4o-mini: Unable to initialise OpenAI client: No OPENAI_API_KEY")


def test_plain_error_keeps_brackets_that_are_not_markup():
    from pytest_gameeval.inspect_ext.cli_errors import plain_error

    assert plain_error(ValueError("ERROR: bad\n\nrow [0, 1] in [bold]x[/bold]")) == "bad: row [0, 1] in x"
    assert plain_error(ValueError("closing [/b] alone")) == "closing [/b] alone"
