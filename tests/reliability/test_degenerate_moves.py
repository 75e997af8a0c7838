"""Degenerate moves are not play (issue 25), in all nine games, both protocols, chat and flat,
structured decoding on and off.

Each seat plays its scripted policy. A wrapper answers attempt 0 of EVERY turn that asks for words
(a question, a clue, a description, a guess: `Field.expects == "words"`) with a move that is
well-formed but empty of content, built from the turn's own reply format: the scripted reply with
every words field replaced (a digit string, punctuation, a placeholder). Turns with a guess form get
the form with the placeholder X; turns whose seat may not repeat itself (questions) get its previous
question again. The re-prompt gets the scripted move. For every case the degenerate reply is a rule
violation labelled ``degenerate`` (never a move), counted in the record's failures, and the game
plays out exactly as without it. The scripted policies themselves make no degenerate move (no false
positives), and legit short moves (votes by number, yes/no, one real word) pass the check.
"""

from __future__ import annotations

import json

import pytest
from test_echoed_instructions import STYLES, _play, structured_seat
from test_hostile_replies import _moves

from pytest_gameeval.engine.degenerate import DEGENERATE, DegenerateMove, check_list_items, check_move, check_words
from pytest_gameeval.engine.errors import RuleViolation
from pytest_gameeval.engine.events import FAILURE, REPLY
from pytest_gameeval.engine.game import RULE_VIOLATION, Turn
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.engine.replies import text_reply
from pytest_gameeval.games.arena.rules import _never_raises, parse_ranked_list
from pytest_gameeval.games.registry import GAMES

# the corpus: what small models wrote under structured decoding, and kin
EMPTY = {"digits": "1000000000000", "punctuation": '":[{"', "placeholder X": "X", "ellipsis": "...",
         "angle placeholder": "<answer here>", "word": "word", "keyword": "keyword"}
GUESS_FORMS = {"taboo": "My guess of the word is: X", "akinator": "This is a guess -- are you thinking of X?"}


def _words_fields(turn: Turn) -> list[str]:
    fmt = turn.reply
    return [f.name for f in fmt.fields if f.expects == "words"] if fmt is not None else []


def _with_words(turn: Turn, scripted: str, value: str) -> str | None:
    """The scripted reply with every words field replaced by `value` (None: the turn asks no words)."""
    fields = _words_fields(turn)
    if not fields:
        return None
    if turn.reply.text:
        return value
    obj = json.loads(scripted)
    if not any(f in obj for f in fields):
        return None
    return json.dumps({**obj, **{f: value for f in fields if f in obj}})


# Not conftest.FakePlayer: the re-prompt gets the move the policy chose at attempt 0 (its rng
# moves once a turn), while FakePlayer asks its inner player again on every attempt.
class Degenerate(Player):
    """The scripted policy, except that attempt 0 of every words turn is a degenerate move."""

    def __init__(self, inner, make, log: list):
        self.inner, self.label, self.make, self.log = inner, inner.label, make, log
        self.accepted: dict[str, str] = {}  # action -> this seat's last scripted move

    async def act(self, ctx: TurnContext) -> Reply:
        if ctx.turn.record_only:
            return await self.inner.act(ctx)
        if ctx.attempt == 0:
            self._move = await self.inner.act(ctx)  # the policy chooses once (its rng moves once)
            bad = self.make(ctx, self._move.text, self.accepted.get(ctx.turn.action))
            self.accepted[ctx.turn.action] = self._move.text
            if bad is None or bad == self._move.text:
                return self._move
            self.log.append((ctx.seat.name, ctx.turn.action, bad))
            return Reply(bad)
        return self._move if ctx.attempt == 1 else await self.inner.act(ctx)


def _empty(value: str):
    return lambda ctx, scripted, previous: _with_words(ctx.turn, scripted, value)


