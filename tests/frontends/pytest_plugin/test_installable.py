"""What a user who installed the plugin into their own project meets: their own data, bad data
that fails only the game's item, option typos caught at start with or without a model, and one
error line from inspect's CLI even under --display none. (The wheel itself: .ci/wheel-check.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pytest_gameeval.backends.registry  # noqa: F401  (imported once for pytester's in-process runs)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval import __version__
from pytest_gameeval.analysis.report.file import read_report

pytest_plugins = ["pytester"]

BIN = Path(sys.executable).parent
USER_TEST = "def test_the_users_own_code():\n    assert 1 + 1 == 2\n"
PAIRS = (
    '{"id": "tea-coffee", "spy": "tea", "villager": "coffee"}\n'
    '{"id": "violin-cello", "spy": "violin", "villager": "cello"}\n'
)
BROKEN = '{"id": "tea-coffee", "spy": "tea", "villager": "coffee"}\n{"id": "a-b", "spy": "a"}\n'


def test_a_users_pairs_file_drives_spyfall(pytester):
    pytester.makepyfile(USER_TEST)
    (pytester.path / "my_pairs.jsonl").write_text(PAIRS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-v", "--gameeval-model", "gameeval/scripted",
                                          "--gameeval-games", "spyfall", "--gameeval-data", "spyfall=my_pairs.jsonl")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(
        ["*gameeval::spyfall[[]tea-coffee-fwd-t0[]] PASSED*", "*gameeval::spyfall[[]violin-cello-rev-t0[]] PASSED*"]
    )
    report = read_report(pytester.path / "reports" / "gameeval-report.json")
    assert report["games"]["spyfall"]["dataset"]["rows"] == 4
    assert {c["row"] for c in report["cases"]} == {
        "tea-coffee-fwd",
        "tea-coffee-rev",
        "violin-cello-fwd",
        "violin-cello-rev",
    }


def test_a_broken_data_file_fails_only_its_games_item_and_the_suite_runs(pytester):
    pytester.makepyfile(USER_TEST)
    (pytester.path / "broken.jsonl").write_text(BROKEN)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-v", "--gameeval-model", "gameeval/scripted",
                                          "--gameeval-games", "askguess,spyfall", "--gameeval-limit", "1",
                                          "--gameeval-data", "spyfall=broken.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2, failed=1)  # the user's test and askguess's case; spyfall's item
    result.stdout.fnmatch_lines(["*test_the_users_own_code PASSED*", "*gameeval::spyfall[[]all-cases[]] FAILED*",
                                 f"gameeval: {pytester.path / 'broken.jsonl'}:2: missing key 'villager'"])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--gameeval-games", "askgess"], "unknown game(s) askgess"),
        (["--gameeval-option", "askguess.nosuch=1"], "no selected game has an option 'nosuch'"),
        (["--gameeval-option", "max_rounds=many"], "max_rounds='many' must be of type int"),
        (["--gameeval-role", "answerer=gameeval/scripted/orakle"], "gameeval/scripted/STRENGTH takes one of"),
        (["--gameeval-data", "spyfal=my_pairs.jsonl"], "unknown game 'spyfal'"),
        (
            ["--gameeval-data", "tofukingdom=my_pairs.jsonl", "--gameeval-games", "tofukingdom"],
            "no selected game has an option 'data'",
        ),
    ],
)
@pytest.mark.parametrize("model", [[], ["--gameeval-model", "gameeval/scripted"]], ids=["no-model", "model"])
def test_an_option_typo_is_one_usage_error_at_start(pytester, args, message, model):
    pytester.makepyfile(USER_TEST)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", *model, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and message in errors[0] and errors[0].startswith("ERROR: gameeval:"), result.stderr.lines


def test_the_fixture_skips_without_a_model_for_an_unbound_role(pytester):
    pytester.makepyfile("""
        from pytest_gameeval.players.scripted import ReplayPlayer

        def test_answerer(gameeval_play):  # self-play asked for: the answerer needs a model
            gameeval_play(
                "askguess", "apple", roles={"evaluated": ReplayPlayer(["Is it an apple?"])},
                options={"opponents": "self"},
            )

        def test_reference_answerer(gameeval_play):  # by default the reference policy answers
            record = gameeval_play("askguess", "apple", roles={"evaluated": ReplayPlayer(["Is it an apple?"])})
            assert record.label == "ST" and record.seat("Answerer")["model"] == "gameeval/scripted/reference"
    """)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs", "-m", "not gameeval")
    result.assert_outcomes(skipped=1, passed=1)  # no model: no game items to deselect (a quiet guest)
    result.stdout.fnmatch_lines(["*no model to play model role 'answerer'*"])


def _inspect(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "broken.jsonl").write_text(BROKEN)
    return subprocess.run(
        [str(BIN / "inspect"), "eval", *args, "--display", "none", "--limit", "1", "--log-dir", str(tmp_path / "logs")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["gameeval/askguess", "--model", "gameeval/nonexistent"], "gameeval: unknown model gameeval/nonexistent"),
        (["gameeval/askguess", "--model", "gameeval/scripted/orakle"], "gameeval/scripted/STRENGTH takes one of"),
        (
            ["gameeval/askguess", "--model", "gameeval/scripted", "-T", "nosuch=1"],
            "gameeval: unknown task argument(s) nosuch",
        ),
        (
            ["gameeval/askguess", "--model", "gameeval/scripted", "-T", "max_rounds=many"],
            "max_rounds='many' must be of type int",
        ),
        (
            ["gameeval/spyfall", "--model", "gameeval/scripted", "-T", "data=broken.jsonl"],
            "broken.jsonl:2: missing key 'villager'",
        ),
    ],
)
def test_inspect_prints_one_error_line_under_display_none(tmp_path, args, message):
    proc = _inspect(tmp_path, *args)
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert proc.returncode != 0 and len(lines) == 1 and message in lines[0], lines


def test_gameeval_version():
    proc = subprocess.run([str(BIN / "gameeval"), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.splitlines()[0] == f"gameeval (pytest-gameeval) {__version__}"
    assert "  askguess     version " in proc.stdout  # and each game's version (tests/games/test_versions.py)
