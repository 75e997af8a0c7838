"""Report JSON, diff and the sequential gate's statistics: pure functions, synthetic reports."""

from __future__ import annotations

import json
import os
import random

import pytest
from scipy import stats

from pytest_gameeval.analysis.report.file import (
    SCHEMA,
    SCHEMA_VERSION,
    diff_reports,
    incomparable,
    read_report,
    redact_args,
    render_markdown,
    write_json_atomic,
)
from pytest_gameeval.analysis.verdicts.gate import GameGate, GateMetric, look_ends, mean_change, rate_change, spent
from pytest_gameeval.analysis.verdicts.judge import (
    BETTER,
    MEAN,
    MISSING,
    RATE,
    SAME,
    TOO_FEW,
    UNDECIDED,
    WORSE,
    judge_game,
    judge_metric,
    outcome_breakdown,
    paired_rate,
)
from pytest_gameeval.cli.report import main
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.run.settings import GateConfig, shard_map


def cases(wins: list[float], rounds: list[float] | None = None, *, game: str = "g", seed0: int = 0) -> list[dict]:
    """Played cases of one game: a 0/1 "win" (outcome "won"/"lost"), a "loss" and a "rounds" mean;
    case i has seed seed0 + i (two lists with the same seed0 are the same cases, paired)."""
    rounds = rounds if rounds is not None else [3.0] * len(wins)
    return [{"id": f"{game}[c{i}]", "game": game, "case": f"c{i}", "seed": seed0 + i, "status": "played",
             "outcome": "won" if w == 1 else "lost", "scores": {"win": float(w), "loss": 1.0 - w, "rounds": r}}
            for i, (w, r) in enumerate(zip(wins, rounds))]


def make_report(wins: list[float], rounds: list[float] | None = None, *, game: str = "g", sha: str = "abc",
                options: dict | None = None, model: str = "m", seed0: int = 0, version: str | None = "1") -> dict:
    """A minimal valid report: one game whose cases carry a 0/1 "win" rate and a "rounds" mean."""
    return {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "package": {"version": "0"}, "models": {"evaluated": model},
        "settings": {}, "cases": cases(wins, rounds, game=game, seed0=seed0),
        "games": {game: {"version": version, "options": {"seed": 0, "limit": 0, "max_rounds": 5, **(options or {})},
                         "dataset": {"sha256": sha}, "metrics": {}, "rate_keys": ["win", "loss"],
                         "mean_keys": ["rounds"], "directions": {"win": "higher", "rounds": "lower"}, "usage": {}}},
    }


# -- statistics -------------------------------------------------------------------------------------


def test_newcombe_interval_matches_the_published_example():
    # Newcombe (1998), Stat Med 17:873, example (a): 56/70 vs 48/80, method 10: 0.0524 to 0.3339
    r = rate_change(48, 80, 56, 70)
    assert r["change"] == pytest.approx(0.2)
    assert r["ci"][0] == pytest.approx(0.0524, abs=5e-4)
    assert r["ci"][1] == pytest.approx(0.3339, abs=5e-4)
    assert 0 < r["p"] < 0.05


def test_mean_change_is_welch_and_refuses_zero_spread():
    r = mean_change([1.0, 2.0, 3.0, 4.0], [3.0, 4.0, 5.0, 6.0, 7.0])
    assert r["change"] == pytest.approx(2.5)
    assert r["ci"][0] < 2.5 < r["ci"][1]
    assert 0 < r["p"] < 0.1
    # identical constant samples: no interval rather than one of zero width
    assert mean_change([2.0, 2.0], [3.0, 3.0])["ci"] == [None, None]
    assert mean_change([2.0], [3.0, 4.0])["p"] is None


def test_paired_rate_is_exact_mcnemar_with_newcombes_paired_interval():
    # 20 pairs: 8 both won, 7 only the new run won, 1 only the old one, 4 neither
    old = [1] * 8 + [0] * 7 + [1] + [0] * 4
    new = [1] * 8 + [1] * 7 + [0] + [0] * 4
    r = paired_rate(old, new, 0.95)
    assert r["change"] == pytest.approx(6 / 20)
    assert r["p"] == pytest.approx(stats.binomtest(7, 8, 0.5).pvalue)
    assert r["ci"][0] < 0.3 < r["ci"][1]
    # the pairs' correlation narrows the interval below the independent one of the same shares
    independent = rate_change(sum(old), 20, sum(new), 20, 0.95)
    assert r["ci"][1] - r["ci"][0] < independent["ci"][1] - independent["ci"][0]
    # swapping the runs mirrors the interval
    back = paired_rate(new, old, 0.95)
    assert back["ci"] == pytest.approx([-r["ci"][1], -r["ci"][0]])


