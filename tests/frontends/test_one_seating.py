"""One seat binding (issue 39): `inspect eval` and the pytest plugin decide who plays every seat with
the same function (engine/seating.py), so the same case played through both has the same seat table,
and the log and the report say it the same way."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

import pytest_gameeval.backends.registry  # noqa: F401  (the scripted provider, registered once)
import pytest_gameeval.run.runner  # noqa: F401  (imported once: pytester's in-process runs)
from pytest_gameeval.analysis.report.file import read_report
from pytest_gameeval.engine.seating import Seating, seat_table, why_played
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.inspect_ext.solver import RECORD_KEY
from pytest_gameeval.inspect_ext.task import game_task

pytest_plugins = ["pytester"]

ORACLE, RANDOM = "gameeval/scripted/oracle", "gameeval/scripted/random"
# game, evaluated model, bound roles, options, how its seats come to be played
CASES = {
    # the unbound answerer is the game's reference policy
    "askguess": ("gameeval/scripted", {}, {"max_rounds": 3}, {"evaluated", "reference"}),
    # a list role binds two seats in order; the third seat of the list is unbound: self-play
    "age": ("gameeval/scripted", {"players": [ORACLE, RANDOM]}, {"max_rounds": 2}, {"evaluated", "bound", "self-play"}),
}


def _inspect_record(tmp_path, game: str) -> dict:
    model, roles, options, _ = CASES[game]
    (log,) = inspect_eval(game_task(game, **options), model=model, model_roles=roles or None, limit=1, epochs=1,
                          log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    (sample,) = read_eval_log(log.location, resolve_attachments=True).samples
    card = next(e.data for e in sample.events if e.event == "info" and e.source.startswith("Setup"))
    return {**sample.metadata[RECORD_KEY], "card": card}


def _pytest_run(pytester, game: str) -> tuple[dict, dict]:
    model, roles, options, _ = CASES[game]
    args = ["--gameeval-games", game, "--gameeval-model", model, "--gameeval-limit", "1", "--gameeval-only",
            "--gameeval-report", "r.json", "-p", "no:cacheprovider"]
    args += [
        a
        for role, bound in roles.items()
        for a in ("--gameeval-role", f"{role}={','.join(bound) if isinstance(bound, list) else bound}")
    ]
    args += [a for name, value in options.items() for a in ("--gameeval-option", f"{name}={value}")]
    result = pytester.runpytest_inprocess(*args)
    assert result.ret == 0, result.stdout.str()[-3000:]
    (record,) = [json.loads(line) for line in (pytester.path / "r.json.records.jsonl").read_text().splitlines()]
    (case,) = read_report(pytester.path / "r.json")["cases"]
    return record, case


@pytest.mark.parametrize("game", sorted(CASES))
def test_the_same_case_has_the_same_seat_table_through_inspect_and_pytest(pytester, tmp_path, game):
    logged = _inspect_record(tmp_path, game)
    reported, case = _pytest_run(pytester, game)
    assert (logged["instance_id"], logged["epoch"], logged["seed"]) == (
        reported["instance_id"],
        reported["epoch"],
        reported["seed"],
    )
    table = seat_table(logged["seats"])
    assert table == seat_table(reported["seats"])
    assert {row["played_as"] for row in table} == CASES[game][3]
    # the report's cases and the log's setup card say it in the same words
    assert {name: seat["played_as"] for name, seat in case["seats"].items()} == {
        row["seat"]: row["played_as"] for row in table
    }
    for row in table:
        line = next(line for line in logged["card"].splitlines() if line.startswith(f"| {row['seat']} |")).replace(
            "\\|", "|"
        )
        assert row["model"] in line and (
            row["played_as"] == "evaluated" or why_played(row["model_role"], row["played_as"]) in line
        )
    # the notes on unbound roles differ only in how each front end binds a role
    assert [n.replace("--model-role", "--gameeval-role") for n in logged["notes"]] == reported["notes"]
    assert reported["events"] == logged["events"]  # the same seats, so the same game


def test_seating_decides_each_role_once_in_the_documented_order():
    spec = get_spec("askguess")
    notes: list[str] = []
    seats = Seating(spec, spec.parse_options({}), evaluated="E", bound={}, reference="R", self_play="E",
                    flag="--x", notes=notes)
    assert (seats.choose("evaluated").plays, seats.choose("evaluated").played_as) == ("E", "evaluated")
    assert (seats.choose("answerer").plays, seats.choose("answerer").played_as) == ("R", "reference")
    seats.choose("answerer")
    assert notes == ["model role 'answerer' is not bound (--x answerer=MODEL): played by the reference policy R "
                     "(opponents=reference, the default; opponents=self for self-play)"]
    self_play = Seating(spec, spec.parse_options({"opponents": "self"}), evaluated="E", bound={}, reference="R",
                        self_play="E", flag="--x")
    assert (self_play.choose("answerer").plays, self_play.choose("answerer").played_as) == ("E", "self-play")
    bound = Seating(
        spec, spec.parse_options({}), evaluated="E", bound={"answerer": "B"}, reference="R", self_play="E", flag="--x"
    )
    assert (bound.choose("answerer").plays, bound.choose("answerer").played_as, bound.notes) == ("B", "bound", [])
    nobody = Seating(
        spec,
        spec.parse_options({"opponents": "self"}),
        evaluated=None,
        bound={},
        reference="R",
        self_play=None,
        flag="--x",
    )
    assert nobody.choose("answerer").plays is None and nobody.notes == []
