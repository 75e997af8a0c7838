"""Report JSON, diff and the sequential gate's statistics: pure functions, synthetic reports."""

from __future__ import annotations

import json
import os

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.analysis.gate import (
    INCONCLUSIVE, MEAN, NOT_REGRESSED, RATE, REGRESSED, GameGate, GateMetric, judge, look_ends, mean_change,
    rate_change, spent,
)
from pytest_gameeval.pytest_plugin.settings import GateConfig, shard_map
from pytest_gameeval.analysis.report import (
    SCHEMA, SCHEMA_VERSION, diff_reports, incomparable, main, read_report, redact_args, render_markdown,
    write_json_atomic,
)


def make_report(wins: list[int], rounds: list[float] | None = None, *, game: str = "g", sha: str = "abc",
                options: dict | None = None) -> dict:
    """A minimal valid report: one game whose cases carry a 0/1 "win" rate and a "rounds" mean."""
    rounds = rounds if rounds is not None else [3.0] * len(wins)
    cases = [
        {"id": f"{game}[c{i}]", "game": game, "case": f"c{i}", "status": "played",
         "scores": {"win": float(w), "loss": 1.0 - w, "rounds": r}}
        for i, (w, r) in enumerate(zip(wins, rounds))
    ]
    return {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "package": {"version": "0"}, "models": {"evaluated": "m"},
        "settings": {}, "cases": cases,
        "games": {game: {"options": {"seed": 0, "limit": 0, "max_rounds": 5, **(options or {})},
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


def test_judge_orients_by_direction():
    old, new = [1] * 30, [1] * 5 + [0] * 25
    assert judge(RATE, old, new, True, 0.1, 0.01)["verdict"] == REGRESSED
    # the same drop in a lower-is-better metric is an improvement, never a regression
    assert judge(RATE, old, new, False, 0.1, 0.01)["verdict"] != REGRESSED
    # no direction: never a verdict
    assert judge(RATE, old, new, None, 0.1, 0.01)["verdict"] == "open"
    # a drop smaller than the tolerance is not a regression, however many games
    assert judge(RATE, [1] * 500 + [0] * 500, [1] * 470 + [0] * 530, True, 0.1, 0.01)["verdict"] != REGRESSED


def test_spending_sums_to_alpha_and_looks_cover_every_case():
    assert sum(spent(0.05, j, 4) for j in range(1, 5)) == pytest.approx(0.05)
    assert spent(0.05, 1, 4) < spent(0.05, 4, 4)
    assert look_ends(10, 4) == [3, 5, 8, 10]
    assert look_ends(2, 4) == [1, 2]
    assert look_ends(7, 1) == [7]


def _run_gate(base: list[int], new: list[int], tolerance: float = 0.1, looks: int = 4) -> GameGate:
    gate = GameGate("g", [GateMetric("win", RATE, True, tolerance)], GateConfig(looks=looks), len(new))
    for end in gate.ends:
        gate.look({"win": base}, {"win": new[:end]}, end, last=end == len(new))
        if gate.stopped:
            break
    return gate


def test_gate_stops_early_on_a_planted_regression():
    gate = _run_gate([1] * 40, ([1, 0, 0, 0] * 10))
    assert gate.failed
    assert gate.games_used < 40  # the verdict did not need every game
    assert gate.verdicts["win"]["verdict"] == REGRESSED


def test_gate_passes_noise_and_stops_early_when_clearly_fine():
    # the same rate in both runs (different games): never a regression
    noisy = _run_gate([1, 0, 0, 1, 1, 0, 1, 0] * 5, [0, 1, 1, 0, 1, 0, 0, 1] * 5)
    assert not noisy.failed
    assert noisy.verdicts["win"]["verdict"] in (INCONCLUSIVE, NOT_REGRESSED)
    # a large, clearly unchanged run stops as soon as a drop beyond the tolerance is excluded
    fine = _run_gate([1] * 400, [1] * 400, tolerance=0.1)
    assert not fine.failed and fine.verdicts["win"]["verdict"] == NOT_REGRESSED
    assert fine.games_used < 400


def test_gate_splits_alpha_over_metrics():
    metrics = [GateMetric("win", RATE, True, 0.1), GateMetric("rounds", MEAN, False, 1.0)]
    gate = GameGate("g", metrics, GateConfig(alpha=0.04, looks=1), 10)
    gate.look({"win": [1] * 10, "rounds": [3.0, 4.0] * 5}, {"win": [1] * 10, "rounds": [3.0, 4.0] * 5}, 10, last=True)
    assert gate.verdicts["win"]["alpha_spent"] == pytest.approx(0.02)


def test_shards_follow_run_order_and_keep_gated_games_whole():
    ids = [f"gameeval::a[x{i}-t0]" for i in range(5)] + ["tests/test_x.py::test_y"] + [f"gameeval::b[y{i}-t0]" for i in range(3)]
    shards = shard_map(ids, 2, gated_games={"b"})
    assert shards["gameeval::a[x0-t0]"] == shards["gameeval::a[x1-t0]"] != shards["gameeval::a[x2-t0]"]
    assert len({shards[i] for i in ids if "::b[" in i}) == 1
    assert "tests/test_x.py::test_y" not in shards


# -- report files ---------------------------------------------------------------------------------------


def test_redaction_keeps_secrets_out():
    args = ["--gameeval-model", "openai/gpt-4o", "--api-key", "abc123", "--gameeval-model-arg", "api_key=sk-abcdefghijklmnop",
            "token=xyz", "--x=sk-ABCDEFGHIJKLMNOPQ"]
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
    assert d["regressed"] == []
    assert {row["metric"] for row in d["rows"]} == {"win", "loss", "rounds"}
    assert all(row["change"] == 0 for row in d["rows"])


def test_diff_names_a_planted_regression():
    old = make_report([1] * 30, [3.0, 4.0] * 15)
    new = make_report([1] * 6 + [0] * 24, [6.0, 7.0] * 15)
    d = diff_reports(old, new)
    assert sorted(d["regressed"]) == ["g.rounds", "g.win"]
    loss = next(r for r in d["rows"] if r["metric"] == "loss")
    assert loss["verdict"] == "changed"  # no direction declared: a change, never a regression
    assert "**regressed**" in render_markdown(d)


def test_diff_ignores_noise():
    old = make_report([1, 0, 0, 1, 1, 0, 1, 0, 0, 1] * 3)
    new = make_report([0, 1, 1, 0, 0, 1, 1, 0, 1, 0] * 3)
    assert diff_reports(old, new)["regressed"] == []


def test_report_cli(tmp_path, capsys):
    old, new, other = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "other.json"
    write_json_atomic(old, make_report([1] * 30))
    write_json_atomic(new, make_report([1] * 5 + [0] * 25))
    write_json_atomic(other, make_report([1] * 30, sha="different"))
    assert main(["diff", str(old), str(old)]) == 0
    assert "No metric regressed" in capsys.readouterr().out
    assert main(["diff", str(old), str(new), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["regressed"] == ["g.win"]
    with pytest.raises(GameEvalError, match="not comparable: g: different dataset"):
        main(["diff", str(old), str(other)])


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
    assert "**missing** (old: no played game (6 harness errors))" in out and "– (None)" not in out
    assert "Missing: g (old: no played game (6 harness errors))." in out
    assert main(["diff", str(played), str(unplayed), "--allow-missing"]) == 0
    assert "new: no played game" in capsys.readouterr().out
    d = diff_reports(make_report([1] * 6), _unplayed(6))
    assert d["missing"] == {"g": "new: no played game (6 harness errors)"} and d["regressed"] == []


def test_diff_shows_a_game_only_one_report_has_as_missing(tmp_path, capsys):
    both = make_report([1] * 6)
    both["games"]["h"] = make_report([1] * 6, game="h")["games"]["h"]
    both["cases"] += make_report([1] * 6, game="h")["cases"]
    d = diff_reports(make_report([1] * 6), both)
    assert d["missing"] == {"h": "old: not in the report"}
    assert {r["game"] for r in d["rows"] if r["verdict"] != "missing"} == {"g"}


def _gate(played: int, errors: int, baseline_played: int = 10) -> GameGate:
    gate = GameGate("g", [GateMetric("win", RATE, True, 0.1)], GateConfig(looks=1), played + errors)
    gate.baseline_played = baseline_played
    gate.look({"win": [1.0] * baseline_played}, {"win": [1.0] * played}, played + errors, last=True, games_played=played)
    return gate


def test_gate_fails_a_game_with_no_played_game_with_the_reason():
    gate = _gate(0, 6)
    assert gate.failed and gate.reason == "no game was played (6 harness errors)"
    assert gate.to_dict()["verdict"] == "fail" and gate.to_dict()["harness_errors"] == 6
    assert _gate(6, 0, baseline_played=0).reason == "the baseline has no played game of it"


def test_gate_with_harness_errors_passes_only_on_shown_evidence():
    few = _gate(2, 4)
    assert few.verdicts["win"]["verdict"] == INCONCLUSIVE
    assert few.failed and "only 2 of 6 games were played (4 harness errors)" in few.reason
    assert not _gate(6, 0).failed  # inconclusive with every game played: passes, as before


def test_win_of_the_evaluated_side_is_a_rate_with_an_interval_in_the_diff():
    """SpyFall's evaluated_win had no interval in `report diff` (a Welch mean of zero spread)
    while spy_win had one: 0/1 keys of every game are rates."""
    from pytest_gameeval.games.registry import get_spec
    from pytest_gameeval.pytest_plugin.runner import score_keys

    for game, key in (("spyfall", "evaluated_win"), ("spygame", "guest_win"), ("tofukingdom", "win")):
        rates, means = score_keys(get_spec(game))
        assert key in rates and key not in means
    rates, means = score_keys(get_spec("spyfall"))

    def report(won: list[int]) -> dict:
        r = make_report(won, game="spyfall")
        for case, w in zip(r["cases"], won):
            case["scores"] = {"spy_win": float(w), "villager_win": 1.0 - w, "evaluated_win": float(w), "rounds": 3.0}
        r["games"]["spyfall"].update(rate_keys=rates, mean_keys=means, directions={"evaluated_win": "higher"})
        return r

    rows = {r["metric"]: r for r in diff_reports(report([0] * 10), report([0] * 10))["rows"]}
    for key in ("spy_win", "evaluated_win"):
        assert rows[key]["kind"] == RATE and None not in rows[key]["ci"], rows[key]


def test_each_verdict_keeps_the_games_of_the_look_that_decided_it():
    """The gate table's games column showed the game's total where a metric was decided at an
    earlier look: 'win' regresses at once, 'rounds' needs every look."""
    metrics = [GateMetric("win", RATE, True, 0.0), GateMetric("rounds", MEAN, False, 0.0)]
    gate = GameGate("g", metrics, GateConfig(looks=4, alpha=0.1), 40)
    base = {"win": [1] * 40, "rounds": [3.0, 4.0] * 20}
    new_win, new_rounds = [0] * 40, [3.0, 4.0] * 20
    for end in gate.ends:
        gate.look(base, {"win": new_win[:end], "rounds": new_rounds[:end]}, end, last=end == 40)
    assert gate.verdicts["win"]["verdict"] == REGRESSED and gate.verdicts["win"]["games"] == gate.ends[0] == 10
    assert gate.verdicts["rounds"]["games"] == 40 == gate.games_used
