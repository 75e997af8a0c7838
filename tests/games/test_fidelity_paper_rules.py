"""Issue 26: the rules protocol=paper changes, each shown in the records of a game played with
scripted (replayed) players, beside the same replies under the default protocol.

Scripted players prove plumbing only: these tests say what the host does with given replies.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from conftest import FakePlayer

from pytest_gameeval.engine.events import ACTION, FAILURE, HOST_MSG, JUDGEMENT, SPEECH
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.tofukingdom.roles import LIE, OBLIGATION, title, true_answer
from pytest_gameeval.players.scripted import ReplayPlayer, scripted_binder


def play(game: str, replies: dict[str, list[str]], row: str | None = None, **options: Any) -> GameRecord:
    """One game whose seats replay `replies` (seat name -> replies in order)."""
    spec = get_spec(game)
    opts = spec.parse_options({"seed": 0, **options})
    rows = spec.select_rows(opts)
    chosen = next(r for r in rows if r.id == row) if row else rows[0]
    players = {seat: ReplayPlayer(list(texts), seat) for seat, texts in replies.items()}
    return asyncio.run(play_case(spec, chosen, 0, opts, lambda seat, role: players[seat.name]))


def failures(record: GameRecord, seat: str) -> list[tuple[str, str]]:
    return [(e.data["kind"], e.text) for e in record.events if e.kind == FAILURE and e.speaker == seat]


def spoken(record: GameRecord, seat: str) -> list[str]:
    return [e.text for e in record.events if e.kind == SPEECH and e.speaker == seat]


# -- 1. Ask-Guess: the hard-mode answerer may say only yes, no or gameover --------------------------


def test_askguess_paper_hard_mode_answer_must_be_yes_no_or_gameover():
    replies = {"Questioner": ["Is it a fruit?", "Is it an apple?"],
               "Answerer": ["Yes, it is a sweet fruit that grows on trees.", "Yes.", "gameover"]}
    paper = play("askguess", replies, words="apple", mode="hard", protocol="paper")
    assert failures(paper, "Answerer") == [
        ("rule", 'in hard mode the Answerer may reply only "yes", "no" or "gameover"')
    ]
    assert spoken(paper, "Answerer") == ["Yes.", "gameover"] and paper.label == "ST"
    # the default protocol takes the same hint as an answer
    default = play("askguess", {"Questioner": replies["Questioner"], "Answerer": [replies["Answerer"][0], "gameover"]},
                   words="apple", mode="hard")
    assert failures(default, "Answerer") == [] and default.label == "ST"
    assert spoken(default, "Answerer")[0].startswith("Yes, it is a sweet fruit")


def test_askguess_paper_easy_mode_answerer_may_give_hints():
    replies = {"Questioner": ["Is it a fruit?", "Is it an apple?"],
               "Answerer": ["A round thing that grows on trees.", "Yes, and it is often red or green.", "gameover"]}
    record = play("askguess", replies, words="apple", mode="easy", protocol="paper")
    assert failures(record, "Answerer") == [] and record.label == "ST"


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_askguess_answerer_prompts_differ_by_mode_only_under_the_paper_protocol(mode):
    spec = get_spec("askguess")
    prompts = {}
    for protocol in ("default", "paper"):
        opts = spec.parse_options({"protocol": protocol, "mode": mode, "words": "apple"})
        game, _ = spec.setup(spec.select_rows(opts)[0], 0, opts)
        prompts[protocol] = game.system_prompt("Answerer")
    assert "truthfully and briefly" in prompts["default"]
    if mode == "hard":
        assert 'one word only: "yes", "no", or "gameover"' in prompts["paper"] and "hints" not in prompts["paper"]
    else:
        assert "hints" in prompts["paper"] and '"yes", "no"' not in prompts["paper"]


# -- 2. Ask-Guess: whether a question names the word ------------------------------------------------


@pytest.mark.parametrize("word,question,default_label,paper_label", [
    ("couch", "Is it a sofa?", "ST", "EE"),  # an alias: ours counts it, GameEval's substring test does not
    ("apple", "Is it a pineapple?", "EE", "ST"),  # GameEval finds "apple" inside "pineapple"; whole words here
    ("apple", "Is it an apple?", "ST", "ST"),
])
def test_askguess_guess_matching_by_protocol(word, question, default_label, paper_label):
    replies = {"Questioner": [question], "Answerer": ["gameover"]}
    assert play("askguess", {k: list(v) for k, v in replies.items()}, words=word, mode="hard").label == default_label
    paper = play("askguess", replies, words=word, mode="hard", protocol="paper")
    assert paper.label == paper_label
    judged = next(e for e in paper.events if e.kind == JUDGEMENT and "correct" in e.data)
    assert judged.data["correct"] == (paper_label == "ST")


# -- 3. Taboo: the guesser is told it said the word and asked to guess -----------------------------

TABOO_USER = ["Think of: bark.", "Think of: leash.", "Think of: bone."]


@pytest.mark.parametrize("guess,label", [("dog", "guessed"), ("cat", "wrong_guess")])
def test_taboo_paper_tells_the_guesser_it_said_the_word_and_asks_for_a_guess(guess, label):
    replies = {"User": list(TABOO_USER), "Guesser": ["I walk my dog every day.", f"My guess of the word is: {guess}"]}
    paper = play("taboo", replies, words="dog", protocol="paper", retrospective=False, variant=0)
    notice = [e for e in paper.events if e.kind == HOST_MSG and e.data.get("action") == "guess"]
    assert len(notice) == 1 and "You have just said the secret word" in notice[0].text and "dog" not in notice[0].text
    assert notice[0].to == ("Guesser",) and notice[0].round == 1
    assert paper.label == label and paper.outcome["details"]["told_said_word"] is True
    # the default says nothing and plays on: the second reply is a guess in round 2 of 3
    default = play(
        "taboo",
        {"User": list(TABOO_USER), "Guesser": ["I walk my dog every day.", f"My guess of the word is: {guess}"]},
        words="dog",
        retrospective=False,
        variant=0,
        max_rounds=3,
    )
    assert not [e for e in default.events if e.kind == HOST_MSG and e.data.get("action") == "guess"]
    assert (
        default.label == label
        and default.outcome["details"]["rounds"] == 2
        and not default.outcome["details"]["told_said_word"]
    )


def test_taboo_paper_no_guess_after_the_notice_is_said_word():
    replies = {"User": list(TABOO_USER), "Guesser": ["I walk my dog every day.", "Hmm.", "Not sure.", "Really not."]}
    record = play("taboo", replies, words="dog", protocol="paper", retrospective=False, variant=0)
    assert record.label == "said_word" and [k for k, _ in failures(record, "Guesser")] == ["format"] * 3


# -- 6. TofuKingdom: GameEval's loop -----------------------------------------------------------------


def play_scripted(game: str, change=lambda ctx, text: None, strength: str = "oracle", **options: Any) -> GameRecord:
    spec = get_spec(game)
    opts = spec.parse_options({"seed": 0, **options})
    inner = scripted_binder(spec, {"*": strength}, 0)
    return asyncio.run(
        play_case(
            spec,
            spec.select_rows(opts)[0],
            0,
            opts,
            lambda seat, role: FakePlayer(inner=inner(seat, role), change=change),
        )
    )


def _extra_to_player_2(ctx, text):
    if ctx.turn.action == "extra":
        return json.dumps({"thought": "t", "player": "Player 2", "question": "identity"})
    return None


def test_tofukingdom_paper_extra_question_is_answered_by_the_last_player_asked():
    paper = play_scripted("tofukingdom", _extra_to_player_2, protocol="paper")
    d = paper.outcome["details"]
    assert d["extra_addressee"] == "Player 2" and d["extra_answerer"] == d["asking_order"][-1] == "Player 7"
    extra = [e for e in paper.events if e.kind == ACTION and e.data.get("extra")]
    assert [e.speaker for e in extra] == ["Player 7"] and extra[0].data["addressee"] == "Player 2"
    default = play_scripted("tofukingdom", _extra_to_player_2)
    assert default.outcome["details"]["extra_answerer"] == "Player 2"
    assert [e.speaker for e in default.events if e.kind == ACTION and e.data.get("extra")] == ["Player 2"]


def _liars_tell_the_truth(ctx, text):
    if ctx.turn.action == "answer" and OBLIGATION[ctx.seat.role] == LIE:
        kind, target = ctx.turn.data["kind"], ctx.turn.data.get("target")
        value = true_answer(kind, ctx.seat.name, target, ctx.seat.private["identities"])
        return json.dumps({"thought": "t", "answer": value if kind == "princess" else title(value)})
    return None


def test_tofukingdom_paper_accepts_broken_obligations():
    paper = play_scripted("tofukingdom", _liars_tell_the_truth, protocol="paper")
    liars = [n for n, r in paper.outcome["details"]["identities"].items() if OBLIGATION[r] == LIE]
    breaches = [e for e in paper.events if e.kind == ACTION and e.data.get("obligation_kept") is False]
    assert sorted(e.speaker for e in breaches) == sorted(liars) and all(e.data["truthful"] for e in breaches)
    assert not [f for s in liars for f in failures(paper, s)]
    assert get_spec("tofukingdom").score(paper)["obligation_breaches"] == 3.0
    default = play_scripted("tofukingdom", _liars_tell_the_truth)
    assert {k for s in liars for k, _ in failures(default, s)} == {"rule"}  # re-prompted, then forfeited
    assert get_spec("tofukingdom").score(default)["obligation_breaches"] == 0.0


def test_tofukingdom_paper_voids_an_attempt_without_a_valid_reply_and_starts_again():
    state = {"garbage": 3}  # the Prince's first three replies are unreadable: the first question is forfeited

    def garble(ctx, text):
        if ctx.seat.name == "Prince" and state["garbage"]:
            state["garbage"] -= 1
            return "I am not sure."
        return None

    paper = play_scripted("tofukingdom", garble, protocol="paper")
    d = paper.outcome["details"]
    assert d["voided"] == ["Prince gave no valid ask (format)"] and paper.label in ("prince", "queen", "spy")
    voided = [e for e in paper.events if e.data.get("void_attempt") == 1]
    assert voided and all(e.to == () for e in voided)  # kept in the record, out of every seat's view
    restart = next(e for e in paper.events if e.kind == HOST_MSG and "starts again" in e.text)
    assert (
        "void_attempt" not in restart.data
        and len([e for e in paper.events if e.kind == ACTION and "truthful" in e.data]) == 8
    )
    state["garbage"] = 3
    default = play_scripted("tofukingdom", garble)
    assert default.outcome["details"]["forfeits"]["ask"] == 1 and not default.outcome["details"]["voided"]


def test_tofukingdom_paper_game_with_every_attempt_void_counts_for_no_camp():
    paper = play_scripted(
        "tofukingdom", lambda ctx, text: "no idea" if ctx.seat.name == "Prince" else None, protocol="paper"
    )
    assert paper.label == "void" and paper.outcome["winner"] is None and len(paper.outcome["details"]["voided"]) == 5
    spec = get_spec("tofukingdom")
    assert spec.score(paper)["void"] == 1.0 and spec.score(paper)["win"] == 0.0
    other = play_scripted("tofukingdom", protocol="paper")
    summary = spec.summarize([paper, other])
    assert summary["games"] == 1 and summary["void_games"] == 1 and summary["winning_camp"][other.label]["k"] == 1


# -- 4. SpyGame: votes heard in turn, no word limit ------------------------------------------------


VOTE_HEARD = re.compile(r"Player \d votes for Player \d\.")


def test_spygame_paper_votes_are_heard_before_the_next_player_votes():
    paper = play_scripted("spygame", strength="random", protocol="paper")
    first_round = [e for e in paper.events if e.round == 1]
    asked = [i for i, e in enumerate(first_round) if e.kind == HOST_MSG and e.data.get("action") == "vote"]
    heard = [i for i, e in enumerate(first_round) if e.kind == HOST_MSG and VOTE_HEARD.fullmatch(e.text)]
    assert len(asked) >= 4 and len(heard) >= 4
    for later in asked[1:]:  # every voter after the first has heard the vote cast before its turn
        assert any(h < later for h in heard) and first_round[later].to == (first_round[later].to[0],)
    for before, after in zip(asked, asked[1:]):
        assert any(before < h < after for h in heard)
    default = play_scripted("spygame", strength="random")
    d_first = [e for e in default.events if e.round == 1]
    d_asked = [i for i, e in enumerate(d_first) if e.kind == HOST_MSG and e.data.get("action") == "vote"]
    d_heard = [i for i, e in enumerate(d_first) if e.kind == HOST_MSG and VOTE_HEARD.fullmatch(e.text)]
    assert max(d_asked[:4]) < min(d_heard)  # secret ballots: all asked before any is heard


def test_spygame_paper_has_no_description_word_limit():
    long = "a round sweet thing that you can find in many gardens and shops every day"

    def wordy(ctx, text):
        if ctx.turn.action == "describe" and ctx.attempt == 0:
            return json.dumps({**json.loads(text), "speak": long + " " + ctx.seat.name})
        return None

    paper = play_scripted("spygame", wordy, strength="random", protocol="paper")
    assert not [f for s in paper.outcome["details"]["words"] for f in failures(paper, s)]
    default = play_scripted("spygame", wordy, strength="random")
    assert {k for s in default.outcome["details"]["words"] for k, _ in failures(default, s)} == {"rule"}


# -- GameArena's five system prompts -----------------------------------------------------------------


@pytest.mark.parametrize("game,variants", [("akinator", "questioner_variants"), ("taboo", "guesser_variants"),
                                           ("bluffing", "interrogator_variants")])
def test_gamearena_games_ship_five_distinct_system_prompts(game, variants):
    import importlib

    texts = getattr(importlib.import_module(f"pytest_gameeval.games.{game}.prompts"), variants)(5)
    assert len(texts) == 5 and len({t.split(". ")[0] for t in texts}) == 5
    spec = get_spec(game)
    drawn = {
        spec.setup(spec.select_rows(spec.parse_options({}))[0], epoch, spec.parse_options({}))[0].variant
        for epoch in range(40)
    }
    assert drawn == set(range(5))


# -- 5. Bluffing: the probe after the statement ----------------------------------------------------


def test_bluffing_paper_probes_after_the_statement_before_the_first_question():
    paper = play_scripted("bluffing", strength="random", protocol="paper")
    probes = [e for e in paper.events if e.kind == ACTION and e.data.get("probe") == "retrospective"]
    first_question = next(i for i, e in enumerate(paper.events) if e.kind == SPEECH and e.speaker == "Interrogator")
    assert probes[0].round == 0 and paper.events.index(probes[0]) < first_question
    assert [p.round for p in probes[1:]] == list(range(1, len(probes)))
    default = play_scripted("bluffing", strength="random")
    assert [e.round for e in default.events if e.kind == ACTION and e.data.get("probe") == "retrospective"][0] == 1


# -- every changed rule in the records of one protocol=paper run with scripted players --------------


def test_a_paper_run_with_scripted_players_shows_every_changed_rule_in_its_records():
    """One protocol=paper game per game, scripted players (a Taboo guesser that says the word once)."""
    records = {
        "askguess": play_scripted("askguess", protocol="paper"),
        "taboo": play_scripted("taboo", lambda ctx, t: "My dog is great." if ctx.turn.action == "reply" else None,
                               strength="random", protocol="paper"),
        "spygame": play_scripted("spygame", strength="random", protocol="paper"),
        "bluffing": play_scripted("bluffing", strength="random", protocol="paper"),
        "tofukingdom": play_scripted("tofukingdom", _extra_to_player_2, protocol="paper"),
        "age": play_scripted("age", protocol="paper"),
    }
    for record in records.values():
        assert record.options["protocol"] == "paper"
    answers = spoken(records["askguess"], "Answerer")
    assert records["askguess"].options["mode"] == "hard" and {a.strip(".").lower() for a in answers} <= {
        "yes",
        "no",
        "gameover",
    }
    taboo = records["taboo"]
    assert [e for e in taboo.events if e.kind == HOST_MSG and e.data.get("action") == "guess"]
    assert taboo.outcome["details"]["told_said_word"] is True
    spygame = records["spygame"]
    assert spygame.options["voting"] == "public" and spygame.options["max_words"] == 0
    assert any(VOTE_HEARD.fullmatch(e.text) for e in spygame.events if e.kind == HOST_MSG)
    bluffing = records["bluffing"]
    assert next(e for e in bluffing.events if e.data.get("probe") == "retrospective").round == 0
    spec = get_spec("bluffing")
    assert {"recall_paper", "truth_side_share"} <= set(spec.score(bluffing)) and "recall" not in spec.score(bluffing)
    tofu = records["tofukingdom"].outcome["details"]
    assert tofu["extra_addressee"] == "Player 2" and tofu["extra_answerer"] == tofu["asking_order"][-1]
    age = get_spec("age").score(records["age"])
    assert {"filter_literal", "filter_full_length", "age_filter_literal", "age_filter_full_length"} <= set(age)
