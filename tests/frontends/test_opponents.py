"""Declared opponents (issue 25): an unbound seat is the game's reference policy where the game has a
faithful one, self-play only when asked (or where no reference exists), and reports say who played
every seat and refuse to compare runs whose opponents differ."""

from __future__ import annotations

import json

import pytest

import pytest_gameeval.backends.registry  # noqa: F401  (imported once: pytester's in-process runs)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval.analysis.report.file import diff_reports, read_report
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import GAMES, get_spec, reference_model

pytest_plugins = ["pytester"]

ORACLE = "gameeval/scripted/oracle"
REFERENCE = "gameeval/scripted/reference"
WITH_REFERENCE = {"askguess": "answerer", "akinator": "user", "taboo": "user", "bluffing": "user", "spygame": "host"}


@pytest.mark.parametrize("game", list(GAMES))
def test_each_game_declares_its_reference_opponents(game):
    spec = get_spec(game)
    default = spec.parse_options({})
    assert default.opponents == "reference"
    if game in WITH_REFERENCE:
        role = WITH_REFERENCE[game]
        assert spec.reference_roles == (role,) and "reference" in spec.scripted
        assert reference_model(spec, role, default) == REFERENCE
        assert reference_model(spec, role, spec.parse_options({"opponents": "self"})) is None
    else:  # no faithful reference: self-play, declared (docs/fidelity.md, Opponents)
        assert spec.reference_roles == ()
        assert all(reference_model(spec, r, default) is None for r in spec.bindable_roles())


def test_the_paper_protocol_keeps_the_papers_choice():
    assert get_spec("askguess").parse_options({"protocol": "paper"}).opponents == "self"  # GameEval: one model
    assert get_spec("askguess").parse_options({"protocol": "paper", "opponents": "reference"}).opponents == "reference"
    for game in ("taboo", "akinator", "bluffing", "spygame"):  # a person / fixed hosts in the papers
        assert get_spec(game).parse_options({"protocol": "paper"}).opponents == "reference"


def _run(pytester, game, report, *args):
    result = pytester.runpytest_inprocess(
        "--gameeval-games",
        game,
        "--gameeval-model",
        ORACLE if game == "askguess" else "gameeval/scripted",
        "--gameeval-limit",
        "2",
        "--gameeval-option",
        "max_rounds=3" if game != "spygame" else "max_rounds=2",
        "--gameeval-report",
        report,
        "-p",
        "no:cacheprovider",
        *args,
    )
    return result, read_report(pytester.path / report)


@pytest.mark.parametrize("game", ["askguess", "taboo"])
def test_the_report_says_who_played_every_seat_and_self_play_is_explicit(pytester, game):
    role = WITH_REFERENCE[game]
    result, default = _run(pytester, game, "default.json")
    assert result.ret == 0, result.stdout.str()
    assert default["games"][game]["opponents"] == {role: REFERENCE}
    assert any("reference policy gameeval/scripted/reference" in n for n in default["games"][game]["notes"])
    seats = {s["role"]: s["model"] for c in default["cases"] for s in c["seats"].values()}
    assert seats[role] == REFERENCE
    result, self_play = _run(pytester, game, "self.json", "--gameeval-option", "opponents=self")
    assert result.ret == 0
    assert self_play["games"][game]["opponents"] == {role: "self"}
    with pytest.raises(GameEvalError, match="opponents='reference'->'self'"):
        diff_reports(default, self_play)
    # a role bound by the user wins over the reference
    result, bound = _run(pytester, game, "bound.json", "--gameeval-role", f"{role}=gameeval/scripted/random")
    assert bound["games"][game]["opponents"] == {role: "gameeval/scripted/random"}
    with pytest.raises(
        GameEvalError, match=f"different opponents \\(old: {role}={REFERENCE}; new: {role}=gameeval/scripted/random\\)"
    ):
        diff_reports(default, bound)


def test_a_gate_against_a_baseline_with_other_opponents_fails_and_says_so(pytester):
    result, _ = _run(pytester, "askguess", "base.json")
    assert result.ret == 0
    result, _ = _run(pytester, "askguess", "new.json", "--gameeval-role", "answerer=gameeval/scripted/random",
                     "--gameeval-baseline", "base.json")
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        [
            "gameeval gate FAILED*askguess: different opponents (old: answerer=gameeval/scripted/reference; "
            "new: answerer=gameeval/scripted/random)*"
        ]
    )


def test_a_game_without_a_reference_stays_self_play_declared(pytester):
    result = pytester.runpytest_inprocess(
        "--gameeval-games",
        "spygpt",
        "--gameeval-model",
        "gameeval/scripted/oracle",
        "--gameeval-limit",
        "1",
        "--gameeval-report",
        "r.json",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 0
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["games"]["spygpt"]["opponents"] == {"judge": "self"}
    assert any("self-play: spygpt has no reference policy" in n for n in report["games"]["spygpt"]["notes"])
