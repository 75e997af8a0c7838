"""GameArena metrics on hand-built records: values known by hand."""

from __future__ import annotations

import math

import pytest

from pytest_gameeval.engine.events import Event
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.arena import metrics as arena


def probe(round_: int, probe: str = "retrospective", **data) -> Event:
    return Event("action", "probe", "Questioner", (), round_, {"probe": probe, "ok": True, **data})


def record(label: str, events: list[Event], variant: int = 0, retrospective: bool = True, **details) -> GameRecord:
    details = {"rounds": 3, "variant": variant, "retrospective": retrospective, **details}
    return GameRecord(
        "akinator", "x", 1, 0, {}, [], events, {"label": label, "winner": None, "details": details}, {}, {}
    )


def ranked_record(label="win", variant=0):
    events = [
        probe(1, items=["cat", "horse", "cow", "sheep", "goat"]),
        probe(2, items=["cat", "horse", "Puppies", "cow", "goat"]),
        Event("action", "probe", "Questioner", (), 3, {"probe": "retrospective", "ok": False, "error": "too short"}),
        probe(4, items=["a", "b", "c", "d", "e", "f", "big dog", "h", "i", "j", "k"]),
        probe(3, "classify", n_yes=1, n_no=3, disparity=0.5),
        probe(4, "classify", n_yes=2, n_no=2, disparity=0.0),
    ]
    return record(label, events, variant, target="dog", aliases=["puppy"])


def test_ranked_list_metrics_by_hand():
    values = arena.score(ranked_record(), ("win", "lose", "CE"))
    assert values["recall"] == pytest.approx(2 / 3)  # 2 of 3 parsed lists name the target
    assert values["top5"] == pytest.approx(1 / 3)  # rank 3 (alias plural "Puppies") only
    assert values["top10"] == pytest.approx(2 / 3)  # ... and rank 7 ("big dog")
    assert values["first_appear"] == 2.0
    assert values["final_rank"] == 7.0
    assert values["probe_failures"] == 1.0
    assert values["disparity"] == pytest.approx(0.25)
    assert values["win"] == 1.0 and values["rounds_win"] == 3.0


def test_target_absent_from_the_last_list():
    lists = [(1, ["dog", "b", "c", "d", "e"]), (2, ["hotdog stand", "b", "c", "d", "e"])]
    m = arena.ranked_metrics(lists, "dog")
    assert m["recall"] == 0.5 and m["first_appear"] == 1.0
    assert math.isnan(m["final_rank"]) and m["final_present"] == 0.0
    assert all(math.isnan(v) for v in arena.ranked_metrics([], "dog").values())


def test_target_rank_is_whole_word_and_plural_aware():
    assert arena.target_rank(["pineapple", "apples", "pear"], "apple") == 2
    assert arena.target_rank(["pear"], "apple") is None


def test_spearman_sign_and_hopping_on_a_known_sequence():
    # truth False (-2); predictions Unknown, Possibly false, True, False -> levels 0, -1, 2, -2
    seq = [(1, 0), (2, -1), (3, 2), (4, -2)]
    m = arena.belief_metrics(seq, truth=False)
    # distances 2, 1, 4, 0: rho = 1 - 6*14/(4*15) = -0.4
    assert m["spearman"] == pytest.approx(-0.4)
    assert m["hopping"] == 8.0  # 1 + 3 + 4
    assert m["hopping_rate"] == pytest.approx(1 / 3)  # only 1 -> 4 moves away from the truth
    # the two readings of the paper's recall, hand-worked: only the last prediction (False) is the
    # truth's end of the scale; Possibly false and False are both on the truth's side
    assert m["recall_paper"] == 0.25 and m["truth_side_share"] == 0.5
    assert m["first_correct_side"] == 2.0
    assert m["final_distance"] == 0.0


