"""Taboo rules, probes and scripted players, with scripted replies (no model)."""

from __future__ import annotations

import asyncio
import json

import pytest

from pytest_gameeval.engine.errors import GameEvalError, ParseError
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.spec import Row
from pytest_gameeval.games.taboo import SPEC
from pytest_gameeval.games.taboo.rules import guess_is_right, split_guess
from pytest_gameeval.players.scripted import ReplayPlayer, scripted_binder

APPLE = {"id": "apple", "word": "apple", "category": "food", "related": ["fruit", "orchard", "pie"]}
CLUES = ["It grows on trees.", "Keeps the doctor away.", "Red or green fruit.", "Pie filling.", "Orchard crop."]
LIST = "1. pear\n2. apple\n3. cherry\n4. plum\n5. peach"
NO_LIST = "I would rather not write any list of candidate words at this point."


def play(replies: dict[str, list], row=APPLE, **options):
    opts = SPEC.parse_options({"retrospective": False, **options})  # rules only; probes are tested below
    players = {name: ReplayPlayer(replies.get(name, []), name) for name in ("Guesser", "User")}
    record = asyncio.run(play_case(SPEC, Row(row["id"], row), 0, opts, lambda seat, role: players[seat.name]))
    return record, players


def test_right_guess_wins():
    record, _ = play({"User": CLUES[:2], "Guesser": ["Trees give shade.", "My guess of the word is: Apples."]})
    assert record.label == "guessed" and SPEC.score(record)["win"] == 1.0
    assert record.outcome["details"]["rounds"] == 2


def test_wrong_guess_loses():
    record, _ = play({"User": CLUES[:1], "Guesser": ["My guess of the word is: pear"]})
    assert record.label == "wrong_guess" and SPEC.score(record)["win"] == 0.0


def test_saying_the_word_loses_at_the_end_plural_aware_whole_word():
    record, players = play(
        {"User": CLUES, "Guesser": ["I like pineapple juice.", "I love APPLES!", "Hm.", "Ok.", "Nice."]}
    )
    assert record.label == "said_word" and SPEC.score(record)["win"] == 0.0
    assert record.outcome["details"]["rounds"] == 5 and record.outcome["details"]["said_in"] == 2
    # nothing tells the guesser it said the word while the game goes on
    assert not [
        m
        for m in players["Guesser"].prompts[-1].messages
        if m["role"] != "assistant" and "apple" in m["content"].lower()
    ]


def test_paper_e3_saying_the_word_then_guessing_it_is_a_model_win():
    """GameArena App. E.3: the model says SAMOA, later guesses it: the model wins."""
    samoa = {"id": "samoa", "word": "Samoa", "category": "place", "related": ["island", "pacific", "polynesia"]}
    record, _ = play({"User": ["A Pacific island nation.", "Its capital is Apia."],
                      "Guesser": ["Maybe Samoa or Tonga?", "My guess of the word is: SAMOA"]}, row=samoa)
    assert record.label == "guessed" and SPEC.score(record)["win"] == 1.0
    assert record.outcome["details"]["said_in"] == 1 and record.outcome["details"]["rounds"] == 2


def test_surviving_every_round_wins():
    record, _ = play({"User": CLUES, "Guesser": ["Interesting."] * 5})
    assert record.label == "survived" and SPEC.score(record)["win"] == 1.0
    assert record.outcome["details"]["rounds"] == 5


def test_clues_are_validated():
    long_clue = "x" * 141
    record, players = play({"User": [long_clue, "An apple a day...", "A fruit."], "Guesser": ["Nice."]}, max_rounds=1)
    assert record.failures["User"]["rule"] == 2
    assert record.label == "survived"
    assert "140" in players["User"].prompts[1].messages[-1]["content"]
    assert "contains the secret word" in players["User"].prompts[2].messages[-1]["content"]
    # a rejected clue never reaches the guesser
    assert "An apple a day" not in json.dumps(players["Guesser"].prompts[0].messages)


