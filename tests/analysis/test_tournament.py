"""Tournaments: pairings, analysis of hand-built records, and one small end-to-end run
through inspect's eval_set with scripted models (resumable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_gameeval.analysis.rankings import tournament as T
from pytest_gameeval.cli import main as cli_main
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.spyfall.tournament import clip
from pytest_gameeval.games.tofukingdom.roles import CAMPS
from pytest_gameeval.metrics.tournament import SeatedGame


def test_pairings():
    three = ["A", "B", "C"]
    sf = T.matchups("spyfall", three)
    assert len(sf) == 6 and all(m.sides["spy"] != m.sides["villager"] for m in sf)
    assert {(m.sides["spy"], m.sides["villager"]) for m in sf} == {(a, b) for a in three for b in three if a != b}
    assert sf[0].evaluated_side == "spy" and sf[0].model_roles == {"villager": sf[0].sides["villager"]}
    assert len(T.matchups("spyfall", three, self_play=True)) == 9
    tk = T.matchups("tofukingdom", three)
    assert len(tk) == 6 and len({m.seats for m in tk}) == 6
    assert all(sorted(m.sides.values()) == three for m in tk)
    assert tk[0].model_roles.keys() == {"queen", "spy"}
    two = T.matchups("tofukingdom", ["A", "B"])
    assert len(two) == 6 and all(set(m.sides.values()) == {"A", "B"} for m in two)
    assert len(T.matchups("tofukingdom", ["A", "B", "C", "D"])) == 24
    with pytest.raises(GameEvalError):
        T.matchups("askguess", three)


def test_bad_input_is_one_clear_error():
    with pytest.raises(GameEvalError, match="at least two"):
        T.parse_models("A")
    with pytest.raises(GameEvalError, match="twice"):
        T.parse_models("A,B,A")
    with pytest.raises(GameEvalError, match="evaluated"):
        T.check_task_args("tofukingdom", {"evaluated": "queen"})
    with pytest.raises(GameEvalError, match="unknown task argument"):
        T.check_task_args("tofukingdom", {"nonsense": 1})
    with pytest.raises(GameEvalError, match="unknown pair"):
        T.check_task_args("spyfall", {"pairs": "no-such-pair"})


def _rec(winner: str, **details) -> GameRecord:
    return GameRecord("g", "i", 0, 0, {}, [], [], {"label": winner, "winner": winner, "details": details}, {}, {})


def test_tofukingdom_analysis_points_matrices_and_ratings():
    sides_abc = {"prince": "A", "queen": "B", "spy": "C"}
    sides_bca = {"prince": "B", "queen": "C", "spy": "A"}
    games = [
        SeatedGame(sides_abc, _rec("prince")),
        SeatedGame(sides_abc, _rec("prince")),
        SeatedGame(sides_abc, _rec("queen")),
        SeatedGame(sides_bca, _rec("spy")),
        SeatedGame(sides_bca, _rec("prince")),
    ]
    r = T.analyze("tofukingdom", T.Collected(games), ["A", "B", "C"], n_resamples=20)
    assert r["games"] == 5
    assert {m: p["points"] for m, p in r["points"].items()} == {"A": 3, "B": 2, "C": 0}
    assert sum(p["points"] for p in r["points"].values()) == 5  # one winning model per game
    pw = r["matrices"]["pairwise_win_rate"]
    i = {m: k for k, m in enumerate(pw["rows"])}
    assert pw["value"][i["A"]][i["B"]] == pytest.approx(3 / 5)
    assert pw["value"][i["B"]][i["A"]] == pytest.approx(2 / 5)
    assert pw["value"][i["A"]][i["A"]] is None
    camp = r["matrices"]["camp_win_rate"]
    assert camp["value"][i["A"]] == [pytest.approx(2 / 3), None, pytest.approx(1 / 2)]
    assert r["bradley_terry"]["ranking"] == ["A", "B", "C"]
    assert r["bradley_terry"]["comparisons"] == 10


def test_tofukingdom_game_without_a_winner_is_counted_apart_not_a_crash():
    """An aborted game (its outcome's winner is None: a real model's replies could not carry it on,
    as Gemma-3-270M's did in docs/local-models.md's tournament) wins nothing for anyone."""
    sides = {"prince": "A", "queen": "B", "spy": "C"}
    aborted = _rec("aborted")
    aborted.outcome["winner"] = None
    games = [SeatedGame(sides, _rec("prince")), SeatedGame(sides, aborted)]
    r = T.analyze("tofukingdom", T.Collected(games), ["A", "B", "C"], n_resamples=20)
    assert r["games_without_a_winner"] == 1
    assert {m: (p["points"], p["games"]) for m, p in r["points"].items()} == {"A": (1, 1), "B": (0, 1), "C": (0, 1)}
    only_aborted = T.analyze("tofukingdom", T.Collected([SeatedGame(sides, aborted)]), ["A", "B", "C"], n_resamples=20)
    assert only_aborted["games_without_a_winner"] == 1 and only_aborted["bradley_terry"]["comparisons"] == 0


def test_spyfall_analysis_matrices_average_over_word_pairs():
    pytest.importorskip("pytest_gameeval.games.spyfall.metrics")

    def rec(winner, pair, survived):
        label = {"spy": "spy_win", "villagers": "villager_win"}[winner]
        rounds = survived if winner == "spy" else survived + 1  # caught in the round after the last survived
        r = _rec(winner, pair_id=pair, spy="Player 1", survived={"Player 1": survived}, rounds=rounds)
        r.outcome["label"] = label
        return r

    ab = {"spy": "A", "villager": "B"}
    ba = {"spy": "B", "villager": "A"}
    games = [
        SeatedGame(ab, rec("spy", "p1", 3)),
        SeatedGame(ab, rec("spy", "p1", 3)),
        SeatedGame(ab, rec("villagers", "p2", 1)),
        SeatedGame(ba, rec("villagers", "p1", 0)),
        SeatedGame(ba, rec("villagers", "p2", 2)),
    ]
    r = T.analyze("spyfall", T.Collected(games), ["A", "B"], n_resamples=20)
    w = r["matrices"]["spy_win_rate"]
    # A as spy: pair p1 won 2/2, pair p2 0/1 -> average over the two pairs 0.5 (not 2/3 over games)
    assert w["value"][0][1] == pytest.approx(0.5)
    assert w["value"][1][0] == pytest.approx(0.0)
    assert r["matrices"]["spy_living_round"]["value"][0][1] == pytest.approx((3 + 1) / 2)
    assert {m: p["points"] for m, p in r["points"].items()} == {"A": 4, "B": 1}
    assert r["bradley_terry"]["ranking"] == ["A", "B"]


def test_tofukingdom_tournament_end_to_end_with_scripted_models(tmp_path: Path, capsys):
    models = ["gameeval/scripted/oracle", "gameeval/scripted/random"]
    logs = tmp_path / "logs"
    ok, _ = T.run("tofukingdom", models, logs, task_args={"games": 1}, limit=1, display="none")
    assert ok
    files = sorted(p.name for p in logs.glob("*.eval"))
    assert len(files) == 6
    ok, _ = T.run("tofukingdom", models, logs, task_args={"games": 1}, limit=1, display="none")  # resume: nothing to do
    assert ok and sorted(p.name for p in logs.glob("*.eval")) == files
    # each matchup's log names every camp's model (inspect view's model column shows one of them)
    from inspect_ai.log import list_eval_logs, read_eval_log

    headers = [read_eval_log(i, header_only=True).eval for i in list_eval_logs(str(logs))]
    assert len({h.task for h in headers}) == 6
    for h in headers:
        matchup = h.metadata["gameeval_matchup"]
        assert set(matchup) == set(CAMPS)
        assert h.task == "tofukingdom " + " vs ".join(f"{c}={matchup[c].split('/')[-1]}" for c in CAMPS)
    collected = T.collect("tofukingdom", logs)
    assert all(log["status"] == "success" for log in collected.logs) and len(collected.games) == 6
    assert sorted(tuple(g.sides[c] for c in CAMPS) for g in collected.games) == sorted(
        tuple(m.sides[c] for c in CAMPS) for m in T.matchups("tofukingdom", models))
    # the record's seats were really played by the models the log names for their camp
    for g in collected.games:
        for seat in g.record.seats:
            camp = {"prince": "prince", "princess": "prince", "chef": "prince", "queen": "queen", "minister": "queen",
                    "guard": "queen", "spy": "spy", "maid": "spy"}[seat["role"]]
            assert seat["model"] == g.sides[camp]
    out = tmp_path / "out"
    code = cli_main(["tournament", "tofukingdom", "--models", ",".join(models), "--log-dir", str(logs),
                     "--out", str(out), "--analyze-only", "--bootstrap", "20"])
    assert code == 0
    result = json.loads((out / "tournament-tofukingdom.json").read_text())
    assert result["games"] == 6 and sum(p["points"] for p in result["points"].values()) == 6
    assert set(result["bradley_terry"]["ratings"]) == set(models)
    assert (out / "tournament-tofukingdom.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(out.glob(".*"))  # no half-written temporary files left
    assert "6 games" in capsys.readouterr().out


def test_cli_errors_are_one_line(tmp_path: Path, capsys):
    assert cli_main(["tournament", "tofukingdom", "--models", "A", "--log-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "at least two" in err[0]
    assert cli_main(["tournament", "tofukingdom", "--models", "A,B", "--log-dir", str(tmp_path), "--analyze-only"]) == 2
    assert "no completed tofukingdom games" in capsys.readouterr().err


def test_spyfall_tournament_end_to_end_with_scripted_models(tmp_path: Path):
    models = ["gameeval/scripted/strong", "gameeval/scripted/random"]
    logs = tmp_path / "logs"
    ok, _ = T.run(
        "spyfall",
        models,
        logs,
        task_args={"pairs": "ipad-iphone", "both_orientations": "false"},
        limit=1,
        display="none",
    )
    assert ok
    collected = T.collect("spyfall", logs)
    assert sorted((g.sides["spy"], g.sides["villager"]) for g in collected.games) == sorted(
        [(models[0], models[1]), (models[1], models[0])]
    )
    for g in collected.games:  # the spy seat was played by the spy-side model, every villager by the other
        for seat in g.record.seats:
            assert seat["model"] == g.sides["spy" if seat["role"] == "spy" else "villager"]
    result = T.analyze("spyfall", collected, models, n_resamples=10)
    w = result["matrices"]["spy_win_rate"]
    assert w["value"][0][0] is None and w["n"][0][1] == w["n"][1][0] == 1
    assert all(0.0 <= x <= 1.0 for row in w["ci"] for ci in row if ci for x in ci if x is not None)
    assert sum(p["points"] for p in result["points"].values()) == 2
    T.write_heatmap(result, tmp_path / "h.png")
    assert (tmp_path / "h.png").stat().st_size > 1000


def _register_broken_provider():
    """`brokenharness18/x`: every call raises a harness error (a test device, not a model)."""
    from inspect_ai.model import ModelAPI, modelapi

    from pytest_gameeval.engine.errors import EngineError

    class BrokenAPI(ModelAPI):
        async def generate(self, *args, **kwargs):
            raise EngineError("broken harness (test device)")

    @modelapi(name="brokenharness18")
    def brokenharness18():
        return BrokenAPI


def test_a_harness_error_is_not_retried(tmp_path: Path, monkeypatch):
    _register_broken_provider()
    calls = []
    real = T.harness_errors
    monkeypatch.setattr(T, "harness_errors", lambda logs: calls.append(len(logs)) or real(logs))
    with pytest.raises(
        GameEvalError, match="harness error, which re-running will not fix: .*EngineError: broken harness"
    ):
        T.run("spyfall", ["brokenharness18/x", "gameeval/scripted/random"], tmp_path / "logs", limit=1, display="none")
    assert len(calls) == 1  # one eval_set pass, no retries


def test_a_scripted_strength_the_game_lacks_stops_before_play(tmp_path: Path):
    with pytest.raises(
        GameEvalError, match="spyfall has no scripted strength 'oracle'; its strengths: first_option, random, strong"
    ):
        T.run(
            "spyfall",
            ["gameeval/scripted/oracle", "gameeval/scripted/random"],
            tmp_path / "logs",
            limit=1,
            display="none",
        )
    assert not (tmp_path / "logs").exists()


def test_ranking_line_says_tie_and_orders_only_separated_tiers():
    tied = {"confidence": 0.95, "ranking": ["c", "b", "a"], "tiers": [["a", "b", "c"]]}
    assert T.ranking_line(tied).startswith("ranking: all tied (a = b = c)")
    assert ">" not in T.ranking_line(tied)
    split = {"confidence": 0.95, "ranking": ["a", "b", "c"], "tiers": [["a"], ["b", "c"]]}
    assert T.ranking_line(split).startswith("ranking: a > b = c")


def test_short_labels_are_unique_and_slash_free():
    assert T.short_labels(["gameeval/scripted/strong", "gameeval/scripted/random"]) == {
        "gameeval/scripted/strong": "strong", "gameeval/scripted/random": "random"}
    labels = T.short_labels(["openai/gpt-4o", "azure/gpt-4o", "gameeval/local"])
    assert labels == {"openai/gpt-4o": "openai-gpt-4o", "azure/gpt-4o": "azure-gpt-4o", "gameeval/local": "local"}
    m = T.matchups("spyfall", ["gameeval/scripted/strong", "gameeval/scripted/random"])[0]
    assert (
        m.title(T.short_labels(["gameeval/scripted/strong", "gameeval/scripted/random"]))
        == "spyfall spy=strong vs villager=random"
    )


def test_clip_keeps_intervals_in_range():
    assert clip([-11.7, 13.7], 0.0, None) == [0.0, 13.7]
    assert clip([-0.2, 1.3], 0.0, 1.0) == [0.0, 1.0]
    assert clip([None, None], 0.0, 1.0) == [None, None]


def test_spyfall_cell_of_one_word_pair_has_an_interval_over_its_games():
    pytest.importorskip("pytest_gameeval.games.spyfall.metrics")

    def rec(winner, survived):
        r = _rec(winner, pair_id="p1", spy="Player 1", survived={"Player 1": survived}, rounds=survived + 1)
        r.outcome["label"] = {"spy": "spy_win", "villagers": "villager_win"}[winner]
        return r

    games = [
        SeatedGame({"spy": "A", "villager": "B"}, rec("villagers", 0)),
        SeatedGame({"spy": "A", "villager": "B"}, rec("villagers", 2)),
    ]
    r = T.analyze("spyfall", T.Collected(games), ["A", "B"], n_resamples=20)
    w, rounds = r["matrices"]["spy_win_rate"], r["matrices"]["spy_living_round"]
    low, high = w["ci"][0][1]
    assert w["value"][0][1] == 0.0 and low == 0.0 and 0.5 < high < 0.8  # Wilson 0/2
    assert rounds["ci"][0][1][0] == 0.0 and rounds["ci"][0][1][1] > 2  # t over the games, clipped at 0
    assert "\n[0.00, 0.66]\n" in T._cell_text(0.0, [0.0, 0.658], 2)
    assert "no interval" in T._cell_text(1.0, [None, None], 1)