def _guess_form(game: str):
    return lambda ctx, scripted, previous: (
        GUESS_FORMS[game] if ctx.turn.word_slots and _words_fields(ctx.turn) else None
    )


def _repeat(ctx, scripted, previous):
    """The seat's previous move again, written a little differently (so the record tells the two apart)."""
    if not ctx.turn.no_repeat or previous is None:
        return None
    return previous + " " if ctx.turn.reply.text else json.dumps(json.loads(previous), indent=1)


def _reply_of(record, seat: str, bad: str) -> int | None:
    """The index of the reply that carried `bad` (as written, or as a structured reply's one field)."""
    for i, e in enumerate(record.events):
        if e.kind != REPLY or e.speaker != seat:
            continue
        if e.text == bad:
            return i
        try:
            obj = json.loads(e.text)
        except ValueError:
            continue
        if isinstance(obj, dict) and len(obj) == 1 and next(iter(obj.values())) == bad:
            return i
    return None


def _check_every_move_was_degenerate(record, log):
    assert log, "no turn got a degenerate move"
    for seat, action, bad in log:
        at = _reply_of(record, seat, bad)
        assert at is not None, f"{action}: the degenerate reply {bad!r} is not in the record"
        after = next(e for e in record.events[at + 1:] if e.speaker == seat and e.kind in (FAILURE, "action", "speech"))
        assert (
            after.kind == FAILURE and after.data["kind"] == RULE_VIOLATION and after.data.get("reason") == DEGENERATE
        ), (action, bad, after)
    degenerate = sum(per_seat.get(DEGENERATE, 0) for per_seat in record.failures.values())
    assert degenerate == len(log) and record.failure_totals()[RULE_VIOLATION] >= degenerate


def _no_degenerate(record):
    assert not [e.text for e in record.events if e.kind == FAILURE and e.data.get("reason") == DEGENERATE]
    assert all(per_seat.get(DEGENERATE, 0) == 0 for per_seat in record.failures.values())


CORPUS = {**{name: _empty(value) for name, value in EMPTY.items()}, "repeated question": _repeat}


@pytest.mark.parametrize("structured", [False, True], ids=["plain", "structured"])
@pytest.mark.parametrize("protocol", ["default", "paper"])
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("game", list(GAMES))
def test_a_degenerate_move_is_a_labelled_rule_violation_on_every_turn(game, style, protocol, structured):
    wrap = structured_seat if structured else (lambda inner: inner)
    base = _play(game, style, wrap, protocol)
    _no_degenerate(base)  # the scripted policies make none: no false positives
    asked_words = {a for a in (e.data.get("action") for e in base.events if e.kind == REPLY and "probe" not in e.data)}
    covered = set()
    corpus = dict(CORPUS)
    if game in GUESS_FORMS:
        corpus["guess of the placeholder X"] = _guess_form(game)
    for name, make in corpus.items():
        log: list = []
        record = _play(game, style, lambda inner: wrap(Degenerate(inner, make, log)), protocol)
        if not WORDS_ACTIONS[game] or (name == "repeated question" and not log):
            assert not log  # TofuKingdom asks only for choices; some games ask no questions
            continue
        _check_every_move_was_degenerate(record, log)
        assert _moves(record) == _moves(base) and record.outcome == base.outcome, name
        covered |= {action for _, action, _ in log}
    # every action that asks for words got the corpus (choices and numbers are the parser's: below)
    words_actions = {
        e.data["action"] for e in base.events if e.kind == "host_msg" and e.data.get("action")
    } | asked_words
    assert covered or not WORDS_ACTIONS[game], "no turn of this game asks for words"
    assert covered >= {a for a in words_actions if a in WORDS_ACTIONS[game]}, (covered, WORDS_ACTIONS[game])


