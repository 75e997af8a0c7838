"""SpyGame metrics: ToM scoring on hand-built records, the bias report on biased and uniform
scripted voters, and prompt scans."""

import asyncio
import math

import pytest
from prompt_scans import nested_pair, play_marked, scan
from scipy import stats

from pytest_gameeval.cli import bias_report
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.spygame import metrics
from pytest_gameeval.players.scripted import scripted_binder

SPEC = get_spec("spygame")
ROLES = {"P1": "spy", "P2": "villager", "P3": "villager", "P4": "villager"}
WORDS = {"P1": "apple", "P2": "pear", "P3": "pear", "P4": "pear"}


def entry(word, identity):
    return {"word": word, "identity": identity}


def details(tom, guest="P1"):
    return {"guest": guest, "roles": ROLES, "words": WORDS, "tom": tom}


def host(about_guest):
    return {"self_identity": "villager", "players": {"P1": about_guest}}


# -- theory of mind --------------------------------------------------------------------------
def test_tom_scores_each_order_against_its_reference():
    tom = {
        "P1": {
            "self_identity": "spy",
            "players": {"P2": entry("Pears", "villager"), "P3": entry("apple", "villager"), "P4": entry("pear", "spy")},
            "they_think": {
                "P2": entry("pear", "villager"),
                "P3": entry("apple", "spy"),
                "P4": entry("apple", "villager"),
            },
        },
        "P2": host(entry("pear", "villager")),  # P2 thinks the guest shares its word
        "P3": host(entry("apple", "spy")),
        "P4": None,  # P4 gave no answer: no reference for 2nd-order beliefs about P4
    }
    scores = metrics.tom_scores(details(tom))
    assert scores["tom_self_identity"] == 1.0
    assert scores["tom_1_word"] == pytest.approx(2 / 3)  # "Pears" and "pear" right, "apple" wrong
    assert scores["tom_1_identity"] == pytest.approx(2 / 3)  # P4 is no spy
    assert scores["tom_2_word"] == 1.0  # P2: pear = pear, P3: apple = apple; P4 has no reference
    assert scores["tom_2_identity"] == 1.0


def test_tom_wrong_answers_and_non_answers_score_zero():
    tom = {
        "P1": {
            "self_identity": "villager",
            "players": {"P2": entry("unknown", "spy")},  # P3, P4 missing: wrong
            "they_think": {"P2": entry("unknown", "villager"), "P3": entry("banana", None)},
        },
        "P2": host(entry("unknown", "spy")),
        "P3": host(entry("apple", "spy")),
        "P4": host(entry("apple", "spy")),
    }
    scores = metrics.tom_scores(details(tom))
    assert scores["tom_self_identity"] == 0.0
    assert scores["tom_1_word"] == 0.0 and scores["tom_1_identity"] == 0.0
    assert scores["tom_2_word"] == 0.0  # "unknown" never matches "unknown"
    assert scores["tom_2_identity"] == 0.0


def test_tom_without_an_answer_is_nan_and_counted():
    assert all(math.isnan(v) for v in metrics.tom_scores(details({"P1": None, "P2": host(entry("x", "spy"))})).values())
    assert all(math.isnan(v) for v in metrics.tom_scores(details(None)).values())


def test_tom_summary_pools_items_with_intervals():
    good = {"P1": {"self_identity": "spy", "players": {p: entry("pear", "villager") for p in ("P2", "P3", "P4")},
                   "they_think": {p: entry("pear", "villager") for p in ("P2", "P3", "P4")}},
            **{p: host(entry("pear", "villager")) for p in ("P2", "P3", "P4")}}
    records = [record_with(details(good)), record_with(details({"P1": None, "P2": None, "P3": None, "P4": None}))]
    summary = metrics.summarize(records)
    tom = summary["tom"]
    assert tom["games_probed"] == 2 and tom["tom_unanswered"] == 1
    assert tom["tom_1_word"]["k"] == 3 and tom["tom_1_word"]["n"] == 3 and tom["tom_1_word"]["ci"][0] < 1
    assert tom["tom_self_identity"]["value"] == 1.0


def record_with(d, label="villager_win"):
    d = {"survived": {"P1": 0}, "rounds": 1, "ballots": [], "rounds_log": [{"round": 1, "alive": list(ROLES)}],
         "guest_win": False, "guest_role": "spy", **d}
    seats = [{"name": n, "role": r, "model": "m", "private": {"word": WORDS[n]}} for n, r in ROLES.items()]
    return GameRecord("spygame", "x", 0, 0, {}, seats, [], {"label": label, "winner": None, "details": d}, {}, {})


