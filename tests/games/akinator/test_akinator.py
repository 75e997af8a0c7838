"""Akinator rules, probes and scripted players, with scripted replies (no model)."""

from __future__ import annotations

import asyncio
import json

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.events import FAILURE
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.spec import Row
from pytest_gameeval.games.akinator import SPEC
from pytest_gameeval.games.akinator.rules import read_answer, read_guess
from pytest_gameeval.players.scripted import ReplayPlayer, scripted_binder

DOG = {"id": "dog", "object": "dog", "aliases": ["puppy", "hound"], "category": "animal",
       "attributes": {"alive": True, "animal": True, "flies": False}}
GUESS = "This is a guess -- are you thinking of {}?"
LIST = "1. cat\n2. dog\n3. horse\n4. cow\n5. sheep"


def play(replies: dict[str, list], row=DOG, **options):
    opts = SPEC.parse_options({"max_questions": 20, "retrospective": False, **options})
    players = {name: ReplayPlayer(replies.get(name, []), name) for name in ("Questioner", "User")}
    record = asyncio.run(play_case(SPEC, Row(row["id"], row), 0, opts, lambda seat, role: players[seat.name]))
    return record, players


def test_correct_guess_by_alias_wins():
    record, _ = play({"Questioner": ["Is it alive?", GUESS.format("a puppy")], "User": ["Yes"]})
    assert record.label == "win"
    assert record.outcome["details"]["rounds"] == 2
    assert record.outcome["details"]["guesses"] == [{"round": 2, "guess": "puppy", "correct": True}]


def test_wrong_guess_uses_a_question_and_the_limit_loses():
    record, _ = play({"Questioner": [GUESS.format("cat"), "Is it alive?"], "User": ["Yes"]}, max_questions=2)
    assert record.label == "lose"
    assert record.outcome["details"]["rounds"] == 2
    assert record.outcome["details"]["guesses"][0]["correct"] is False


def test_a_plain_question_naming_the_object_is_not_a_guess():
    record, _ = play({"Questioner": ["Is it a dog?"], "User": ["Yes"]}, max_questions=1)
    assert record.label == "lose"


def test_user_answers_are_validated_and_reprompted():
    record, players = play(
        {"Questioner": ["Is it alive?", GUESS.format("dog")], "User": ["Yeah, sure!", "probably yes."]}
    )
    assert record.label == "win"
    assert record.failures["User"]["rule"] == 1
    said = [e.text for e in record.events if e.kind == "speech" and e.speaker == "User"]
    assert said == ["Probably Yes"]
    assert "breaks a rule" in players["User"].prompts[1].messages[-1]["content"]


def test_user_without_a_valid_answer_leaves_the_question_unanswered():
    record, _ = play({"Questioner": ["Is it alive?", GUESS.format("dog")], "User": ["maybe", "hmm", "perhaps"]})
    assert record.label == "win"
    assert record.failures["User"]["forfeit"] == 1
    assert any("no valid answer" in e.text for e in record.events)


def test_chat_error_ends_the_game():
    record, _ = play({"Questioner": [None]})
    assert record.label == "CE"


@pytest.mark.parametrize("text,expected", [
    ("Yes", "Yes"), ("no.", "No"), ("Probably No!", "Probably No"), ("Don't know", "Don't Know"),
    ("dont know", "Don't Know"), ("DON\u2019T KNOW", "Don't Know"),
])
def test_read_answer_accepts_the_five_answers(text, expected):
    assert read_answer(text) == expected


@pytest.mark.parametrize("text", ["Yes, it is alive", "Maybe", "", "Probably"])
def test_read_answer_rejects_anything_else(text):
    from pytest_gameeval.engine.errors import RuleViolation

    with pytest.raises(RuleViolation):
        read_answer(text)


def test_read_guess():
    assert read_guess("Hmm. This is a guess -- are you thinking of a red apple?") == "red apple"
    assert read_guess("this is a guess: are you thinking of The Moon") == "Moon"
    assert read_guess("Is it an apple?") is None


def test_secret_never_reaches_the_questioner():
    record, players = play({"Questioner": ["Is it alive?", "Can it fly?"], "User": ["Yes", "No"]}, max_questions=2)
    for ctx in players["Questioner"].prompts:
        text = json.dumps(ctx.messages).lower()
        assert "dog" not in text and "puppy" not in text


