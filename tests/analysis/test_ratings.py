"""Bradley–Terry ratings: maximum likelihood and bootstrap intervals."""

from __future__ import annotations

import math
import random

import pytest

from pytest_gameeval.metrics.ratings import bradley_terry, win_probability


def simulate(true: dict[str, float], n: int, seed: int) -> list[list[tuple[str, str]]]:
    rng = random.Random(seed)
    games = []
    for _ in range(n):
        a, b = rng.sample(sorted(true), 2)
        p = 1 / (1 + math.exp(-(true[a] - true[b])))
        games.append([(a, b)] if rng.random() < p else [(b, a)])
    return games


def test_two_models_match_the_closed_form():
    games = [[("A", "B")]] * 7 + [[("B", "A")]] * 3
    r = bradley_terry(games, prior=0.0, n_resamples=0)
    diff = r["ratings"]["A"]["rating"] - r["ratings"]["B"]["rating"]
    assert diff == pytest.approx(math.log(7 / 3), abs=1e-4)
    assert win_probability(r, "A", "B") == pytest.approx(0.7, abs=1e-4)
    assert r["ratings"]["A"]["rating"] == pytest.approx(-r["ratings"]["B"]["rating"])  # centred


def test_recovers_the_true_order_with_intervals_covering_the_truth():
    true = {"A": 1.0, "B": 0.0, "C": -1.0}
    r = bradley_terry(simulate(true, 400, seed=1), n_resamples=100, seed=3)
    assert r["ranking"] == ["A", "B", "C"]
    for m, v in r["ratings"].items():
        low, high = v["ci"]
        assert low < v["rating"] < high
        assert low - 0.1 < true[m] < high + 0.1
    assert r["ratings"]["A"]["ci"][0] > r["ratings"]["C"]["ci"][1]  # clearly separated


def test_bootstrap_is_seeded():
    games = simulate({"A": 0.5, "B": 0.0, "C": 0.0}, 60, seed=2)
    assert bradley_terry(games, n_resamples=50, seed=7) == bradley_terry(games, n_resamples=50, seed=7)


def test_perfect_record_stays_finite_and_models_without_games_are_listed():
    r = bradley_terry([[("A", "B")]] * 5, models=["A", "B", "C"], n_resamples=20)
    assert math.isfinite(r["ratings"]["A"]["rating"]) and r["ratings"]["A"]["rating"] > 1
    assert (
        r["ratings"]["C"]["rating"] == pytest.approx(0.0, abs=1e-6)
        or r["ratings"]["C"]["rating"] > r["ratings"]["B"]["rating"]
    )
    assert r["ranking"][0] == "A"


def test_multi_comparison_games_resampled_as_units():
    # a three-camp game: the winner beats both losers
    games = [[("A", "B"), ("A", "C")], [("B", "A"), ("B", "C")], [("A", "B"), ("A", "C")]]
    r = bradley_terry(games, n_resamples=30)
    assert r["games"] == 3 and r["comparisons"] == 6
    assert r["ranking"][0] == "A" and r["ranking"][-1] == "C"


def test_empty():
    assert bradley_terry([])["ratings"] == {}


def test_tiers_print_ties_as_ties_and_order_only_separated_intervals():
    from pytest_gameeval.metrics.ratings import ranking_text, tiers

    def bt(**entries):
        return {"ratings": {m: {"rating": r, "ci": ci} for m, (r, ci) in entries.items()}}

    # equal ratings (every model won as often as it lost): one tier, whatever the names' order
    tied = bt(strong=(0.0, [-1.5, 1.3]), random=(0.0, [-1.5, 1.6]), first=(0.0, [-1.4, 1.3]))
    assert tiers(tied) == [["first", "random", "strong"]]
    assert ranking_text(tiers(tied)) == "first = random = strong"
    # A's interval lies above B's and C's; B and C overlap: A > B = C
    split = bt(A=(2.0, [1.0, 3.0]), B=(-0.5, [-1.5, 0.5]), C=(-1.5, [-2.5, -0.2]))
    assert tiers(split) == [["A"], ["B", "C"]]
    assert ranking_text(tiers(split)) == "A > B = C"
    # different ratings but no intervals (too few games): nothing is ordered
    assert tiers(bt(A=(1.0, [None, None]), B=(-1.0, [None, None]))) == [["A", "B"]]
    # fully separated
    assert tiers(bt(A=(2.0, [1.5, 2.5]), B=(0.0, [-0.5, 0.5]), C=(-2.0, [-2.5, -1.5]))) == [["A"], ["B"], ["C"]]


def test_bradley_terry_result_carries_tiers():
    r = bradley_terry([[("A", "B")], [("B", "A")]] * 3, ["A", "B"], n_resamples=50)
    assert [sorted(t) for t in r["tiers"]] == [["A", "B"]]  # one win each way: a tie
