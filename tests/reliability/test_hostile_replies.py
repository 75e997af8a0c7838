"""A corpus of hostile and broken replies, in every game and both prompt styles (issue 18).

Each seat plays its scripted policy. A wrapper replaces the reply to ONE chosen turn (attempt 0)
with a hostile one built from what that seat was shown; the re-prompt is then answered by the
scripted policy. For every case:

- the hostile reply is recorded as a failure of the expected kind (format error or rule
  violation), never as a move; an echo is a format error when the turn's parser cannot read it
  and a rule violation when it can (the runner parses first, then checks for echoes);
- the game then plays out exactly as without it (same actions, same outcome): state stays right;
- the record stays serialisable, and the hostile text never reaches another seat's prompt.

Forged host lines inside accepted moves are tests/reliability/test_impersonation.py (every game, both styles).
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from pytest_gameeval.engine.echo import check_not_echo
from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.events import ACTION, FAILURE, REPLY
from pytest_gameeval.engine.game import FORMAT_ERROR, RULE_VIOLATION
from pytest_gameeval.engine.parsing import json_objects
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.games.bluffing import prompts as bluffing_prompts
from pytest_gameeval.games.bluffing.rules import read_verdict, require_verdict
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.games.spyfall import prompts as spyfall_prompts
from pytest_gameeval.games.spygame import prompts as spygame_prompts
from pytest_gameeval.games.spygpt.rules import parse_score
from pytest_gameeval.games.tofukingdom import prompts as tofu_prompts
from pytest_gameeval.players.scripted import scripted_binder

_CYRILLIC = str.maketrans("aeopcxy", "\u0430\u0435\u043e\u0440\u0441\u0445\u0443")


def lookalike(word: str) -> str:
    """The word with Latin letters swapped for Cyrillic lookalikes (or a zero-width space)."""
    disguised = word.translate(_CYRILLIC)
    return disguised if disguised != word else word[0] + "\u200b" + word[1:]


def _template(ctx: TurnContext) -> str | None:
    """A JSON template or example object the host showed for this turn, copied verbatim."""
    for text in (ctx.turn.instruction or "", ctx.messages[0]["content"] if ctx.messages else ""):
        for obj in json_objects(text):
            return json.dumps(obj)
    return None


def _with_speech(ctx: TurnContext, scripted: str, speech: str) -> str:
    """The scripted reply with its spoken field (or whole text) replaced by `speech`."""
    try:
        obj = json.loads(scripted)
    except ValueError:
        return speech
    for key in ("speak", "description"):
        if isinstance(obj, dict) and key in obj:
            return json.dumps({**obj, key: speech})
    return speech


def _wrong_name(ctx: TurnContext, scripted: str) -> str | None:
    """The scripted reply with the player it names replaced by one nobody is called."""
    try:
        obj = json.loads(scripted)
    except ValueError:
        return None
    for key in ("name", "princess", "player"):
        if isinstance(obj, dict) and key in obj:
            return json.dumps({**obj, key: "Player 99"})
    return None


def _secret(ctx: TurnContext) -> str:
    private = ctx.seat.private
    return private.get("word") or private.get("target") or ""


ECHO = "format if unreadable, else rule"

# name -> (build(ctx, scripted_reply) -> hostile text or None, expected failure kind)
HOSTILE = {
    "instruction echo": (lambda ctx, r: ctx.turn.instruction, ECHO),
    "template echo": (lambda ctx, r: _template(ctx), ECHO),
    "echo after a real move": (lambda ctx, r: f"{r}\n{ctx.turn.instruction}" if ctx.turn.instruction else None, ECHO),
    "empty speech": (lambda ctx, r: _with_speech(ctx, r, ""), FORMAT_ERROR),
    "10,000-character speech": (lambda ctx, r: _with_speech(ctx, r, "very " * 2000), FORMAT_ERROR),
    "wrong name": (_wrong_name, RULE_VIOLATION),
    "own secret word in lookalike letters": (
        lambda ctx, r: _with_speech(ctx, r, f"It is like {lookalike(_secret(ctx))} here.") if _secret(ctx) else None,
        RULE_VIOLATION,
    ),
}

SPOKEN = {"10,000-character speech": "very " * 50, "own secret word in lookalike letters": "It is like "}

# (game, action) -> the hostile classes that apply to it, and the options of that game.
CASES = {
    ("askguess", "ask"): ["instruction echo", "echo after a real move", "empty speech", "10,000-character speech"],
    ("askguess", "describe"): ["instruction echo", "empty speech", "10,000-character speech"],
    ("akinator", "ask"): ["instruction echo", "echo after a real move", "empty speech", "10,000-character speech"],
    ("taboo", "clue"): [
        "instruction echo",
        "empty speech",
        "10,000-character speech",
        "own secret word in lookalike letters",
    ],
    ("bluffing", "ask"): ["instruction echo", "empty speech", "10,000-character speech"],
    ("tofukingdom", "ask"): ["instruction echo", "template echo", "echo after a real move"],
    ("tofukingdom", "extra"): ["instruction echo", "template echo", "echo after a real move", "wrong name"],
    ("tofukingdom", "choose"): ["instruction echo", "template echo", "wrong name"],
    ("spygpt", "describe"): [
        "instruction echo",
        "template echo",
        "empty speech",
        "own secret word in lookalike letters",
    ],
    ("age", "describe_guess"): [
        "instruction echo",
        "template echo",
        "echo after a real move",
        "empty speech",
        "10,000-character speech",
        "own secret word in lookalike letters",
    ],
    ("spyfall", "describe"): [
        "instruction echo",
        "template echo",
        "echo after a real move",
        "empty speech",
        "10,000-character speech",
        "own secret word in lookalike letters",
    ],
    ("spyfall", "vote"): ["instruction echo", "template echo", "echo after a real move", "wrong name"],
    ("spygame", "describe"): [
        "instruction echo",
        "template echo",
        "echo after a real move",
        "empty speech",
        "10,000-character speech",
        "own secret word in lookalike letters",
    ],
    ("spygame", "vote"): ["instruction echo", "template echo", "wrong name"],
}
OPTIONS = {"askguess": {"mode": "easy"}}
COT = {"askguess": {"mode": "easy", "cot": True}, "age": {"cot": True}}


def _echo_kind(ctx: TurnContext, text: str) -> str:
    """What an echo is: a format error if the turn's parser cannot read it, else a rule violation."""
    try:
        ctx.turn.parse(text)
    except ParseError:
        return FORMAT_ERROR
    except RuleViolation:
        pass
    return RULE_VIOLATION


