"""AGE formulas on hand-worked cases, and summaries over records (no model, no data files)."""

import math

import pytest

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.age import metrics as m


def test_effective_fcg_is_l_plus_one_for_never_guessed():
    assert m.effective_fcg(None, 5) == 6
    assert m.effective_fcg(3, 5) == 3


@pytest.mark.parametrize("f, expected", [(1, 1.0), (3, 0.5), (7, 1 / 3), (6, 1 / math.log2(7))])
def test_comprehension(f, expected):
    assert m.comprehension(f) == pytest.approx(expected)


@pytest.mark.parametrize("opponents, rounds, expected", [
    ([1, 4], 3, 0.0),  # an opponent found my word at once: no confusion
    ([2, 4], 3, 0.5),  # log_4 2
    ([4, 4], 3, 1.0),  # nobody found it (f = l + 1): full confusion
    ([6], 5, 1.0),
    ([3, 9], 8, math.log(3) / math.log(9)),
])
def test_confusion(opponents, rounds, expected):
    assert m.confusion(opponents, rounds) == pytest.approx(expected)


def test_age_score_is_the_harmonic_mean():
    assert m.age_score(1.0, 0.5) == pytest.approx(2 / 3)
    assert m.age_score(0.5, 0.5) == pytest.approx(0.5)
    assert m.age_score(0.7, 0.0) == 0.0
    # nobody guesses in a 5-round game: comprehension 1/log2(7), confusion 1
    c = 1 / math.log2(7)
    assert m.age_score(c, 1.0) == pytest.approx(2 * c / (c + 1))


def record(fcg, groups, rounds, label="limit", models=None, topic="Food", slots=None):
    names = list(groups)
    models = models or {n: "model/x" for n in names}
    slots = slots or {n: i + 1 for i, n in enumerate(names)}
    return GameRecord(
        game="age",
        instance_id="p1",
        seed=1,
        epoch=0,
        options={},
        seats=[
            {
                "name": n,
                "role": "player",
                "model": models[n],
                "private": {"slot": slots[n], "topic": topic, "group": groups[n]},
            }
            for n in names
        ],
        events=[],
        outcome={"label": label, "winner": None, "details": {"rounds": rounds, "fcg": fcg, "groups": groups}},
        failures={},
        usage={},
    )


GROUPS = {"a1": "A", "a2": "A", "b1": "B", "b2": "B"}


def test_hand_worked_game():
    # l = 3; a1 guesses in round 1, a2 in round 3, b1 in round 2, b2 never (f = 4)
    rec = record({"a1": 1, "a2": 3, "b1": 2, "b2": None}, GROUPS, 3)
    rows = {r["seat"]: r for r in m.player_scores(rec)}
    assert rows["a1"]["comprehension"] == pytest.approx(1.0)
    assert rows["a1"]["confusion"] == pytest.approx(0.5)  # log_4 min(2, 4)
    assert rows["a1"]["age"] == pytest.approx(2 / 3)
    assert rows["a2"]["age"] == pytest.approx(0.5)  # comprehension 1/log2 4, confusion 0.5
    assert rows["b1"]["comprehension"] == pytest.approx(1 / math.log2(3))
    assert rows["b1"]["confusion"] == 0.0 and rows["b1"]["age"] == 0.0  # a1 found B's word in round 1
    assert rows["b2"]["fcg"] == 4 and rows["b2"]["comprehension"] == pytest.approx(1 / math.log2(5))
    assert m.both_words_guessed(rec) and m.in_full_length_filter(rec)
    s = m.score(rec)  # slot 1 is a1, the evaluated seat
    assert (
        s["age"] == pytest.approx(2 / 3) and s["limit"] == 1.0 and s["age_filter_full_length"] == pytest.approx(2 / 3)
    )
    assert s["age_all_seats"] == pytest.approx((2 / 3 + 0.5) / 4)


def test_nobody_guesses_gives_confusion_one_and_fails_the_filter():
    rec = record({n: None for n in GROUPS}, GROUPS, 5)
    for row in m.player_scores(rec):
        assert row["fcg"] == 6 and row["confusion"] == 1.0 and not row["guessed"]
    assert not m.both_words_guessed(rec) and not m.in_full_length_filter(rec)
    assert math.isnan(m.score(rec)["age_filter_full_length"])


def test_short_game_fails_the_filter():
    rec = record({"a1": 1, "a2": None, "b1": 2, "b2": None}, GROUPS, 2, label="limit")
    assert m.both_words_guessed(rec) and not m.in_full_length_filter(rec)


