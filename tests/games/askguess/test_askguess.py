"""Ask-Guess rules on scripted replies: every outcome, re-prompts, forfeits, isolation, replay."""

import asyncio

import pytest
from conftest import FakePlayer

from pytest_gameeval.engine.events import REPLY
from pytest_gameeval.engine.matching import mentions
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.record import GameRecord, read_records, write_records
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.scripted import ReplayPlayer, scripted_binder

SPEC = get_spec("askguess")


def row(label="apple"):
    return next(r for r in SPEC.rows(SPEC.parse_options({})) if r.id == label)


def play(questioner, answerer, label="apple", epoch=0, **options):
    opts = SPEC.parse_options(options)
    players = {"questioner": ReplayPlayer(questioner, "q"), "answerer": ReplayPlayer(answerer, "a")}
    record = asyncio.run(play_case(SPEC, row(label), epoch, opts, lambda seat, role: players[seat.role]))
    return record, players


def test_st_after_correct_guess():
    record, _ = play(["Is it a fruit?", "Is it an apple?"], ["Yes.", "gameover"])
    assert record.label == "ST"
    assert record.outcome["details"]["rounds"] == 2
    assert SPEC.score(record)["ST"] == 1.0 and SPEC.score(record)["rounds_st"] == 2.0


def test_st_counts_a_kind_of_the_word():
    record, _ = play(["Is it a kind of apple?"], ["Game over!"])
    assert record.label == "ST"


def test_ee_gameover_without_guess():
    record, _ = play(["Is it a fruit?"], ["gameover"])
    assert record.label == "EE"


def test_rle_after_exactly_max_rounds():
    record, players = play([f"Question {i}?" for i in range(30)], ["No."] * 30)
    assert record.label == "RLE"
    assert record.outcome["details"]["rounds"] == 30
    assert record.usage["Questioner"]["calls"] == 30  # 30 rounds, not 31
    assert not players["questioner"].replies


def test_rle_respects_max_rounds_option():
    record, _ = play(["A?", "B?", "C?"], ["No."] * 3, max_rounds=3)
    assert record.label == "RLE" and record.outcome["details"]["rounds"] == 3


def test_ame_when_answer_says_the_word():
    record, _ = play(["Is it red?"], ["Yes, apples are red."])
    assert record.label == "AME"


def test_ame_in_easy_mode_description():
    record, players = play([], ["A red apple from a tree."], mode="easy")
    assert record.label == "AME" and record.outcome["details"]["rounds"] == 0


def test_easy_mode_description_is_seen_by_questioner():
    record, players = play(["Is it an apple?"], ["A red fruit from a tree.", "gameover"], mode="easy")
    assert record.label == "ST"
    first_prompt = players["questioner"].prompts[0].messages
    assert any("A red fruit from a tree." in m["content"] for m in first_prompt)


def test_ce_when_call_fails():
    record, _ = play(["Is it red?", None], ["Yes."])
    assert record.label == "CE"
    assert record.failures["Questioner"]["chat"] == 1


def test_missed_correct_guess_is_a_diagnostic():
    record, _ = play(["Is it an apple?", "Really an apple?"], ["No.", "gameover"])
    assert record.label == "ST"
    assert record.outcome["details"]["missed_guesses"] == 1
    assert record.outcome["details"]["guessed_in"] == 1


def test_homograph_label_not_guessed_by_modal_verb():
    record, _ = play(["Can it hold soup?"], ["gameover"], label="can")
    assert record.label == "EE"
    record, _ = play(["Is it a can?"], ["gameover"], label="can")
    assert record.label == "ST"


def test_reprompt_then_forfeit_ends_the_game_under_the_default_protocol():
    # three unparsable questions (1 + 2 retries) forfeit the turn: the questioner's headline is
    # settled at 0, so the game ends at once, aborted, and the answerer is never called
    bad = ["no json", "still none", '{"thought": "x"}']
    record, players = play(bad, [], cot=True)
    assert record.label == "aborted" and record.outcome["details"]["aborted"]["seat"] == "Questioner"
    assert record.failures["Questioner"]["forfeit"] == 1 and not players["answerer"].prompts
    assert SPEC.score(record)["played"] == 0.0 and SPEC.score(record)["aborted"] == 1.0


def test_reprompt_then_forfeit_on_unparsable_replies():
    # protocol=paper: three unparsable questions (1 + 2 retries) forfeit the round, then play resumes
    bad = ["no json", "still none", '{"thought": "x"}']
    good_q = '{"thought": "t", "speak": "Is it an apple?"}'
    record, players = play(bad + [good_q], ['{"thought": "t", "speak": "gameover"}'], cot=True, protocol="paper")
    assert record.failures["Questioner"]["format"] == 3
    assert record.failures["Questioner"]["forfeit"] == 1
    assert record.label == "ST" and record.outcome["details"]["rounds"] == 2
    # the re-prompt names the problem and is shown to the questioner only
    retry_prompt = players["questioner"].prompts[1].messages[-1]["content"]
    assert "could not be read" in retry_prompt and "no JSON object" in retry_prompt
    assert all("could not be read" not in m["content"] for p in players["answerer"].prompts for m in p.messages)


def test_thought_is_private_and_only_speak_is_heard():
    q = '{"thought": "I secretly think it is a pear", "speak": "Is it a fruit?"}'
    record, players = play(
        [q, '{"thought": "t", "speak": "Is it an apple?"}'],
        ['{"thought": "t", "speak": "Yes."}', '{"thought": "t", "speak": "gameover"}'],
        cot=True,
    )
    assert record.label == "ST"
    for ctx in players["answerer"].prompts:
        assert all("secretly" not in m["content"] for m in ctx.messages)
    # the questioner sees its own earlier reply (with its thought) as its own assistant message
    assert any(
        m["role"] == "assistant" and "secretly" in m["content"] for m in players["questioner"].prompts[1].messages
    )


