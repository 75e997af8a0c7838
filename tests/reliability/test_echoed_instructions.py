"""An echoed instruction is never a move (issue 26), in all nine games, chat and flat styles.

Each seat plays its scripted policy (scripted players: plumbing only). A wrapper answers the first
attempt of EVERY turn that has an instruction with that instruction as the seat saw it in its
prompt: the whole host line, speaker tag included ("Host: ..." in chat style, "[Host] ..." in
flat style), as small models copy it. The re-prompt then gets the scripted move. For every turn:

- the echo is recorded as a failure (a rule violation if the turn's parser could read it, a format
  error if not), never as a move: the game plays out exactly as without the echoes;
- turns whose instruction offers options (a verdict, a vote, a yes/no answer, a guess form) are
  echoed once per option too: the echo followed by the option alone is still the instruction
  restated, whichever option it happens to contain.

The issue's own case (Bluffing's verdict, both prompt styles) is checked word for word at the end.
"""

from __future__ import annotations

import json

import pytest
from conftest import FakePlayer
from test_hostile_replies import _moves
from test_hostile_replies import _play as play_scripted

from pytest_gameeval.engine.echo import check_not_echo
from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.events import ACTION, FAILURE, REPLY
from pytest_gameeval.engine.game import FORMAT_ERROR, RULE_VIOLATION
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.games.bluffing import prompts as bluffing_prompts
from pytest_gameeval.games.bluffing.rules import require_verdict
from pytest_gameeval.games.registry import GAMES

STYLES = ("chat", "flat")
# options that make every kind of instructed turn happen in a short game
OPTIONS = {"askguess": {"mode": "easy", "max_rounds": 3}, "akinator": {"max_questions": 3}, "taboo": {"max_rounds": 2},
           "bluffing": {"max_questions": 2}}


def shown_line(ctx: TurnContext) -> str:
    """The host's instruction for this turn as it stands in the seat's prompt, speaker tag included."""
    prompt = ctx.messages[-1]["content"]
    first = ctx.turn.instruction.splitlines()[0]
    lines = [line for line in prompt.splitlines() if first in line]
    assert lines, f"the instruction of {ctx.turn.action} is not in the prompt"
    start = prompt.index(lines[-1])
    return prompt[start:start + len(lines[-1]) + len(ctx.turn.instruction) - len(first)]


# Not conftest.FakePlayer: the re-prompt gets the move the policy chose at attempt 0 (its rng
# moves once a turn), while FakePlayer asks its inner player again on every attempt.
class Echoing(Player):
    """The scripted policy, except that attempt 0 of every instructed turn is an echo of it."""

    def __init__(self, inner, log: list, extra: str = ""):
        self.inner, self.label, self.log, self.extra = inner, inner.label, log, extra

    async def act(self, ctx: TurnContext) -> Reply:
        if ctx.turn.record_only or not ctx.turn.instruction:
            return await self.inner.act(ctx)
        if ctx.attempt == 0:
            echo = shown_line(ctx) + self.extra
            self.log.append((ctx.seat.name, ctx.turn.action, echo))
            self._move = await self.inner.act(ctx)  # the policy chooses once (its rng moves once)
            return Reply(echo)
        return self._move if ctx.attempt == 1 else await self.inner.act(ctx)


def _as_structured(ctx, text: str) -> str | None:
    """A plain-text turn's reply is {"<field>": "<text>"} (engine/replies.py)."""
    fmt = ctx.turn.reply
    if fmt is None:
        return None
    if fmt.text:
        return json.dumps({fmt.fields[0].name: text})
    try:  # a JSON turn: an echo goes into every string field
        obj = json.loads(text)
    except ValueError:
        return json.dumps({f.name: text for f in fmt.fields if f.name})
    return None if isinstance(obj, dict) else json.dumps({"value": obj})


def structured_seat(inner) -> FakePlayer:
    """A structured-decoding player around `inner`."""
    return FakePlayer(inner=inner, change=_as_structured, structured=True)


def _play(game: str, style: str, wrap=None, protocol: str = "default"):
    return play_scripted(game, {"style": style, "protocol": protocol, **OPTIONS.get(game, {})}, wrap)


def _check_every_echo_failed(record, log):
    assert log, "no instructed turn was echoed"
    for seat, action, echo in log:
        at = [i for i, e in enumerate(record.events) if e.kind == REPLY and e.speaker == seat and e.text == echo]
        assert at, f"{action}: the echo is not in the record"
        for i in at:
            after = next(
                e for e in record.events[i + 1 :] if e.speaker == seat and e.kind in (FAILURE, ACTION, "speech")
            )
            assert after.kind == FAILURE and after.data["kind"] in (FORMAT_ERROR, RULE_VIOLATION), (action, echo, after)