def test_retrospective_probe_is_recorded_and_hidden():
    questioner = [
        "Is it alive?",
        LIST,
        "Does it bark?",
        "I would rather not write any list of candidate objects at this time.",
        GUESS.format("dog"),
    ]
    user = ["Yes", "1. No\n2. Yes\n3. No\n4. No\n5. No", "Yes"]
    record, players = play({"Questioner": questioner, "User": user}, retrospective=True)
    assert record.label == "win"
    probes = [e for e in record.events if e.kind == "action" and e.data.get("probe") == "retrospective"]
    assert [(p.round, p.data["ok"]) for p in probes] == [(1, True), (2, False)]
    assert probes[0].data["items"] == ["cat", "dog", "horse", "cow", "sheep"]
    # the failed probe is not a game format error, and no re-prompt was made
    assert record.failures["Questioner"]["format"] == 0
    assert not [e for e in record.events if e.kind == FAILURE]
    # the judge classified round 1's list for round 2's question: 1 yes, 4 no
    judged = [e for e in record.events if e.kind == "action" and e.data.get("probe") == "classify"]
    assert len(judged) == 1 and judged[0].data["n_yes"] == 1 and judged[0].data["n_no"] == 4
    assert judged[0].data["disparity"] == pytest.approx(3 / 5)
    # later prompts never show a probe, to either seat; the game moves are untouched
    ask_prompts = [c for c in players["Questioner"].prompts if c.turn.action == "ask"]
    assert "Retrospective" not in json.dumps(ask_prompts[-1].messages)
    assert "cat" not in json.dumps(ask_prompts[-1].messages)
    answer_prompts = [c for c in players["User"].prompts if c.turn.action == "answer"]
    assert "Judging task" not in json.dumps(answer_prompts[-1].messages)
    assert all("Retrospective" not in json.dumps(c.messages) for c in players["User"].prompts)


def test_probe_does_not_change_the_game():
    moves = {"Questioner": ["Is it alive?", "Can it fly?", GUESS.format("dog")], "User": ["Yes", "No"]}
    plain, _ = play({k: list(v) for k, v in moves.items()})
    probed, _ = play({"Questioner": ["Is it alive?", LIST, "Can it fly?", LIST, GUESS.format("dog")],
                      "User": ["Yes", "1. No\n2. No\n3. No\n4. No\n5. No", "No"]}, retrospective=True)
    visible = lambda r: [(e.kind, e.speaker, e.text) for e in r.events if e.to is None]  # noqa: E731
    assert visible(plain) == visible(probed)
    assert plain.label == probed.label == "win"


def test_variant_is_drawn_from_the_seed_recorded_and_can_be_pinned():
    drawn = {SPEC.setup(Row("dog", DOG), epoch, SPEC.parse_options({"seed": 3}))[0].variant for epoch in range(40)}
    assert drawn == {0, 1, 2, 3, 4}  # GameArena's five system prompts
    record, players = play({"Questioner": [GUESS.format("dog")]}, variant=1)
    assert record.outcome["details"]["variant"] == 1
    assert players["Questioner"].prompts[0].messages[0]["content"].startswith("Let's play a guessing game")
    with pytest.raises(GameEvalError):
        play({"Questioner": []}, variant=7)


def test_unknown_task_argument_is_one_clear_error():
    with pytest.raises(GameEvalError, match="unknown task argument"):
        SPEC.parse_options({"colour": "red"})
    with pytest.raises(GameEvalError, match="unknown object"):
        SPEC.select_rows(SPEC.parse_options({"objects": "dog,unicorn-xyz"}))


def test_malformed_object_file_is_one_clear_error(tmp_path, monkeypatch):
    (tmp_path / "akinator").mkdir()
    (tmp_path / "akinator" / "attributes.json").write_text(json.dumps({"alive": "Is it alive?", "red": "Is it red?"}))
    (tmp_path / "akinator" / "objects.jsonl").write_text(json.dumps({**DOG, "attributes": {"alive": True}}) + "\n")
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    with pytest.raises(GameEvalError, match="lacks boolean attribute"):
        SPEC.select_rows(SPEC.parse_options({}))


def _scripted(strength: str, n: int, **options):
    opts = SPEC.parse_options({"limit": n, "shuffle": True, **options})
    bind = scripted_binder(SPEC, {"evaluated": strength, "*": "strong"})
    return [asyncio.run(play_case(SPEC, row, 0, opts, bind)) for row in SPEC.select_rows(opts)]


def test_real_data_has_enough_objects():
    assert len(SPEC.select_rows(SPEC.parse_options({}))) >= 250


def test_halving_questioner_beats_random_one():
    strong = _scripted("strong", 8)
    weak = _scripted("random", 8, max_questions=10)
    assert sum(r.label == "win" for r in strong) >= 7
    assert sum(r.label == "win" for r in weak) <= 2
    # the halving questioner's candidate lists contain the target ever more often
    probed = _scripted("strong", 3, retrospective=True)
    assert all(SPEC.score(r)["recall"] > 0 for r in probed)


def test_same_seed_same_game():
    a = _scripted("random", 2, max_questions=5, retrospective=True)
    b = _scripted("random", 2, max_questions=5, retrospective=True)
    assert [x.to_dict() for x in a] == [x.to_dict() for x in b]


def test_disparity_separates_halving_from_random_questions():
    # known strengths: the halving questioner splits its candidates far more evenly
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    strong = [SPEC.score(r)["disparity"] for r in _scripted("strong", 3, retrospective=True, max_questions=6)]
    weak = [SPEC.score(r)["disparity"] for r in _scripted("random", 3, retrospective=True, max_questions=6)]
    strong, weak = [v for v in strong if v == v], [v for v in weak if v == v]  # drop NaN (no question)
    assert strong and weak and mean(strong) < mean(weak)
