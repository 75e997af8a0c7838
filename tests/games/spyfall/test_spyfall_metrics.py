"""SpyFall metrics on hand-built records: w_ab / l_ab per pair, averaged over pairs, by model pair."""

import asyncio
import math

import pytest

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.record import GameRecord, read_records, write_records
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.spyfall import metrics
from pytest_gameeval.players.scripted import scripted_binder

SPEC = get_spec("spyfall")


def record(pair, spy_won, survived, spy_model="A", villager_model="B", evaluated="spy"):
    seats = [{"name": "Player 1", "role": "spy", "model": spy_model, "private": {}}] + [
        {"name": f"Player {k}", "role": "villager", "model": villager_model, "private": {}} for k in range(2, 7)
    ]
    details = {
        "pair_id": pair, "spy": "Player 1", "evaluated": evaluated, "rounds": max(survived, 1),
        "survived": {"Player 1": survived}, "ballots": [], "rounds_log": [],
    }
    label = "spy_win" if spy_won else "villager_win"
    return GameRecord(
        "spyfall", pair, 0, 0, {}, seats, [], {"label": label, "winner": None, "details": details}, {}, {}
    )


def test_average_over_pairs_divides_by_the_number_of_pairs():
    # 11 pairs, two games each; the spy wins both games of pair 0 and one game of pair 1
    records = []
    for i in range(11):
        wins = 2 if i == 0 else 1 if i == 1 else 0
        records += [record(f"p{i}", g < wins, 4 if g < wins else 1) for g in range(2)]
    result = metrics.pair_metrics(records)
    assert result["pairs"] == 11
    assert result["per_pair"]["p0"]["w"]["value"] == 1.0 and result["per_pair"]["p1"]["w"]["value"] == 0.5
    assert result["w_avg"]["value"] == pytest.approx(1.5 / 11)  # GameEval's code divided by 10
    assert result["w_avg"]["value"] != pytest.approx(1.5 / 10)
    assert result["l_avg"]["value"] == pytest.approx((4 + 2.5 + 9 * 1) / 11)
    low, high = result["w_avg"]["ci"]
    assert low < result["w_avg"]["value"] < high
    w0 = result["per_pair"]["p0"]["w"]
    assert w0["n"] == 2 and w0["ci"][0] < 1.0 and w0["method"] == "wilson"


def test_model_pairs_are_ordered():
    records = [record("p", True, 4, "A", "B"), record("p", False, 0, "B", "A"), record("p", False, 0, "B", "A")]
    summary = metrics.summarize(records)
    by = summary["by_model_pair"]
    assert set(by) == {"A (spy) vs B (villagers)", "B (spy) vs A (villagers)"}
    assert by["A (spy) vs B (villagers)"]["w_avg"]["value"] == 1.0
    assert by["B (spy) vs A (villagers)"]["games"] == 2
    assert by["B (spy) vs A (villagers)"]["per_pair"]["p"]["w"]["value"] == 0.0
    assert summary["rates"]["spy_win"]["k"] == 1 and summary["games"] == 3


def test_evaluated_win_follows_the_evaluated_side():
    assert metrics.score(record("p", True, 4))["evaluated_win"] == 1.0
    assert metrics.score(record("p", True, 4, evaluated="villager"))["evaluated_win"] == 0.0
    assert metrics.score(record("p", False, 0, evaluated="villager"))["evaluated_win"] == 1.0
    assert math.isnan(metrics.score(record("p", False, 0))["spy_votes_per_round"])  # no round logged


def test_scores_are_numbers_and_records_round_trip(tmp_path):
    opts = SPEC.parse_options({"pairs": "tiger-lion"})
    records = [
        asyncio.run(play_case(SPEC, r, e, opts, scripted_binder(SPEC, {"*": "random"})))
        for r in SPEC.select_rows(opts)
        for e in range(3)
    ]
    write_records(tmp_path / "r.jsonl", records)
    again = read_records(tmp_path / "r.jsonl")
    assert [SPEC.score(r) for r in again] == [SPEC.score(r) for r in records]
    for r in records:
        values = SPEC.score(r)
        assert all(isinstance(v, float) for v in values.values())
        assert set(SPEC.outcome_labels) | set(SPEC.mean_keys) <= set(values)
        assert values["spy_win"] + values["villager_win"] == 1.0
    summary = SPEC.summarize(again)
    assert summary["games"] == 6 and summary["pairs"] == 1
    assert summary["per_pair"]["tiger-lion"]["n"] == 6


def test_living_round_ours_and_gameevals_are_one_apart_when_the_spy_is_caught():
    caught = record("p", False, 1)  # voted out in round 2: survived 1 round
    caught.outcome["details"]["rounds"] = 2
    won = record("p", True, 3)  # won at the end of round 3
    for r, ours, paper in ((caught, 1.0, 2.0), (won, 3.0, 3.0)):
        values = metrics.score(r)
        assert values["spy_living_round"] == ours and values["spy_living_round_paper"] == paper
    result = metrics.pair_metrics([caught, won])
    assert result["l_avg"]["value"] == 2.0 and result["l_paper_avg"]["value"] == 2.5


def test_paper_protocol_plays_gameevals_setting():
    options = SPEC.parse_options({"protocol": "paper"})
    rows = SPEC.select_rows(options)
    assert [r.id for r in rows][:2] == ["ipad-iphone-fwd", "guitar-lute-fwd"] and len(rows) == 11
    assert ("motorcycle", "electromobile") in {(r.data["spy_word"], r.data["villager_word"]) for r in rows}
    assert options.voting == "public" and options.end_players == 3 and not options.revote
    record = asyncio.run(play_case(SPEC, rows[0], 0, options, scripted_binder(SPEC, {"*": "random"})))
    assert record.options["protocol"] == "paper" and len(record.seats) == 6
    assert record.outcome["details"]["end_players"] == 3