def test_judge_orients_by_direction_and_respects_the_tolerance():
    old, new = cases([1] * 30), cases([1] * 5 + [0] * 25)
    kw = dict(tolerance=0.1, alpha=0.01, beta=0.01, paired=True)
    assert judge_metric("win", old, new, higher_is_better=True, **kw)["verdict"] == WORSE
    # the same drop in a lower-is-better metric is an improvement
    assert judge_metric("win", old, new, higher_is_better=False, **kw)["verdict"] == BETTER
    # a drop smaller than the tolerance is never worse, however many games
    big_old, big_new = cases([1] * 500 + [0] * 500), cases([1] * 470 + [0] * 530, seed0=10_000)
    assert judge_metric("win", big_old, big_new, higher_is_better=True, tolerance=0.1, alpha=0.01, beta=0.01,
                        paired=False)["verdict"] == SAME


def test_no_comparison_is_worse_both_ways():
    """The issue's failure: each of two models 'regressed' against the other. Whatever the data,
    paired or not, at most one direction can be worse."""
    rng = random.Random(7)
    for trial in range(200):
        n = rng.randint(2, 30)
        a = [float(rng.random() < rng.random()) if trial % 2 else rng.random() for _ in range(n)]
        b = [float(rng.random() < rng.random()) if trial % 2 else rng.random() for _ in range(n)]
        for paired in (True, False):
            ca, cb = cases(a), cases(b, seed0=0 if paired else 1000)
            kw = dict(higher_is_better=True, tolerance=rng.choice([0.0, 0.1]), alpha=0.05, beta=0.1, paired=paired)
            there = judge_metric("win", ca, cb, **kw)["verdict"]
            back = judge_metric("win", cb, ca, **kw)["verdict"]
            assert not (there == WORSE and back == WORSE), (a, b, paired)
            assert (there == WORSE) == (back == BETTER) and (there == SAME) == (back == SAME)


def test_outcome_shares_are_tested_together_as_evidence():
    old, new = cases([1] * 20), cases([1] * 10 + [0] * 10)
    paired = outcome_breakdown(old, new, paired=True)
    assert paired["counts"] == {"lost": {"old": 0, "new": 10}, "won": {"old": 20, "new": 10}}
    assert paired["test"].startswith("Bowker") and paired["p"] == pytest.approx(stats.chi2.sf(10.0, 1))
    # ten pairs switched each way: symmetric, no evidence of a shift
    swapped = outcome_breakdown(cases([1] * 10 + [0] * 10), cases([0] * 10 + [1] * 10), paired=True)
    assert swapped["p"] == pytest.approx(1.0)
    independent = outcome_breakdown(old, cases([1] * 20, seed0=99), paired=False)
    assert independent["test"] == "one outcome only: nothing to test"


def test_spending_sums_to_alpha_and_looks_cover_every_case():
    assert sum(spent(0.05, j, 4) for j in range(1, 5)) == pytest.approx(0.05)
    assert spent(0.05, 1, 4) < spent(0.05, 4, 4)
    assert look_ends(10, 4) == [3, 5, 8, 10]
    assert look_ends(2, 4) == [1, 2]
    assert look_ends(7, 1) == [7]


def _run_gate(
    base: list[float], new: list[float], tolerance: float = 0.1, looks: int = 4, paired: bool = True
) -> GameGate:
    base_cases, new_cases = cases(base), cases(new, seed0=0 if paired else 10_000)
    gate = GameGate("g", [GateMetric("win", RATE, True, tolerance)], GateConfig(looks=looks), len(new),
                    baseline_played=len(base_cases))
    for end in gate.ends:
        gate.look(base_cases, new_cases[:end], end, last=end == len(new))
        if gate.stopped:
            break
    return gate


def test_gate_stops_early_on_a_planted_regression():
    gate = _run_gate([1] * 40, ([1, 0, 0, 0] * 10))
    assert gate.failed and gate.verdict == WORSE and gate.paired
    assert gate.games_used < 40  # the verdict did not need every game
    assert gate.verdicts["win"]["verdict"] == WORSE and gate.reason == "worse: win"