# -- bias report ------------------------------------------------------------------------------
def test_bias_expected_counts_follow_the_offered_options():
    ballots = [
        {
            "round": 1,
            "stage": "first",
            "voter": "P1",
            "options": ["P2", "P3"],
            "order": ["P1", "P2", "P3"],
            "choice": "P2",
            "abstained": False,
        },
        {
            "round": 1,
            "stage": "first",
            "voter": "P2",
            "options": ["P3", "P1"],
            "order": ["P1", "P2", "P3"],
            "choice": "P3",
            "abstained": False,
        },
        {
            "round": 1,
            "stage": "first",
            "voter": "P3",
            "options": ["P1", "P2"],
            "order": ["P1", "P2", "P3"],
            "choice": None,
            "abstained": True,
        },
        {
            "round": 1,
            "stage": "revote",
            "voter": "P3",
            "options": ["P2"],
            "order": ["P1", "P2", "P3"],
            "choice": "P2",
            "abstained": False,
        },
    ]
    report = metrics.bias_report([record_with({"ballots": ballots})])
    assert report["votes"] == 2 and report["abstentions"] == 1
    option = {c["value"]: c for c in report["factors"]["option_position"]["categories"]}
    assert option[1]["votes"] == 2 and option[1]["expected_share"] == pytest.approx(0.5)
    name = {c["value"]: c for c in report["factors"]["name"]["categories"]}
    assert name["P1"]["expected_share"] == pytest.approx(0.25) and name["P2"]["votes"] == 1
    speaking = report["factors"]["speaking_position"]
    # speaking positions offered: ballot 1 positions 2, 3; ballot 2 positions 3, 1
    expected_p = stats.chisquare([0, 1, 1], [0.5, 0.5, 1.0]).pvalue
    assert speaking["p_value"] == pytest.approx(expected_p) and speaking["dof"] == 2


def probe_records(strength, n_pairs=12, epochs=2):
    opts = SPEC.parse_options({"probe": True, "tom": False, "limit": n_pairs * 2})
    # each game's scripted players get their own seed, so their random draws are independent
    return [
        asyncio.run(
            play_case(SPEC, row, epoch, opts, scripted_binder(SPEC, {"*": strength}, seed=derive_seed(row.id, epoch)))
        )
        for row in SPEC.select_rows(opts)
        for epoch in range(epochs)
    ]


def test_bias_report_detects_a_position_biased_voter():
    report = metrics.summarize(probe_records("first_option"))["bias"]["all_voters"]
    option = report["factors"]["option_position"]
    assert option["biased"] is True and option["p_value"] < 1e-6
    assert option["categories"][0]["value"] == 1 and option["categories"][0]["share"] == 1.0
    # names and speaking positions are shuffled independently of option order: no bias there
    assert report["factors"]["name"]["biased"] is False
    assert report["factors"]["speaking_position"]["biased"] is False


def test_bias_report_finds_no_bias_in_a_uniform_voter():
    report = metrics.summarize(probe_records("random"))["bias"]["all_voters"]
    assert report["votes"] > 100
    for factor in ("name", "speaking_position", "option_position"):
        assert report["factors"][factor]["biased"] is False, factor
        assert report["factors"][factor]["p_value"] > 0.05


def test_bias_report_only_over_probe_games():
    opts = SPEC.parse_options({"limit": 2})
    records = [
        asyncio.run(play_case(SPEC, r, 0, opts, scripted_binder(SPEC, {"*": "random"}))) for r in SPEC.select_rows(opts)
    ]
    assert "bias" not in metrics.summarize(records)


# -- scans --------------------------------------------------------------------------------
@pytest.mark.parametrize("strengths", [{"*": "strong"}, {"*": "random"}])
def test_spygame_prompts_never_leak_words_or_thoughts(strengths):
    options = SPEC.parse_options({"voting": "public"} if strengths["*"] == "random" else {})
    rows = SPEC.rows(options)
    assert not [r for r in rows if nested_pair(r.data["spy_word"], r.data["villager_word"])]
    for row in rows:
        record, players = play_marked(SPEC, row, options, strengths)
        scan(record, players)


def test_scripted_strengths_are_ordered():
    opts = SPEC.parse_options({"limit": 20, "tom": False})
    wins = {}
    for guest, hosts in (("random", "strong"), ("random", "random")):
        records = [
            asyncio.run(play_case(SPEC, r, 0, opts, scripted_binder(SPEC, {"evaluated": guest, "*": hosts})))
            for r in SPEC.select_rows(opts)
        ]
        wins[hosts] = sum(SPEC.score(r)["guest_win"] for r in records)
    assert wins["strong"] < wins["random"]  # strong hosts catch the spy guest more often


# -- the bias-report command ---------------------------------------------------------------
def test_bias_report_command_on_record_files(tmp_path, capsys):
    from pytest_gameeval.engine.errors import GameEvalError
    from pytest_gameeval.engine.record import write_records

    write_records(tmp_path / "probe.jsonl", probe_records("first_option", n_pairs=6, epochs=1))
    out = tmp_path / "bias.json"
    assert bias_report.main([str(tmp_path / "probe.jsonl"), "--out", str(out)]) == 0
    report = __import__("json").loads(out.read_text())
    assert report["games"] == 12 and report["all_voters"]["factors"]["option_position"]["biased"] is True
    assert "option_position" in capsys.readouterr().err
    with pytest.raises(GameEvalError, match="no such file"):
        bias_report.main([str(tmp_path / "missing.jsonl")])
    opts = SPEC.parse_options({"limit": 1})
    write_records(
        tmp_path / "plain.jsonl",
        [
            asyncio.run(play_case(SPEC, r, 0, opts, scripted_binder(SPEC, {"*": "random"})))
            for r in SPEC.select_rows(opts)
        ],
    )
    with pytest.raises(GameEvalError, match="probe-mode"):
        bias_report.main([str(tmp_path / "plain.jsonl")])
    assert bias_report.main([str(tmp_path / "plain.jsonl"), "--any-game"]) == 0
    (tmp_path / "bad.jsonl").write_text('{"game": "spygame"}\n')
    with pytest.raises(GameEvalError, match=r"bad.jsonl:1: not a game record"):
        bias_report.main([str(tmp_path / "bad.jsonl"), "--out", str(tmp_path / "never.json")])
    assert not (tmp_path / "never.json").exists()