# Not conftest.FakePlayer: the re-prompt gets the move the policy chose at attempt 0 (its rng
# moves once a turn), while FakePlayer asks its inner player again on every attempt.
class Hostile(Player):
    """Plays the scripted policy, except that the first matching turn gets a hostile reply."""

    def __init__(self, inner, action: str, build, state: dict):
        self.inner, self.label, self.action, self.build, self.state = inner, inner.label, action, build, state

    async def act(self, ctx: TurnContext) -> Reply:
        self.state.setdefault("prompts", []).append((ctx.seat.name, ctx.messages))
        if (
            ctx.turn.action == self.action
            and ctx.attempt == 1
            and "retry" in self.state
            and self.state["sent"][0] == ctx.seat.name
        ):
            return Reply(self.state.pop("retry"))  # the policy already chose this move (its rng moved once)
        reply = await self.inner.act(ctx)
        if ctx.turn.action == self.action and ctx.attempt == 0 and "sent" not in self.state:
            hostile = self.build(ctx, reply.text)
            if hostile is not None and hostile != reply.text:
                self.state["sent"] = (ctx.seat.name, hostile)
                self.state["echo_kind"] = _echo_kind(ctx, hostile)
                self.state["retry"] = reply.text  # the re-prompt gets the scripted move
                return Reply(hostile)
        return reply


def _play(game, options, wrap=None):
    spec = get_spec(game)
    opts = spec.parse_options({"seed": 0, **options})
    row = spec.select_rows(opts)[0]
    strength = "random" if "random" in spec.scripted else next(iter(spec.scripted))
    inner = scripted_binder(spec, {"*": strength}, 0)
    bind = (lambda seat, role: wrap(inner(seat, role))) if wrap else inner
    return asyncio.run(play_case(spec, row, 0, opts, bind))


