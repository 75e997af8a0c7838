"""`gameeval validity`: a bounded run separates strong from weak scripted players; the tests and
the stopping rule behave as documented."""

import json

import pytest

from pytest_gameeval.analysis.rankings.validity import CONTRASTS, compare_arms, run, run_contrast
from pytest_gameeval.cli import main as cli_main
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import GAMES, get_spec


def test_every_game_has_a_contrast_of_two_existing_strengths():
    assert set(CONTRASTS) == set(GAMES)
    for name, c in CONTRASTS.items():
        spec = get_spec(name)
        assert c.strong != c.weak
        for strengths in (c.strong, c.weak):
            assert set(strengths.values()) <= set(spec.scripted), name


def test_fisher_and_welch_on_known_arms():
    assert compare_arms("binary", [1.0] * 10, [0.0] * 10) == pytest.approx(2 / 184756)  # 2 / C(20,10)
    assert compare_arms("binary", [1.0, 0.0] * 5, [0.0, 1.0] * 5) == 1.0
    assert compare_arms("continuous", [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]) == pytest.approx(1.0)
    assert compare_arms("continuous", [2.0, 2.0], [0.0, 0.0]) == 0.0  # both constant and different
    assert compare_arms("continuous", [float("nan")] * 3, [1.0, 2.0]) == 1.0  # too few values: no claim


def test_bounded_run_separates_two_games_and_stops_early():
    result = run(["akinator", "askguess"], max_games=80, look_every=10)
    assert result["all_separated"]
    for r in result["results"]:
        assert r["separated"] and r["p_nominal"] < r["threshold_per_look"] == pytest.approx(0.01 / 4)
        assert r["games_needed"] == 2 * 10 * len(r["looks"]) < 80  # stopped at the first look that crossed
        assert all(look["p_nominal"] >= r["threshold_per_look"] for look in r["looks"][:-1])
        assert r["strong_summary"]["value"] > r["weak_summary"]["value"]
        assert r["strong_summary"]["method"] == "wilson" and r["weak_summary"]["ci"][0] <= r["weak_summary"]["value"]


def test_continuous_contrast_uses_welch():
    r = run_contrast(CONTRASTS["spygpt"], max_games=20, look_every=10)
    assert r["test"] == "welch_t" and r["separated"] and r["strong_summary"]["method"] == "t"
    clustered = r["strong_clustered_by_row"]
    assert clustered["method"] == "cluster_bootstrap" and clustered["value"] == pytest.approx(
        r["strong_summary"]["value"]
    )


def test_no_separation_runs_the_whole_budget():
    same = CONTRASTS["taboo"].__class__("taboo", "win", "binary", {"evaluated": "random", "user": "random"},
                                        {"evaluated": "random", "user": "random"})
    r = run_contrast(same, max_games=40, look_every=10)
    assert not r["separated"] and r["games_needed"] == 40 and len(r["looks"]) == 2
    assert r["p_nominal"] == 1.0  # identical arms with identical seeds


def test_command_prints_json_and_bad_input_is_one_error(capsys):
    assert (
        cli_main(["validity", "akinator", "--max-games", "20", "--look-every", "10"]) == 0
    )  # halving vs random: 10/10 vs 0/10
    out = json.loads(capsys.readouterr().out)
    assert out["results"][0]["game"] == "akinator" and out["results"][0]["games_needed"] == 20
    assert cli_main(["validity", "chess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown game" in err
    with pytest.raises(GameEvalError):
        run_contrast(CONTRASTS["taboo"], max_games=10, look_every=10)