@pytest.mark.parametrize("protocol", ["default", "paper"])
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("game", list(GAMES))
def test_an_echoed_instruction_is_never_a_move(game, style, protocol):
    base = _play(game, style, protocol=protocol)
    log: list = []
    record = _play(game, style, lambda inner: Echoing(inner, log), protocol)
    _check_every_echo_failed(record, log)
    assert _moves(record) == _moves(base) and record.outcome == base.outcome
    assert {a for _, a, _ in log} >= {
        e.data.get("action") for e in base.events if e.kind == "host_msg" and e.data.get("action")
    } - {"retrospective", "classify", "tom"}


# what each game's instructions offer, as the words of the options (an echo plus one of them)
OFFERED = {
    "bluffing": ['"I believe your statement is: True"', '"I believe your statement is: False"', "True", "False"],
    "spyfall": ['{"vote": "Player 1"}', "Player 2"],
    "spygame": ['{"vote": "Player 1"}', "Player 2"],
    "tofukingdom": ['{"princess": "Player 1"}', "Player 3"],
    "akinator": ["This is a guess -- are you thinking of dog?", "Yes"],
    "askguess": ["gameover", "yes", "no"],
    "taboo": ["My guess of the word is: apple"],
    "spygpt": ["5", "1"],
    "age": ['{"guess": "apple"}'],
}


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("game,option", [(g, o) for g in GAMES for o in OFFERED[g]])
def test_an_echo_with_an_option_added_is_still_no_move(game, option, style):
    log: list = []
    record = _play(game, style, lambda inner: Echoing(inner, log, "\n" + option))
    _check_every_echo_failed(record, log)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("game", list(GAMES))
def test_an_echo_inside_a_structured_reply_is_never_a_move(game, style):
    """Under structured decoding the echo arrives as a JSON string: its quotes are escaped there."""
    base = _play(game, style, structured_seat)
    log: list = []
    record = _play(game, style, lambda inner: structured_seat(Echoing(inner, log)))
    log[:] = [(seat, action, _as_json(record, seat, echo)) for seat, action, echo in log]
    _check_every_echo_failed(record, log)
    assert _moves(record) == _moves(base) and record.outcome == base.outcome


def _as_json(record, seat: str, echo: str) -> str:
    """The structured reply that carried `echo` (the wrapper put it in a JSON field)."""
    return next(e.text for e in record.events if e.kind == REPLY and e.speaker == seat and echo in _decoded(e.text))


def _decoded(text: str) -> str:
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    return " ".join(str(v) for v in obj.values()) if isinstance(obj, dict) else text


@pytest.mark.parametrize("tag", ["Host: ", "[Host] ", ""])
def test_the_issues_bluffing_echo_is_no_verdict(tag):
    reply = tag + bluffing_prompts.VERDICT_INSTRUCTION
    with pytest.raises((ParseError, RuleViolation)):
        require_verdict(reply)
        check_not_echo(reply, [bluffing_prompts.VERDICT_INSTRUCTION])


@pytest.mark.parametrize("reply", [
    'Host: No questions left. Give your verdict now: "I believe your statement is: True"',  # cut by a length cap
    '[Host] No questions left. Give your verdict now: "I believe your statement is: True" or',
])
def test_a_cut_echo_of_the_verdict_instruction_is_no_verdict(reply):
    assert require_verdict(reply) is True  # it reads as a verdict ...
    with pytest.raises(RuleViolation, match="repeats the host's instructions"):  # ... but is the host's words
        check_not_echo(reply, [bluffing_prompts.VERDICT_INSTRUCTION])


def test_the_instructions_tail_offers_both_answers_and_is_no_verdict():
    """Issue 45: '"... False"' is the instruction's short form of the other verdict."""
    with pytest.raises(ParseError, match="both verdicts"):
        require_verdict('"I believe your statement is: True" or "... False".')


@pytest.mark.parametrize("reply", ["I believe your statement is: False", '"I believe your statement is: True"',
                                   "I believe your statement is: True. He hesitated twice."])
def test_the_quoted_verdict_form_is_the_players_to_use(reply):
    check_not_echo(reply, [bluffing_prompts.VERDICT_INSTRUCTION])