def test_a_game_solved_early_passes_the_filter_it_would_have_passed_unstopped():
    """The paper played on to the limit; we stop once everyone guessed. A game solved in round 1
    of 5 would have lasted 5 rounds there, so the filter keeps it (the best play is not dropped)."""
    rec = record({n: 1 for n in GROUPS}, GROUPS, 1, label="solved")
    rec.options = {"max_rounds": 5}
    assert m.in_full_length_filter(rec) and m.score(rec)["age_filter_full_length"] == m.score(rec)["age"]
    rec.options = {"max_rounds": 2}  # with a 2-round limit no game lasts beyond two rounds
    assert not m.in_full_length_filter(rec)


def test_chat_error_games_have_no_age_metrics():
    rec = record({n: None for n in GROUPS}, GROUPS, 2, label="CE")
    s = m.score(rec)
    assert s["CE"] == 1.0 and math.isnan(s["age"]) and math.isnan(s["age_all_seats"])
    assert m.player_scores(rec) == []


def test_summary_per_model_macro_and_welch():
    models = {"a1": "strong", "a2": "weak", "b1": "strong", "b2": "weak"}
    recs = [
        record({"a1": 1, "a2": None, "b1": None, "b2": None}, GROUPS, 5, models=models, topic="Food"),
        record({"a1": 2, "a2": None, "b1": 1, "b2": None}, GROUPS, 5, models=models, topic="Travel"),
        record({"a1": 1, "a2": 5, "b1": 2, "b2": None}, GROUPS, 5, models=models, topic="Travel"),
        record({n: None for n in GROUPS}, GROUPS, 3, label="CE", models=models),
    ]
    s = m.summarize(recs)
    assert s["games"] == 4 and s["rates"]["CE"]["k"] == 1
    assert set(s["per_model"]) == {"strong", "weak"}
    strong = s["per_model"]["strong"]
    assert strong["n"] == 6 and strong["age"]["ci"][0] is not None
    assert strong["comprehension"]["value"] > s["per_model"]["weak"]["comprehension"]["value"]
    macro = strong["age_macro_by_topic"]
    assert set(macro["per_topic"]) == {"Food", "Travel"}
    topic_means = [v["value"] for v in macro["per_topic"].values()]
    assert macro["macro"]["value"] == pytest.approx(sum(topic_means) / 2)
    (test,) = s["welch_age"]
    assert {test["a"], test["b"]} == {"strong", "weak"} and 0.0 <= test["p"] <= 1.0
    assert s["filter_full_length"]["k"] == 2  # games 2 and 3: 5 rounds and both words found
    assert s["filter_full_length"]["n"] == 4
    assert s["per_model_filter_full_length"]["strong"]["n"] == 4
    assert s["evaluated"]["n"] == 3


def test_both_filter_readings_side_by_side_hand_worked():
    """Issue 26 item 7. Three games of max_rounds 5, each with both words guessed:
    - solved in round 2 (everyone guessed, we stopped): literal 2 > 2 fails; ours counts 5 > 2: kept;
    - solved in round 3: 3 > 2 under both;
    - run to the limit, 5 rounds: kept by both.
    So the literal filter keeps 2 of 3 games, ours 3 of 3, and the AGE over kept games differs."""
    short = record({"a1": 1, "a2": 2, "b1": 2, "b2": 2}, GROUPS, 2, label="solved")
    mid = record({"a1": 1, "a2": 3, "b1": 3, "b2": 2}, GROUPS, 3, label="solved")
    full = record({"a1": 2, "a2": None, "b1": 4, "b2": None}, GROUPS, 5, label="limit")
    for rec in (short, mid, full):
        rec.options = {"max_rounds": 5}
    s = m.score(short)
    assert (s["filter_literal"], s["filter_full_length"]) == (0.0, 1.0)
    assert math.isnan(s["age_filter_literal"]) and s["age_filter_full_length"] == s["age"]
    # a1 in `short`: comprehension 1 (f = 1), confusion log_3 min(2, 2) = 0.631, AGE 2c/(1 + c)
    c = math.log(2) / math.log(3)
    assert s["age"] == pytest.approx(2 * c / (1 + c))
    assert m.score(mid)["filter_literal"] == m.score(mid)["filter_full_length"] == 1.0
    summary = m.summarize([short, mid, full])
    assert (summary["filter_literal"]["k"], summary["filter_full_length"]["k"]) == (2, 3)
    assert (
        summary["per_model_filter_literal"]["model/x"]["n"] == 8
        and summary["per_model_filter_full_length"]["model/x"]["n"] == 12
    )
    assert summary["filter_of_protocol"] == "full_length"
    for rec in (short, mid, full):
        rec.options["protocol"] = "paper"
    assert m.summarize([short, mid, full])["filter_of_protocol"] == "literal"