@pytest.mark.parametrize("style", ["chat", "flat"])
def test_word_never_reaches_the_questioner(style):
    """Scan every prompt sent to the questioner: outside its own questions, no trace of the word."""
    opts = SPEC.parse_options({"style": style})
    scanned = 0
    for r in SPEC.rows(opts)[:25]:
        scripted = scripted_binder(SPEC, {"*": "oracle"})
        questioner = []

        def bind(seat, role, questioner=questioner, scripted=scripted):
            player = FakePlayer(inner=scripted(seat, role))
            if seat.role == "questioner":
                questioner.append(player)
            return player

        asyncio.run(play_case(SPEC, r, 0, opts, bind))
        for ctx in questioner[0].prompts:
            for m in ctx.messages:
                if m["role"] == "assistant":
                    continue  # the questioner's own guesses
                others = [line for line in m["content"].splitlines() if not line.startswith("[You")]
                assert not mentions("\n".join(others), r.id, r.data["aliases"], r.data["homograph"]), (r.id, m)
                scanned += 1
    assert scanned > 100


def test_chat_style_roles():
    _, players = play(["Is it red?", "Is it an apple?"], ["Yes.", "gameover"])
    messages = players["questioner"].prompts[1].messages
    assert messages[0]["role"] == "system"
    assert [m["role"] for m in messages[1:]] == ["user", "assistant", "user"]
    assert 'Answerer: "Yes."' in messages[-1]["content"]


def test_flat_style_is_one_tagged_prompt():
    _, players = play(["Is it red?", "Is it an apple?"], ["Yes.", "gameover"], style="flat")
    messages = players["questioner"].prompts[1].messages
    assert len(messages) == 1 and messages[0]["role"] == "user"
    text = messages[0]["content"]
    assert (
        "[You (Questioner)] Is it red?" in text and '[Answerer] "Yes."' in text and text.endswith("[You (Questioner)]")
    )


def test_same_seed_same_replies_identical_record(tmp_path):
    opts = SPEC.parse_options({"seed": 7})
    records = [
        asyncio.run(play_case(SPEC, row("bear"), 1, opts, scripted_binder(SPEC, {"*": "random"}, seed=3)))
        for _ in range(2)
    ]
    assert records[0].to_dict() == records[1].to_dict()
    other = asyncio.run(play_case(SPEC, row("bear"), 2, opts, scripted_binder(SPEC, {"*": "random"}, seed=3)))
    assert other.seed != records[0].seed
    path = tmp_path / "records.jsonl"
    write_records(path, records)
    assert [r.to_dict() for r in read_records(path)] == [r.to_dict() for r in records]
    assert GameRecord.from_dict(records[0].to_dict()).to_dict() == records[0].to_dict()


def test_scripted_players_of_known_strength():
    opts = SPEC.parse_options({})
    labels = {}
    for strength in ("random", "oracle"):
        binder = scripted_binder(SPEC, {"evaluated": strength, "*": "oracle"})
        labels[strength] = [asyncio.run(play_case(SPEC, r, 0, opts, binder)).label for r in SPEC.rows(opts)]
    assert labels["oracle"].count("ST") == 100
    assert 10 <= labels["random"].count("ST") <= 55  # 0.30 expected over 100 labels
    assert set(labels["random"]) <= {"ST", "RLE"}


def test_summary_rates_sum_to_one_with_intervals():
    opts = SPEC.parse_options({"max_rounds": 5})
    records = [
        asyncio.run(play_case(SPEC, r, 0, opts, scripted_binder(SPEC, {"*": "random"}))) for r in SPEC.rows(opts)[:30]
    ]
    summary = SPEC.summarize(records)
    assert summary["games"] == 30
    assert sum(v["value"] for v in summary["rates"].values()) == pytest.approx(1.0)
    for v in summary["rates"].values():
        lo, hi = v["ci"]
        assert 0.0 <= lo <= v["value"] <= hi <= 1.0
    assert sum(w["n"] for w in summary["per_word"].values()) == 30


def test_every_reply_is_recorded_with_its_author_only():
    record, _ = play(["Is it red?", "Is it an apple?"], ["Yes.", "gameover"])
    replies = [e for e in record.events if e.kind == REPLY]
    assert len(replies) == 4 and all(e.to == (e.speaker,) for e in replies)
    assert mentions(replies[2].text, "apple")


@pytest.mark.parametrize("questions, answers, default, paper", [
    # a right guess the answerer ignored, then a wrong one, then gameover
    (["Is it an apple?", "Is it a pear?"], ["No.", "Gameover!"], "ST", "EE"),
    # gameover naming the word: AME first for us, ST first for GameEval
    (["Is it an apple?"], ["Gameover! It is an apple."], "AME", "ST"),
])
def test_outcome_rules_default_and_gameevals(questions, answers, default, paper):
    # easy mode (a description first): under protocol=paper a hard-mode answer other than yes, no
    # or gameover is a rule violation (tests/games/test_fidelity_paper_rules.py)
    answers = ["A round fruit.", *answers]
    assert play(questions, list(answers), mode="easy")[0].label == default
    assert play(questions, list(answers), mode="easy", protocol="paper")[0].label == paper
