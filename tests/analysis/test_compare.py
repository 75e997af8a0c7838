"""`gameeval compare A B`: two models on the same cases and seeds through inspect, one verdict per
game from the same function as the gate and `report diff`, JSON + markdown + PNG."""

from __future__ import annotations

import json

import pytest

from pytest_gameeval.analysis.verdicts.judge import BETTER, SAME, UNDECIDED, WORSE
from pytest_gameeval.cli.compare import main
from pytest_gameeval.games.registry import get_spec

ORACLE, RANDOM = "gameeval/scripted/oracle", "gameeval/scripted/random"


def _compare(tmp_path, a: str, b: str, *extra: str) -> dict:
    out = tmp_path / "cmp"
    assert main([a, b, "--games", "askguess", "--limit", "20", "--out", str(out), "--display", "none", *extra]) == 0
    assert (out / "compare.png").stat().st_size > 0 and (out / "compare.md").read_text().startswith("A: ")
    return json.loads((out / "compare.json").read_text())


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_oracle_against_random_is_told_apart_both_ways(tmp_path, capsys):
    worse = _compare(tmp_path / "1", ORACLE, RANDOM)["games"]["askguess"]
    assert (
        worse["result"] == WORSE and worse["paired"] and list(worse["metrics"]) == ["played_quality", "legal_first_try"]
    )
    assert worse["outcomes"]["counts"]["ST"]["old"] == 20  # the breakdown of both sides, A as "old"
    assert worse["seats"]["A"] and worse["seats"]["B"]  # who played every seat, per side
    version = get_spec("askguess").version
    assert worse["versions"] == {"A": version, "B": version}
    out = capsys.readouterr().out
    assert f"{RANDOM} vs {ORACLE}: askguess: worse" in out and f"`{ORACLE}` → `{RANDOM}`" in out
    better = _compare(tmp_path / "2", RANDOM, ORACLE)["games"]["askguess"]
    assert better["result"] == BETTER
    assert better["metrics"]["played_quality"]["change"] == -worse["metrics"]["played_quality"]["change"]


def test_a_model_against_itself_is_never_better_or_worse(tmp_path):
    result = _compare(tmp_path, ORACLE, ORACLE)
    game = result["games"]["askguess"]
    assert game["result"] in (SAME, UNDECIDED) and game["paired"]
    assert game["metrics"]["played_quality"]["change"] == 0


def test_bad_input_is_one_line(tmp_path):
    import pytest

    from pytest_gameeval.engine.errors import GameEvalError

    with pytest.raises(GameEvalError, match="unknown game 'nosuch'"):
        main([ORACLE, RANDOM, "--games", "nosuch", "--out", str(tmp_path)])
    with pytest.raises(GameEvalError, match="bluffing has no scripted strength 'oracle'"):
        main([ORACLE, RANDOM, "--games", "bluffing", "--out", str(tmp_path)])


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_resumed_logs_of_another_game_version_are_incomparable_unless_allowed(tmp_path):
    import pytest
    from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

    from pytest_gameeval.engine.errors import GameEvalError

    _compare(tmp_path, ORACLE, RANDOM)
    out = tmp_path / "cmp"
    logs = list(list_eval_logs(str(out / "logs")))
    old = read_eval_log(logs[0])
    old.eval.metadata["gameeval_version"] = "0"  # as an earlier pytest-gameeval wrote it
    write_eval_log(old, logs[0].name)
    args = [ORACLE, RANDOM, "--games", "askguess", "--out", str(out), "--analyze-only"]
    with pytest.raises(
        GameEvalError,
        match=r"askguess: incomparable game versions: the logs in .* are of version (0 \(A\)|.*0 \(B\)).*"
        r"this pytest-gameeval plays version .*re-make them",
    ):
        main(args)
    assert main([*args, "--allow-version-change"]) == 0
    result = json.loads((out / "compare.json").read_text())
    assert len(result["version_changes"]) == 1 and result["version_changes"][0].startswith("askguess ")