# the actions of each game whose reply holds words (the rest are choices: votes, verdicts, ratings, answers from a list)
WORDS_ACTIONS = {
    "askguess": {"ask", "answer", "describe"}, "akinator": {"ask"}, "taboo": {"clue", "reply"},
    "bluffing": {"ask", "answer"}, "tofukingdom": set(), "spygpt": {"describe"}, "age": {"describe_guess"},
    "spyfall": {"describe", "vote"}, "spygame": {"describe"},
}


def test_tofukingdom_asks_only_for_choices():
    """Its every field is an enum or private reasoning: nothing to be degenerate, all the parser's."""
    record = _play("tofukingdom", "chat")
    _no_degenerate(record)


@pytest.mark.parametrize("move", ["Yes.", "No", "gameover", "apple", "Is it alive?", "Is it an X-ray machine?",
                                  "I believe your statement is: True", "Think of: fruit.", "Player 3", "It barks."])
def test_legit_short_moves_pass(move):
    check_words(move)
    check_move(Turn("s", "ask", None, lambda t: t, reply=text_reply("question", "<q>")), move, [])


@pytest.mark.parametrize("move", ["3", "1", "yes"])
def test_a_choice_may_be_a_number_where_a_question_may_not(move):
    vote = Turn("s", "vote", None, lambda t: t, reply=text_reply("score", "<1 to 5>", enum=("1", "2", "3", "yes")))
    check_move(vote, move, [])  # a vote or rating "3" is legal (its parser judges the options)
    question = Turn("s", "ask", None, lambda t: t, reply=text_reply("question", "<q>"))
    if move.isdigit():
        with pytest.raises(DegenerateMove):
            check_move(question, move, [])


@pytest.mark.parametrize("move", [*EMPTY.values(), "Is it X?", "[word]", "  ", "?!"])
def test_the_corpus_is_degenerate_as_words(move):
    if not move.strip():
        check_words(move)  # empty is the parser's format error, not judged here
        return
    with pytest.raises(DegenerateMove) as raised:
        check_words(move)
    assert isinstance(raised.value, RuleViolation)


def test_a_real_word_that_looks_like_a_placeholder_passes_where_the_game_knows_it():
    """AGE's Twitter has the synonym "X": a guess of it is a real move in that pair."""
    turn = Turn(
        "s",
        "describe_guess",
        None,
        lambda t: t,
        reply=text_reply("guess", "<the other word>"),
        real_words=frozenset({"x"}),
    )
    check_move(turn, "X", [])
    with pytest.raises(DegenerateMove):
        check_move(Turn("s", "g", None, lambda t: t, reply=text_reply("guess", "<w>")), "X", [])


def test_a_repeated_question_is_degenerate_but_a_new_one_is_not():
    turn = Turn("s", "ask", None, lambda t: t, reply=text_reply("question", "<q>"), no_repeat=True)
    check_move(turn, "Is it alive?", ["Is it red?"])
    with pytest.raises(DegenerateMove):
        check_move(turn, "is it alive", ["Is it red?", "Is it alive?"])


def test_a_repeated_question_inside_chain_of_thought_json_is_degenerate():
    from pytest_gameeval.games.askguess.prompts import COT
    turn = Turn("s", "ask", None, lambda t: t, reply=COT, no_repeat=True)
    first = json.dumps({"thought": "start broad", "speak": "Is it alive?"})
    again = json.dumps({"thought": "ask it again", "speak": "Is it alive?"})
    from pytest_gameeval.engine.degenerate import words_of
    with pytest.raises(DegenerateMove):
        check_move(turn, again, [words_of(turn, first)])


def test_a_candidate_list_of_non_words_is_a_failed_probe_labelled_degenerate():
    probe = _never_raises(parse_ranked_list, "List the objects you now think most likely.")
    assert probe("1. apple\n2. pear")["ok"]
    failed = probe('":[{"\n1000')
    assert not failed["ok"] and failed["kind"] == "rule" and failed["reason"] == DEGENERATE
    with pytest.raises(DegenerateMove):
        check_list_items(["...", "42"])
