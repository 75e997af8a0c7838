"""The pytest terminal summary reads at a glance: per game, the headline and each outcome rate
with a 95% interval and its count; a gate that could not decide says the sample was too small."""

import re

import pytest_gameeval.backends.registry  # noqa: F401  (imported once: pytester runs in-process)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval.analysis.report.file import read_report
from pytest_gameeval.metrics.stats import rate
from pytest_gameeval.pytest_plugin.summary import game_lines

pytest_plugins = ["pytester"]

ORACLE = "gameeval/scripted/oracle"
ASKGUESS = ["--gameeval-games", "askguess", "--gameeval-role", f"answerer={ORACLE}", "-p", "no:cacheprovider",
            "--gameeval-option", "max_rounds=5"]


def test_rates_with_intervals_per_game(pytester):
    result = pytester.runpytest_inprocess(
        *ASKGUESS, "--gameeval-model", "gameeval/scripted/random", "--gameeval-limit", "6"
    )
    report = read_report(pytester.path / "reports" / "gameeval-report.json")
    text = result.stdout.str()
    played = [c for c in report["cases"] if c["status"] == "played"]
    st = sum(c["scores"]["ST"] for c in played)
    expected = rate(int(st), len(played))
    line = next(ln for ln in text.splitlines() if re.match(r"\s+ST\s", ln))
    assert f"{100 * expected['value']:.1f}%" in line and f"{int(st)}/{len(played)}" in line
    assert f"[{100 * expected['ci'][0]:.1f}%, {100 * expected['ci'][1]:.1f}%]" in line
    assert "95% interval" in text
    headline = next(ln for ln in text.splitlines() if re.match(r"\s+played_quality\s", ln))
    assert "(headline)" in headline and "(headline)" not in line
    for label in ("EE", "RLE", "AME", "CE"):
        assert re.search(rf"^\s+{label}\s+\d+\.\d%\s+\[", text, re.M)


def test_an_undecided_gate_says_the_sample_was_too_small(pytester):
    pytester.runpytest_inprocess(*ASKGUESS, "--gameeval-model", ORACLE, "--gameeval-limit", "3",
                                 "--gameeval-report", "base.json")
    result = pytester.runpytest_inprocess(*ASKGUESS, "--gameeval-model", ORACLE, "--gameeval-limit", "3",
                                          "--gameeval-baseline", "base.json", "--gameeval-gate-looks", "1")
    text = result.stdout.str()
    assert re.search(r"askguess\.played_quality .* paired\s+undecided$", text, re.M)
    assert "sample too small to decide: askguess (3 games)" in text
    assert "gate passed (gameeval/scripted/oracle vs gameeval/scripted/oracle): every game undecided" in text


def test_a_game_with_no_played_case_says_so():
    game = {"cases_played": 0, "cases_error": 2, "rate_keys": ["win"]}
    assert game_lines("taboo", game, [{"status": "error"}], "win")[-1] == "  no game was played: nothing to estimate"


def test_a_non_binary_headline_gets_a_t_interval():
    cases = [{"status": "played", "scores": {"win": w, "age": a}} for w, a in [(1, 0.2), (0, 0.4), (1, 0.9)]]
    lines = game_lines("age", {"cases_played": 3, "cases_error": 0, "rate_keys": ["win"]}, cases, "age")
    age = next(ln for ln in lines if ln.startswith("  age "))
    assert "0.5" in age and "(headline)" in age and "%" not in age
    # the answer first (issue 68): the block's first line already holds the headline and its interval
    assert re.fullmatch(r"age: 3 played, 0 harness errors; age 0\.5 \[-?[\d.]+, [\d.]+\] over 3 games \(headline\)",
                        lines[0])
