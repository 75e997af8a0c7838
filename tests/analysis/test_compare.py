"""`gameeval compare A B`: two models on the same cases and seeds through inspect, one verdict per
game from the same function as the gate and `report diff`, JSON + markdown + PNG."""

from __future__ import annotations

import json

from pytest_gameeval.cli.compare import main
from pytest_gameeval.analysis.verdict import BETTER, SAME, UNDECIDED, WORSE

ORACLE, RANDOM = "gameeval/scripted/oracle", "gameeval/scripted/random"


def _compare(tmp_path, a: str, b: str, *extra: str) -> dict:
    out = tmp_path / "cmp"
    assert main([a, b, "--games", "askguess", "--limit", "20", "--out", str(out), "--display", "none", *extra]) == 0
    assert (out / "compare.png").stat().st_size > 0 and (out / "compare.md").read_text().startswith("A: ")
    return json.loads((out / "compare.json").read_text())


def test_oracle_against_random_is_told_apart_both_ways(tmp_path, capsys):
    worse = _compare(tmp_path / "1", ORACLE, RANDOM)["games"]["askguess"]
    assert worse["result"] == WORSE and worse["paired"] and list(worse["metrics"]) == ["played_quality"]
    assert worse["outcomes"]["counts"]["ST"]["old"] == 20  # the breakdown of both sides, A as "old"
    assert worse["seats"]["A"] and worse["seats"]["B"]  # who played every seat, per side
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
