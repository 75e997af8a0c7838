"""Kendall's tau and RBO between rankings; the `gameeval rank-correlate` command."""

from __future__ import annotations

import json
import random

import pytest
from scipy import stats

from pytest_gameeval.cli import main as cli
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.metrics.rank_correlation import compare, kendall, ranking_from_json, rbo, rbo_test


def _rbo_by_definition(s, t, p):
    """Webber et al. eq. 32 written directly with set overlaps (slow, obviously right)."""
    short, long_ = (s, t) if len(s) <= len(t) else (t, s)
    ns, nl = len(short), len(long_)
    x = lambda d: len(set(short[:min(d, ns)]) & set(long_[:d]))  # noqa: E731
    a = sum(x(d) / d * p**d for d in range(1, nl + 1))
    b = sum(x(ns) * (d - ns) / (ns * d) * p**d for d in range(ns + 1, nl + 1))
    return (1 - p) / p * (a + b) + ((x(nl) - x(ns)) / nl + x(ns) / ns) * p**nl


def test_rbo_known_values():
    assert rbo(list("abcde"), list("abcde")) == pytest.approx(1.0)
    assert rbo(list("abc"), list("xyz")) == 0.0
    assert rbo(list("abcde"), list("bcdae"), 0.9) == pytest.approx(0.828, abs=5e-4)
    # top-weighted: a swap at the top costs more than a swap at the bottom
    assert rbo(list("abcdef"), list("bacdef")) < rbo(list("abcdef"), list("abcdfe"))


def test_rbo_matches_the_definition_on_uneven_lists():
    rng = random.Random(7)
    items = list("abcdefghijklmnop")
    for _ in range(100):
        s, t = rng.sample(items, rng.randint(1, 12)), rng.sample(items, rng.randint(1, 12))
        p = rng.choice([0.5, 0.9, 0.98])
        assert rbo(s, t, p) == pytest.approx(_rbo_by_definition(s, t, p), abs=1e-12)
    with pytest.raises(GameEvalError):
        rbo(["a"], ["a"], 1.0)


def test_rbo_permutation_test_is_seeded_and_sensible():
    same = rbo_test(list("abcdefghij"), list("abcdefghij"), permutations=300, seed=1)
    assert same["value"] == pytest.approx(1.0) and same["p_value"] < 0.01
    reversed_ = rbo_test(list("abcdefghij"), list("jihgfedcba"), permutations=300, seed=1)
    assert reversed_["p_value"] > 0.5
    assert rbo_test(list("abcdef"), list("badcfe"), permutations=200, seed=3) == rbo_test(
        list("abcdef"), list("badcfe"), permutations=200, seed=3
    )


def test_kendall_one_sided_on_common_models():
    ours = ranking_from_json({"m1": 0.9, "m2": 0.7, "m3": 0.5, "m4": 0.2, "mine-only": 0.1})
    ext = ranking_from_json(["m1", "m2", "m3", "m4", "theirs-only"])
    k = kendall(ours, ext)
    assert k["tau"] == pytest.approx(1.0) and k["n"] == 4 and k["p_one_sided"] == pytest.approx(1 / 24)
    backwards = kendall(ours, ranking_from_json(["m4", "m3", "m2", "m1"]))
    assert backwards["tau"] == pytest.approx(-1.0) and backwards["p_one_sided"] == pytest.approx(1.0)
    assert kendall(ours, ranking_from_json(["m1", "x"]))["tau"] is None


def test_ranking_formats():
    assert ranking_from_json({"scores": {"a": 3, "b": 1, "c": 2}, "higher_is_better": False}).order == ["b", "c", "a"]
    assert ranking_from_json({"ranking": ["x", "y"]}).order == ["x", "y"]
    for bad in ([], ["a", "a"], {"a": "high"}, 3):
        with pytest.raises(GameEvalError):
            ranking_from_json(bad)


def test_command_prints_json(tmp_path, capsys):
    (tmp_path / "ours.json").write_text(json.dumps({"a": 0.8, "b": 0.6, "c": 0.4, "d": 0.1}))
    (tmp_path / "ext.json").write_text(json.dumps(["a", "c", "b", "d", "e"]))
    assert (
        cli(["rank-correlate", str(tmp_path / "ours.json"), str(tmp_path / "ext.json"), "--permutations", "200"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["common"] == ["a", "b", "c", "d"] and out["only_external"] == ["e"]
    assert out["kendall"]["tau"] == pytest.approx(2 / 3)
    assert out["rbo"]["p"] == 0.9 and out["rbo"]["permutations"] == 200 and 0 < out["rbo"]["p_value"] <= 1
    assert out == {
        **compare(
            ranking_from_json({"a": 0.8, "b": 0.6, "c": 0.4, "d": 0.1}),
            ranking_from_json(["a", "c", "b", "d", "e"]),
            permutations=200,
        )
    }


def test_command_bad_input_is_one_line(tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{not json")
    assert cli(["rank-correlate", str(tmp_path / "bad.json"), str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "malformed JSON" in err[0]


@pytest.mark.parametrize("external, tau, p_exact, p_paper", [
    (["a", "b", "d", "c", "e"], 0.8, 0.042, 0.0057),  # one swapped pair out of 10
    (["b", "a", "d", "c", "e"], 0.6, 0.117, 0.0287),  # two
])
def test_gamearena_table_of_kendall_significance(tmp_path, capsys, external, tau, p_exact, p_paper):
    """GameArena App. D's worked numbers at n = 5: its one-tailed z-approximation beside scipy's exact p."""
    (tmp_path / "ours.json").write_text(json.dumps(["a", "b", "c", "d", "e"]))
    (tmp_path / "ext.json").write_text(json.dumps(external))
    assert cli(["rank-correlate", str(tmp_path / "ours.json"), str(tmp_path / "ext.json"), "--permutations", "10"]) == 0
    k = json.loads(capsys.readouterr().out)["kendall"]
    assert k["tau"] == pytest.approx(tau) and round(k["p_one_sided"], 3) == p_exact
    assert k["z_paper"] == pytest.approx(tau / (2 / 20) ** 0.5)
    # the paper printed p from z rounded to two decimals (1.90, 2.53); unrounded z differs by < 0.0003
    assert round(float(stats.norm.sf(round(k["z_paper"], 2))), 4) == p_paper
    assert k["p_one_sided_z_paper"] == pytest.approx(p_paper, abs=3e-4)
