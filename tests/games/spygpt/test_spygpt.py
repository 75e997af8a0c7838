"""SpyGPT rules, judge parsing, metrics and prompt scans with scripted replies (no model)."""

from __future__ import annotations

import asyncio
import collections
import json
import math

import pytest

from pytest_gameeval.engine.errors import GameEvalError, ParseError
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.runner import play
from pytest_gameeval.engine.spec import EVALUATED, Row
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.spygpt import metrics
from pytest_gameeval.games.spygpt.rules import DESCRIBER, describe_json, parse_score
from pytest_gameeval.players.scripted import ReplayPlayer, scripted_binder

SPEC = get_spec("spygpt")
ITEM = {"id": "apple", "target": "apple", "distractors": ["pear", "peach", "plum"], "domain": "fruit"}


def new_game(mode="aggressive", seed=0, item=ITEM):
    options = SPEC.parse_options({"seed": seed, "mode": mode})
    return SPEC.setup(Row(f"{mode}-{item['id']}", {**item, "mode": mode}), 0, options)


def run(game, players):
    return asyncio.run(play(game, players, instance_id="t", seed=1))


def judges_by_word(game):
    return {w: s for s, w in game.judges.items()}


def players_for(game, description_replies, ratings: dict[str, list]):
    players = {DESCRIBER: ReplayPlayer(description_replies, "describer-model")}
    for word, seat in judges_by_word(game).items():
        players[seat] = ReplayPlayer(ratings[word], "judge-model")
    return players


@pytest.mark.parametrize("text,value", [
    ("4", 4), ("Score: 4", 4), ("4/5", 4), ("I rate it 3 out of 5.", 3), ('{"score": 2}', 2),
    ('Reasoning first. {"score": "5"}', 5), ("Four.", 4), ("1", 1), ("5.", 5),
])
def test_judge_scores_are_read(text, value):
    assert parse_score(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a good match",
        "7",
        "0",
        "3.5",
        "3 or 4",
        '{"score": 9}',
        '{"score": true}',
        "4/10",
        "1. The description is 1. The word is a fruit.\n2. The fruit is a pear.",
    ],
)
def test_unreadable_judge_scores_are_format_errors(text):
    with pytest.raises(ParseError):
        parse_score(text)


def test_a_game_scores_the_target_and_each_distractor():
    game, _ = new_game()
    ratings = {"apple": ["5"], "pear": ["2"], "peach": ["Score: 1"], "plum": ["3/5"]}
    record = run(
        game, players_for(game, [describe_json("A round red or green fruit that keeps doctors away.")], ratings)
    )
    d = record.outcome["details"]
    assert record.label == "judged"
    assert d["target_score"] == 5 and d["distractor_scores"] == {"pear": 2, "peach": 1, "plum": 3}
    s = metrics.score(record)
    assert s["aggressive_target"] == 5 and s["aggressive_distractor"] == pytest.approx(2.0)
    assert s["aggressive_margin"] == pytest.approx(3.0)
    assert math.isnan(s["conservative_target"]) and math.isnan(s["conservative_distractor"])
    assert set(SPEC.higher_is_better) <= set(s)


def test_unparsable_judge_is_reprompted_then_counted_never_scored():
    game, _ = new_game()
    ratings = {
        "apple": ["great match", "very good", "excellent"],
        "pear": ["maybe", "2"],
        "peach": ["1"],
        "plum": ["1"],
    }
    record = run(game, players_for(game, [describe_json("A crisp fruit from an orchard tree.")], ratings))
    d = record.outcome["details"]
    apple_judge = judges_by_word(game)["apple"]
    pear_judge = judges_by_word(game)["pear"]
    assert record.failures[apple_judge] == {"format": 3, "rule": 0, "degenerate": 0, "chat": 0, "forfeit": 1}
    assert record.failures[pear_judge]["format"] == 1 and d["distractor_scores"]["pear"] == 2
    assert d["target_score"] is None and d["unparsed"] == 1
    s = metrics.score(record)
    assert math.isnan(s["aggressive_target"]) and math.isnan(s["aggressive_margin"])
    assert s["unparsed_judgements"] == 1
    summary = metrics.summarize([record])["modes"]["aggressive"]
    assert summary["target_score"]["n"] == 0  # left out, not scored as a number
    assert summary["unparsed_judgements"]["k"] == 1 and summary["unparsed_judgements"]["n"] == 4
    retry = [e for e in record.events if e.data.get("shown_to") == [apple_judge] and "whole number" in e.text]
    assert len(retry) == 2  # the re-prompts name the problem, to that judge only


def test_description_rules_word_limit_and_no_target_word():
    game, _ = new_game(mode="conservative")
    eleven = " ".join(["word"] * 11)
    ten = "Round sweet fruits that grow on trees in orchards everywhere."
    assert len(ten.split()) == 10
    ratings = {w: ["3"] for w in ["apple", "pear", "peach", "plum"]}
    record = run(
        game, players_for(game, [describe_json(eleven), describe_json("Like apples."), describe_json(ten)], ratings)
    )
    assert record.failures[DESCRIBER]["rule"] == 2 and record.label == "judged"
    assert record.outcome["details"]["description"] == ten


def test_aggressive_limit_is_one_hundred_words():
    game, _ = new_game(mode="aggressive")
    ok = " ".join(["fruit"] * 100)
    ratings = {w: ["3"] for w in ["apple", "pear", "peach", "plum"]}
    record = run(game, players_for(game, [describe_json(ok + " more"), describe_json(ok)], ratings))
    assert record.failures[DESCRIBER]["rule"] == 1 and record.outcome["details"]["description_words"] == 100