def test_gate_passes_noise_and_stops_early_when_clearly_the_same():
    # the same rate in both runs (different games): never worse
    noisy = _run_gate([1, 0, 0, 1, 1, 0, 1, 0] * 5, [0, 1, 1, 0, 1, 0, 0, 1] * 5, paired=False)
    assert not noisy.failed and noisy.verdict in (UNDECIDED, SAME)
    # the same games played alike: "same" as soon as the interval fits in the tolerance
    fine = _run_gate([1, 0] * 200, [1, 0] * 200, tolerance=0.1)
    assert not fine.failed and fine.verdict == SAME
    assert fine.games_used < 400


def test_gate_splits_alpha_over_metrics():
    metrics = [GateMetric("win", RATE, True, 0.1), GateMetric("rounds", MEAN, False, 1.0)]
    gate = GameGate("g", metrics, GateConfig(alpha=0.04, looks=1), 10)
    both = cases([1] * 10, [3.0, 4.0] * 5)
    gate.look(both, both, 10, last=True)
    assert gate.verdicts["win"]["alpha_spent"] == pytest.approx(0.02)


def test_shards_follow_run_order_and_keep_gated_games_whole():
    ids = (
        [f"gameeval::a[x{i}-t0]" for i in range(5)]
        + ["tests/test_x.py::test_y"]
        + [f"gameeval::b[y{i}-t0]" for i in range(3)]
    )
    shards = shard_map(ids, 2, gated_games={"b"})
    assert shards["gameeval::a[x0-t0]"] == shards["gameeval::a[x1-t0]"] != shards["gameeval::a[x2-t0]"]
    assert len({shards[i] for i in ids if "::b[" in i}) == 1
    assert "tests/test_x.py::test_y" not in shards


# -- report files ---------------------------------------------------------------------------------------


def test_redaction_keeps_secrets_out():
    args = [
        "--gameeval-model",
        "openai/gpt-4o",
        "--api-key",
        "abc123",
        "--gameeval-model-arg",
        "api_key=sk-abcdefghijklmnop",
        "token=xyz",
        "--x=sk-ABCDEFGHIJKLMNOPQ",
    ]
    text = " ".join(redact_args(args))
    for secret in ("abc123", "sk-abcdefghijklmnop", "xyz", "sk-ABCDEFGHIJKLMNOPQ"):
        assert secret not in text
    assert "openai/gpt-4o" in text


def test_atomic_write_never_leaves_a_partial_file(tmp_path):
    path = tmp_path / "r.json"
    write_json_atomic(path, {"a": float("nan"), "b": (1, 2)})
    assert json.loads(path.read_text()) == {"a": None, "b": [1, 2]}
    with pytest.raises(TypeError):
        write_json_atomic(path, {"a": object()})
    assert json.loads(path.read_text()) == {"a": None, "b": [1, 2]}  # the old file survived
    assert sorted(os.listdir(tmp_path)) == ["r.json"]  # no temporary file left behind


@pytest.mark.parametrize("content, message", [
    ("{", "not valid JSON"),
    ("[]", "not a gameeval report"),
    (json.dumps({"schema": "other"}), "not a gameeval report"),
    (json.dumps({"schema": SCHEMA, "schema_version": 99}), "schema version 99 is not supported"),
    (json.dumps({**make_report([1]), "games": []}), "field 'games'"),
])
def test_reading_a_bad_report_is_one_clear_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(GameEvalError) as e:
        read_report(path)
    assert message in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(GameEvalError, match="cannot read report"):
        read_report(tmp_path / "missing.json")


def test_report_roundtrip_validates(tmp_path):
    write_json_atomic(tmp_path / "r.json", make_report([1, 0, 1]))
    assert read_report(tmp_path / "r.json")["cases"][1]["scores"]["win"] == 0.0


def test_comparability():
    base = make_report([1, 0])
    assert incomparable(base, make_report([0, 1], options={"seed": 7, "limit": 2})) == []  # sampling differs: fine
    assert "different dataset" in incomparable(base, make_report([1], sha="zzz"))[0]
    assert "max_rounds" in incomparable(base, make_report([1], options={"max_rounds": 9}))[0]
    assert incomparable(base, make_report([1], game="h")) == []  # nothing in common: a missing game, not an error


# -- diff -------------------------------------------------------------------------------------------------


def test_diff_of_identical_reports_passes():
    r = make_report([1, 0] * 20, [3.0, 4.0] * 20)
    d = diff_reports(r, r)
    assert d["failing"] == [] and d["games"]["g"]["result"] == SAME and d["games"]["g"]["paired"]
    assert list(d["games"]["g"]["metrics"]) == ["win"]  # the headline (here: the first higher-is-better key)