def test_converging_is_negative_diverging_positive():
    converging = arena.belief_metrics([(1, 0), (2, 1), (3, 2)], truth=True)
    diverging = arena.belief_metrics([(1, 0), (2, 1), (3, 2)], truth=False)
    assert converging["spearman"] == pytest.approx(-1.0) and converging["hopping"] == 2.0
    # steady convergence is no hopping (the unnormalised sum still says 2)
    assert converging["hopping_rate"] == 0.0 and diverging["hopping_rate"] == 1.0
    assert converging["truth_side_share"] == pytest.approx(2 / 3) and diverging["truth_side_share"] == 0.0
    assert converging["recall_paper"] == pytest.approx(1 / 3) and diverging["recall_paper"] == 0.0
    assert diverging["spearman"] == pytest.approx(1.0) and math.isnan(diverging["first_correct_side"])
    assert diverging["final_distance"] == 4.0


def test_spearman_undefined_for_constant_or_single():
    assert math.isnan(arena.belief_metrics([(1, 2), (2, 2)], truth=True)["spearman"])
    assert math.isnan(arena.belief_metrics([(1, 1)], truth=True)["spearman"])
    assert math.isnan(arena.belief_metrics([(1, 1)], truth=True)["hopping_rate"])
    assert arena.hopping([]) == 0.0


def test_belief_levels_read_from_the_record():
    events = [probe(1, level="Unknown"), probe(2, level="Possibly true"), probe(3, level="True")]
    r = record("win", events, truth=True)
    assert arena.belief_levels(r) == [(1, 0), (2, 1), (3, 2)]
    values = arena.score(r, ("win", "lose"))
    assert (
        values["spearman"] == pytest.approx(-1.0)
        and values["truth_side_share"] == pytest.approx(2 / 3)
        and "top5" not in values
    )
    assert values["recall_paper"] == pytest.approx(1 / 3) and "recall" not in values


def test_without_retrospective_probe_metrics_are_nan():
    values = arena.score(record("lose", [], retrospective=False, target="dog"), ("win", "lose"))
    assert math.isnan(values["recall"]) and math.isnan(values["disparity"]) and math.isnan(values["rounds_win"])
    assert values["lose"] == 1.0


def test_summary_has_intervals_and_per_variant_breakdown():
    records = [ranked_record("win", 0), ranked_record("lose", 0), ranked_record("win", 2)]
    s = arena.summarize(records, ("win", "lose", "CE"))
    assert s["rates"]["win"]["value"] == pytest.approx(2 / 3) and s["rates"]["win"]["method"] == "wilson"
    assert s["rates"]["win"]["ci"][0] < 2 / 3 < s["rates"]["win"]["ci"][1]
    retro = s["retrospective"]
    assert retro["recall"]["value"] == pytest.approx(2 / 3) and retro["recall"]["method"] == "t"
    assert retro["probe_failure_rate"]["k"] == 3 and retro["probe_failure_rate"]["n"] == 18
    assert retro["final_listed"]["value"] == 1.0
    assert set(s["per_variant"]) == {"0", "2"}
    assert s["per_variant"]["0"]["games"] == 2 and s["per_variant"]["0"]["win"]["value"] == 0.5
    assert s["per_variant"]["2"]["retrospective"]["first_appear"]["value"] == 2.0


def test_taboo_style_win_labels():
    r = record("survived", [], target="apple")
    values = arena.score(r, ("guessed", "survived", "said_word"), ("guessed", "survived"))
    assert values["win"] == 1.0 and values["survived"] == 1.0 and values["guessed"] == 0.0


def test_bluffing_recall_readings_apart_table_3_row():
    """The paper's Table 3 has a row with recall 0.00 and a mean final rank of 1.53: a model whose
    predictions sit on the truth's side yet never at its end. Possibly true, Possibly true, True
    for a true statement reaches the end once; Possibly true throughout never does."""
    never_end = arena.belief_metrics([(0, 1), (1, 1), (2, 1)], truth=True)
    assert never_end["recall_paper"] == 0.0 and never_end["truth_side_share"] == 1.0
    assert never_end["final_distance"] == 1.0  # close to the truth: fits the low final rank
    once = arena.belief_metrics([(0, 1), (1, 1), (2, 2)], truth=True)
    assert once["recall_paper"] == pytest.approx(1 / 3) and once["truth_side_share"] == 1.0