def test_no_description_after_retries_ends_the_game_unscored():
    game, _ = new_game()
    record = run(
        game,
        players_for(
            game,
            ["not json", describe_json("An apple."), describe_json("")],
            {w: [] for w in ITEM["distractors"] + ["apple"]},
        ),
    )
    assert record.label == "no_description"
    assert record.failures[DESCRIBER] == {"format": 2, "rule": 1, "degenerate": 0, "chat": 0, "forfeit": 1}
    s = metrics.score(record)
    assert s["no_description"] == 1 and math.isnan(s["aggressive_target"])
    assert metrics.summarize([record])["modes"]["aggressive"]["outcomes"]["no_description"]["k"] == 1


def test_judge_order_is_seeded_and_shuffled():
    slots = collections.Counter()
    for seed in range(80):
        game, _ = new_game(seed=seed)
        again, _ = new_game(seed=seed)
        assert game.judges == again.judges
        assert sorted(game.judges.values()) == sorted(["apple", *ITEM["distractors"]])
        slots[judges_by_word(game)["apple"]] += 1
    assert set(slots) == {"Judge 1", "Judge 2", "Judge 3", "Judge 4"} and max(slots.values()) < 40


def test_prompt_scan_judges_see_only_the_description_and_their_word():
    game, _ = new_game(mode="conservative", seed=3)
    description = "Round sweet fruits grown in orchards."
    ratings = {w: ["3"] for w in ["apple", "pear", "peach", "plum"]}
    players = players_for(
        game, [json.dumps({"thought": "SECRET-THOUGHT candidates: pear, peach", "description": description})], ratings
    )
    run(game, players)
    words = ["apple", *ITEM["distractors"]]
    for seat, word in game.judges.items():
        text = "\n".join(m["content"] for ctx in players[seat].prompts for m in ctx.messages).lower()
        assert word in text and description.lower() in text
        for other in words:
            if other != word:
                assert other not in text.replace(word, "")  # no other candidate ("peach" contains no "pear")
        for leak in ("target", "distractor", "aggressive", "conservative", "secret-thought", "describer"):
            assert leak not in text
        assert SPEC.seat_model_roles(game)[seat] == "judge"
    describer_text = "\n".join(m["content"] for ctx in players[DESCRIBER].prompts for m in ctx.messages)
    assert "apple" in describer_text and "pear" not in describer_text  # distractors are the judge's business
    assert SPEC.seat_model_roles(game)[DESCRIBER] == EVALUATED


def test_scripted_describers_and_overlap_judge_move_the_scores_the_right_way():
    def margins(describer):
        opts = SPEC.parse_options({"targets": "apple,banana,strawberry,dog,piano,doctor,police-officer"})
        recs = [
            asyncio.run(
                play_case(SPEC, row, 0, opts, scripted_binder(SPEC, {"evaluated": describer, "judge": "oracle"}))
            )
            for row in SPEC.select_rows(opts)
        ]
        assert all(r.label == "judged" and sum(r.failure_totals().values()) == 0 for r in recs)
        modes = metrics.summarize(recs)["modes"]
        return {m: modes[m]["target_minus_distractor"]["value"] for m in modes}

    good, bad = margins("oracle"), margins("bad")
    assert good["aggressive"] > 0.5 and good["aggressive"] > bad["aggressive"]  # target singled out
    assert good["conservative"] < bad["conservative"]  # blending in


def test_self_judging_is_visible_in_the_summary():
    game, _ = new_game()
    players = players_for(
        game, [describe_json("A crisp orchard fruit.")], {w: ["3"] for w in ["apple", *ITEM["distractors"]]}
    )
    for seat in game.judges:
        players[seat].label = "describer-model"
    record = run(game, players)
    assert metrics.self_judged(record)
    assert metrics.summarize([record])["modes"]["aggressive"]["self_judged_games"] == 1


def test_task_arguments_and_data_errors(tmp_path, monkeypatch):
    assert len(SPEC.select_rows(SPEC.parse_options({"mode": "aggressive"}))) >= 40
    assert [r.id for r in SPEC.select_rows(SPEC.parse_options({"targets": "apple"}))] == [
        "aggressive-apple",
        "conservative-apple",
    ]
    with pytest.raises(GameEvalError, match="unknown target"):
        SPEC.select_rows(SPEC.parse_options({"targets": "nonexistent"}))
    with pytest.raises(GameEvalError, match="mode"):
        SPEC.parse_options({"mode": "sneaky"})
    (tmp_path / "spygpt").mkdir()
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    path = tmp_path / "spygpt" / "targets.jsonl"
    path.write_text(
        '{"id": "a", "target": "apple", "distractors": ["pear"]}\n{"id": "a", "target": "fig", "distractors": '
        '["date"]}\n'
    )
    with pytest.raises(GameEvalError, match="duplicate id"):
        SPEC.rows(SPEC.parse_options({}))
    path.write_text('{"id": "a", "target": "apple", "distractors": ["Apple"]}\n')
    with pytest.raises(GameEvalError, match="repeats"):
        SPEC.rows(SPEC.parse_options({}))
    path.write_text('{"id": "a", "target": "apple"\n')
    with pytest.raises(GameEvalError, match=r"targets.jsonl:1: malformed JSON"):
        SPEC.rows(SPEC.parse_options({}))