def test_diff_names_a_planted_regression_and_both_models():
    old = make_report([1] * 30, [3.0, 4.0] * 15, model="gameeval/local/a.gguf@12345678")
    new = make_report([1] * 6 + [0] * 24, [6.0, 7.0] * 15, model="gameeval/local/b.gguf@9abcdef0")
    d = diff_reports(old, new, metrics={"g": {"rounds": (False, 0.5)}})
    assert d["worse"] == ["g"] and d["games"]["g"]["reason"] == "worse: win, rounds"
    text = render_markdown(d)
    assert "**worse**" in text and "won 30->6" in text
    row = next(line for line in text.splitlines() if line.startswith("| g |"))
    assert "gameeval/local/a.gguf@12345678" in row and "gameeval/local/b.gguf@9abcdef0" in row


def test_diff_ignores_noise():
    old = make_report([1, 0, 0, 1, 1, 0, 1, 0, 0, 1] * 3)
    new = make_report([0, 1, 1, 0, 0, 1, 1, 0, 1, 0] * 3, seed0=500)
    d = diff_reports(old, new)
    assert d["failing"] == [] and not d["games"]["g"]["paired"]


def test_report_cli(tmp_path, capsys):
    old, new, other = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "other.json"
    write_json_atomic(old, make_report([1] * 30))
    write_json_atomic(new, make_report([1] * 5 + [0] * 25))
    write_json_atomic(other, make_report([1] * 30, sha="different"))
    assert main(["diff", str(old), str(old)]) == 0
    assert "no game worse beyond its tolerance" in capsys.readouterr().out
    assert main(["diff", str(old), str(new), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["worse"] == ["g"]
    with pytest.raises(GameEvalError, match="not comparable: g: different dataset"):
        main(["diff", str(old), str(other)])
    with pytest.raises(GameEvalError, match="g.nope: not a score of g"):
        main(["diff", str(old), str(new), "--metric", "g.nope=higher"])


def test_gameeval_command_reports_incomparable_as_one_line(tmp_path, capsys):
    from pytest_gameeval.cli import main as cli

    old, other = tmp_path / "old.json", tmp_path / "other.json"
    write_json_atomic(old, make_report([1] * 3))
    write_json_atomic(other, make_report([1] * 3, sha="zzz"))
    assert cli(["report", "diff", str(old), str(other)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("gameeval: error: reports are not comparable: g: different dataset") and "\n" not in err


# -- a side with no evidence (issue 18) ---------------------------------------------------------------


def _unplayed(n: int) -> dict:
    report = make_report([1] * n)
    for c in report["cases"]:
        c["status"], c["scores"] = "error", None
    return report


def test_diff_shows_a_game_with_no_played_game_as_missing_and_exits_1(tmp_path, capsys):
    played, unplayed = tmp_path / "played.json", tmp_path / "unplayed.json"
    write_json_atomic(played, make_report([1] * 6))
    write_json_atomic(unplayed, _unplayed(6))
    assert main(["diff", str(unplayed), str(played)]) == 1
    out = capsys.readouterr().out
    assert "**missing** (old: no played game (6 harness errors))" in out
    assert "Missing: g (old: no played game (6 harness errors))." in out
    assert main(["diff", str(played), str(unplayed), "--allow-missing"]) == 0
    assert "new: no played game" in capsys.readouterr().out
    d = diff_reports(make_report([1] * 6), _unplayed(6))
    assert d["missing"] == {"g": "new: no played game (6 harness errors)"} and d["games"]["g"]["result"] == MISSING


def test_diff_shows_a_game_only_one_report_has_as_missing():
    both = make_report([1] * 6)
    both["games"]["h"] = make_report([1] * 6, game="h")["games"]["h"]
    both["cases"] += make_report([1] * 6, game="h")["cases"]
    d = diff_reports(make_report([1] * 6), both)
    assert d["missing"] == {"h": "old: not in the report"}
    assert d["games"]["h"]["result"] == MISSING and d["games"]["g"]["result"] != MISSING


def _gate(played: int, errors: int, baseline_played: int = 10) -> GameGate:
    gate = GameGate("g", [GateMetric("win", RATE, True, 0.1)], GateConfig(looks=1), played + errors,
                    baseline_played=baseline_played)
    gate.look(cases([1.0] * baseline_played), cases([1.0] * played), played + errors, last=True, games_played=played)
    return gate


def test_gate_fails_a_game_with_no_played_game_as_missing():
    gate = _gate(0, 6)
    assert (
        gate.failed
        and gate.verdict == MISSING
        and gate.reason == "missing: no played game (6 harness errors)"
    )
    assert gate.to_dict()["verdict"] == "fail" and gate.to_dict()["harness_errors"] == 6
    empty_baseline = _gate(6, 0, baseline_played=0)  # as report diff says it: the old side is missing
    assert empty_baseline.verdict == MISSING
    assert empty_baseline.reason == "missing: the baseline has no played game of it"


def test_gate_with_harness_errors_passes_only_on_shown_evidence():
    few = _gate(2, 4)
    assert few.verdicts["win"]["verdict"] == UNDECIDED
    assert few.failed and few.verdict == TOO_FEW and "only 2 of 6 games were played (4 harness errors)" in few.reason
    assert not _gate(6, 0).failed  # undecided with every game played: passes


def test_each_verdict_keeps_the_games_of_the_look_that_decided_it():
    """The gate table's games column showed the game's total where a metric was decided at an
    earlier look: 'win' is worse at once, 'rounds' needs every look."""
    metrics = [GateMetric("win", RATE, True, 0.0), GateMetric("rounds", MEAN, False, 0.0)]
    gate = GameGate("g", metrics, GateConfig(looks=4, alpha=0.1), 40)
    base = cases([1] * 40, [3.0, 4.0] * 20)
    new = cases([0] * 40, [4.0, 3.0] * 20)
    for end in gate.ends:
        gate.look(base, new[:end], end, last=end == 40)
    assert gate.verdicts["win"]["verdict"] == WORSE and gate.verdicts["win"]["games"] == gate.ends[0] == 10
    assert gate.verdicts["rounds"]["games"] == 40 == gate.games_used


def test_judge_game_gives_one_verdict_from_the_headline():
    old, new = cases([1] * 20), cases([0] * 20)
    g = judge_game("g", old, new, [("win", True, 0.1)], 0.025, 0.025)
    assert g["result"] == WORSE and g["paired"] and g["outcomes"]["counts"]["won"] == {"old": 20, "new": 0}
    assert judge_game("g", old[:1], new[:1], [("win", True, 0.1)], 0.025, 0.025)["result"] == TOO_FEW


def test_a_baseline_without_the_headline_says_to_regenerate_it():
    old, new = cases([1] * 6), cases([1] * 6)
    for c in old:
        del c["scores"]["win"]
    g = judge_game("g", old, new, [("win", True, 0.1)], 0.025, 0.025)
    assert g["result"] == TOO_FEW and "old report has no values of win" in g["reason"] and "regenerate" in g["reason"]
    gate = GameGate("g", [GateMetric("win", RATE, True, 0.1)], GateConfig(looks=1), 6, baseline_played=6)
    gate.look(old, new, 6, last=True)
    assert gate.failed and "regenerate the baseline" in gate.reason


# -- game versions (issue 36) ---------------------------------------------------------------------------


@pytest.mark.parametrize("old_version, new_version, shown", [("1", "2", "old: 1, new: 2"),
                                                             (None, "1", "old: unknown version, new: 1")])
def test_another_game_version_is_incomparable_in_one_line_unless_allowed(
    tmp_path, capsys, old_version, new_version, shown
):
    from pytest_gameeval.cli import main as cli

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    write_json_atomic(old, make_report([1] * 30, version=old_version))
    write_json_atomic(new, make_report([1] * 5 + [0] * 25, version=new_version))
    assert cli(["report", "diff", str(old), str(new)]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err.startswith(f"gameeval: error: reports are not comparable: g: incomparable game versions ({shown})")
        and "\n" not in err
    )
    assert f"re-make the baseline with g version {new_version}" in err and "--allow-version-change" in err
    assert cli(["report", "diff", str(old), str(new), "--allow-version-change"]) == 1  # compared: worse
    out = capsys.readouterr().out
    verdict = next(line for line in out.splitlines() if line.startswith("Verdict"))
    assert (
        f"Game versions differ, compared anyway (--allow-version-change): g {shown.split(', ')[0].split(': ')[1]} -> "
        f"{new_version}"
        in verdict
    )
    assert cli(["report", "diff", str(new), str(new)]) == 0  # the same version: compared as usual


def test_version_comes_first_and_equal_versions_add_no_reason():
    assert incomparable(make_report([1, 0]), make_report([0, 1])) == []
    reasons = incomparable(make_report([1, 0], version="1"), make_report([0, 1], sha="other", version="2"))
    assert (
        len(reasons) == 2
        and reasons[0].startswith("g: incomparable game versions")
        and "different dataset" in reasons[1]
    )
    assert (
        len(incomparable(make_report([1, 0], version="1"), make_report([0, 1], version="2"), allow_version_change=True))
        == 0
    )