def test_guesser_forfeit_and_chat_error():
    record, _ = play({"User": CLUES[:1], "Guesser": ["", " ", ""]})
    assert record.label == "forfeit" and record.failures["Guesser"]["format"] == 3
    record, _ = play({"User": [None]})
    assert record.label == "CE"


def test_user_without_a_valid_clue_loses_only_the_message():
    record, players = play({"User": ["apple"] * 3, "Guesser": ["Hello?"]}, max_rounds=1)
    assert record.label == "survived"
    assert "no valid message" in json.dumps(players["Guesser"].prompts[0].messages)


def test_split_guess_and_judging():
    guess, rest = split_guess("Well, fruit. My guess of the word is: an apple. Bye")
    assert guess == "apple" and "apple" not in rest and rest.startswith("Well, fruit.") and rest.endswith("Bye")
    assert split_guess("no guess here") == (None, "no guess here")
    assert guess_is_right("Apples", "apple") and guess_is_right("Ice-cream", "ice cream")
    assert not guess_is_right("apple pie", "apple")


def test_retrospective_lists_are_recorded_and_hidden():
    guesser = ["Trees.", LIST, "Doctors!", NO_LIST, "My guess of the word is: apple"]
    record, players = play({"User": CLUES[:3], "Guesser": guesser}, retrospective=True)
    assert record.label == "guessed"
    probes = [e for e in record.events if e.kind == "action" and e.data.get("probe") == "retrospective"]
    assert [(p.round, p.data["ok"]) for p in probes] == [(1, True), (2, False)]
    assert record.failures["Guesser"]["format"] == 0
    last = players["Guesser"].prompts[-1]
    assert last.turn.action == "reply" and "Retrospective" not in json.dumps(last.messages)
    assert all("Retrospective" not in json.dumps(c.messages) for c in players["User"].prompts)
    score = SPEC.score(record)
    assert score["recall"] == 1.0 and score["final_rank"] == 2.0 and score["probe_failures"] == 1.0


def test_scripted_strong_guesser_beats_random_and_real_data_is_big_enough():
    opts = SPEC.parse_options({"limit": 10, "shuffle": True})
    rows = SPEC.select_rows(opts)
    assert len(SPEC.select_rows(SPEC.parse_options({}))) >= 200
    strong = [
        asyncio.run(play_case(SPEC, r, 0, opts, scripted_binder(SPEC, {"evaluated": "strong", "*": "random"})))
        for r in rows
    ]
    weak = [asyncio.run(play_case(SPEC, r, 0, opts, scripted_binder(SPEC, {"*": "random"}))) for r in rows]
    assert sum(r.label == "guessed" for r in strong) >= 7
    assert sum(r.label == "guessed" for r in weak) <= 2


def test_bad_arguments_and_data(tmp_path, monkeypatch):
    with pytest.raises(GameEvalError, match="unknown word"):
        SPEC.select_rows(SPEC.parse_options({"words": "no-such-word-xyz"}))
    (tmp_path / "taboo").mkdir()
    (tmp_path / "taboo" / "words.jsonl").write_text('{"id": "a", "word": "a", "category": "x", "related": "oops"}\n')
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    with pytest.raises(GameEvalError, match="words.jsonl:1"):
        SPEC.select_rows(SPEC.parse_options({}))


def test_a_confident_one_item_list_is_a_list():
    """GameArena accepts a single candidate the model is sure of; it is not a failed probe."""
    from pytest_gameeval.games.arena.rules import parse_ranked_list

    assert parse_ranked_list("Apple.") == {"items": ["Apple"], "truncated": False}
    assert parse_ranked_list("1. apple") == {"items": ["apple"], "truncated": False}
    with pytest.raises(ParseError):  # a sentence is not a candidate
        parse_ranked_list("I am not sure what the word could be yet.")
    record, _ = play(
        {"User": CLUES[:2], "Guesser": ["Trees.", "1. apple", "My guess of the word is: apple"]}, retrospective=True
    )
    assert SPEC.score(record)["recall"] == 1.0 and SPEC.score(record)["probe_failures"] == 0.0
