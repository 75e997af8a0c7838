"""Model-role expressions resolve the same way in both front ends."""

import json

import pytest_gameeval.backends.registry  # noqa: F401
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval.analysis.report.file import read_report
from pytest_gameeval.engine.roles import lookup_role, role_names
from pytest_gameeval.games.registry import get_spec

pytest_plugins = ["pytester"]


def test_plain_list_and_alternative_roles():
    bindings = {"answerer": "A", "players": ["P0", "P1"], "seat3": "S3"}
    assert lookup_role("answerer", bindings) == "A"
    assert lookup_role("players[1]", bindings) == "P1"
    assert lookup_role("players[2]", bindings) is None
    assert lookup_role("players", bindings) == "P0"
    assert lookup_role("seat3|players[1]", bindings) == "S3"
    assert lookup_role("seat2|players[0]", bindings) == "P0"
    assert lookup_role("judge", bindings) is None
    assert role_names("seat2|players[0]") == ["seat2", "players"]


def test_bindable_roles_include_roles_chosen_by_options():
    assert get_spec("spyfall").bindable_roles() == {"spy", "villager"}
    assert {"players", "seat2", "seat4"} <= get_spec("age").bindable_roles()
    assert get_spec("askguess").bindable_roles() == {"answerer"}


def test_plugin_binds_the_spy_side_when_villagers_are_evaluated(pytester):
    result = pytester.runpytest_inprocess(
        "--gameeval-model", "gameeval/scripted", "--gameeval-games", "spyfall", "--gameeval-limit", "1",
        "--gameeval-option", "spyfall.evaluated=villager", "--gameeval-role", "spy=gameeval/scripted/strong",
        "--gameeval-only", "-p", "no:cacheprovider",
    )
    result.assert_outcomes(passed=1)
    records = [
        json.loads(line)
        for line in (pytester.path / "reports" / "gameeval-report.json.records.jsonl").read_text().splitlines()
    ]
    (record,) = records
    models = {seat["role"]: seat["model"] for seat in record["seats"]}
    assert models == {"spy": "gameeval/scripted/strong", "villager": "gameeval/scripted"}
    assert read_report(pytester.path / "reports" / "gameeval-report.json")["games"]["spyfall"]


def test_plugin_rejects_a_role_no_selected_game_has(pytester):
    result = pytester.runpytest_inprocess(
        "--gameeval-model",
        "gameeval/scripted",
        "--gameeval-games",
        "askguess",
        "--gameeval-role",
        "answerr=gameeval/scripted",
        "--gameeval-only",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--gameeval-role answerr: no selected game has this model role*"])