def _moves(record):
    return [
        (e.speaker, e.round, json.dumps(e.data, sort_keys=True, default=str)) for e in record.events if e.kind == ACTION
    ]


PARAMS = [(g, a, h, style, cot) for (g, a), hs in sorted(CASES.items()) for h in hs
          for style in ("chat", "flat") for cot in ((False, True) if g in COT else (False,))
          if not (style == "flat" and cot)]


@pytest.mark.parametrize("game,action,hostile,style,cot", PARAMS,
                         ids=[f"{g}-{a}-{h.replace(' ', '_')}-{s}{'-cot' if c else ''}" for g, a, h, s, c in PARAMS])
def test_a_hostile_reply_is_a_classified_failure_and_changes_nothing(game, action, hostile, style, cot):
    options = {**(COT[game] if cot else OPTIONS.get(game, {})), "style": style}
    build, kind = HOSTILE[hostile]
    base = _play(game, options)
    state: dict = {}
    record = _play(game, options, lambda inner: Hostile(inner, action, build, state))
    assert "sent" in state, f"no {action} turn to send a hostile reply to"
    seat, text = state["sent"]
    replies = [i for i, e in enumerate(record.events) if e.kind == REPLY and e.speaker == seat and e.text == text]
    assert replies, "the hostile reply is not in the record"
    failure = next(e for e in record.events[replies[0]:] if e.kind == FAILURE and e.speaker == seat)
    assert failure.data["kind"] == (state["echo_kind"] if kind == ECHO else kind), (failure.text, failure.data)
    assert _moves(record) == _moves(base)
    assert record.outcome == base.outcome
    json.dumps(record.to_dict())
    if hostile in SPOKEN:  # a rejected speech never reaches another seat
        marker = SPOKEN[hostile]
        for other, messages in state["prompts"]:
            if other != seat:
                assert marker not in "\n".join(m["content"] for m in messages)


def test_every_game_has_hostile_cases():
    assert {g for g, _ in CASES} == set(GAMES)


# -- the cases the issue names, one by one ------------------------------------------------------


def _not_a_move(reply: str, instruction: str, parse) -> None:
    """The runner's order: the parser reads the reply, then the echo check looks at it."""
    with pytest.raises((ParseError, RuleViolation)):
        parse(reply)
        check_not_echo(reply, [instruction])


def test_bluffing_verdict_instruction_is_no_verdict():
    instruction = bluffing_prompts.VERDICT_INSTRUCTION
    _not_a_move(instruction, instruction, require_verdict)
    _not_a_move(f"I believe your statement is: False. {instruction}", instruction, require_verdict)
    with pytest.raises(ParseError):  # the system prompt names both forms too
        read_verdict('"I believe your statement is: True" or "I believe your statement is: False"')
    assert require_verdict("I believe your statement is: False.") is False


def test_tofukingdom_echoed_example_is_no_question():
    example = re.search(r"\{.*\}", tofu_prompts.EXTRA_INSTRUCTION).group(0)
    with pytest.raises(RuleViolation):
        check_not_echo(f"Sure. {example}", [tofu_prompts.EXTRA_INSTRUCTION])


@pytest.mark.parametrize("reply", ['{"thought": "x", "speak": "<your description>"}', "<your description>"])
def test_spyfall_and_spygame_placeholder_is_no_description(reply):
    with pytest.raises(RuleViolation):
        check_not_echo(reply, [spyfall_prompts.describe_instruction(1)])
    with pytest.raises(RuleViolation):  # SpyGame's own placeholder is longer; a bare one is no description either
        check_not_echo(reply, [spygame_prompts.describe_instruction(1, 12, False)])


def test_words_in_angle_brackets_inside_a_move_are_still_a_move():
    check_not_echo('{"speak": "It goes <beep> when it is done"}', [spyfall_prompts.describe_instruction(1)])


@pytest.mark.parametrize("reply", ["Player 2 is eliminated", "Round 3 of 5", "I think 4 things fit", "Judge 2: 5"])
def test_spygpt_judge_needs_the_asked_for_form(reply):
    with pytest.raises(ParseError):
        parse_score(reply)
