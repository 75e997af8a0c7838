"""The contamination probe's statistics (issue 69): Welch's terms as scipy gives them, "no sign of
memorisation" reachable and the twins that would decide an undecided probe, and a small seeded
simulation of both error rates (benchmarks/probe_rates.py runs the full table in docs/fresh-cases.md)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from pytest_gameeval.analysis.rankings.probe_test import NO_SIGN, SIGNAL, UNDECIDED, probe, twin_means, welch


def _bench():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "probe_rates.py"
    spec = importlib.util.spec_from_file_location("bench_probe_rates", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_welchs_terms_are_scipys():
    rng = np.random.default_rng(3)
    a, b = rng.beta(1, 2, 30), rng.beta(2, 2, 45)
    gap, se, df = welch(a, b)
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert gap / se == pytest.approx(ref.statistic) and df == pytest.approx(ref.df)
    ci = ref.confidence_interval(0.9)
    assert probe(a, b, alpha=0.05, delta=0.1)["ci"] == pytest.approx([ci.low, ci.high])


def test_each_twin_counts_once_whatever_its_epochs():
    cases = [{"case": "apple#1", "status": "played", "scores": {"h": 1.0}},
             {"case": "apple#2", "status": "played", "scores": {"h": 0.0}},
             {"case": "pear#1", "status": "played", "scores": {"h": 0.25}},
             {"case": "fig#1", "status": "error"}]
    assert twin_means(cases, "h") == [0.5, 0.25]


def test_the_three_verdicts_and_the_twins_that_would_decide():
    rng = np.random.default_rng(5)
    fair = [rng.beta(2, 2, 200) for _ in range(2)]
    assert probe(*fair, alpha=0.05, delta=0.1)["verdict"] == NO_SIGN
    assert probe(np.minimum(fair[0] + 0.5, 1), fair[1], alpha=0.05, delta=0.1)["verdict"] == SIGNAL
    few = probe(fair[0][:30], fair[1][:30], alpha=0.05, delta=0.1)
    assert few["verdict"] == UNDECIDED and few["twins_needed"] > 30
    # at the twins it names (for 80 % if the gap seen were the true one), the same players are mostly decided
    need = few["twins_needed"]
    decided = [probe(rng.beta(2, 2, need), rng.beta(2, 2, need), alpha=0.05, delta=0.1)["verdict"] != UNDECIDED
               for _ in range(40)]
    assert sum(decided) >= 20, (need, sum(decided))


def test_a_side_that_never_varies_is_undecided_not_cleared():
    result = probe([0.0] * 50, [0.0] * 50, alpha=0.05, delta=0.1)
    assert result["verdict"] == UNDECIDED and "no spread" in result["reason"]
    assert probe([0.5], [0.5, 0.4], alpha=0.05, delta=0.1)["verdict"] == UNDECIDED


def test_simulated_error_rates_keep_their_promises():
    """A false signal (a fair player, or a true gap of exactly +δ) and a false "no sign" (a gap of
    ±δ, or the knowing player's +0.45) each at most alpha: 150 probes a cell at 71 twins a side
    (Ask-Guess's), three headline kinds; a rate is over its promise only when a binomial test says
    so at 0.001."""
    bench = _bench()
    args = bench.parser().parse_args(["--reps", "150", "--sizes", "71"])
    for row in bench.table(args):
        for verdict, promise in row["promises"].items():
            assert not bench.over(row, verdict, promise), row
    # the simulation sees a broken test: a no-sign rate of 0.2 at the edge would fail it
    assert bench.over({"rates": {NO_SIGN: 0.2}, "reps": 150}, NO_SIGN, 0.05)


def test_each_verdicts_line_says_what_it_rests_on():
    from pytest_gameeval.analysis.rankings.contamination import headline_line

    rng = np.random.default_rng(8)
    fair = [rng.beta(2, 2, 200) for _ in range(2)]
    cleared = headline_line("askguess", {"metric": "played_quality", **probe(*fair, alpha=0.05, delta=0.1)})
    assert cleared.startswith("askguess: no sign of memorisation beyond ±0.1: played_quality published ")
    assert "90% interval: both one-sided tests at alpha 0.05 put the difference within ±0.1" in cleared
    tie = fair[0][:30]  # the same values on both sides: a gap of 0, too few twins to show it
    few = {"metric": "played_quality", **probe(tie, tie[::-1], alpha=0.05, delta=0.1)}
    line = headline_line("askguess", few, twins_available=30)
    assert line.startswith("askguess: undecided: ") and f"about {few['twins_needed']} twins a side" in line
    assert "the game has 30 at this seed: play each more often (--epochs" in line
    easier = {"metric": "played_quality", **probe(fair[0][:30] * 0.3, fair[1][:30], alpha=0.05, delta=0.1)}
    assert "the fresh twins were easier by more than 0.1" in headline_line("askguess", easier)
