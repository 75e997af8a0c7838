"""Bluffing (GameArena, Hu et al.): the user defends a first-person statement that is true or
false (the row's label, which the simulated user knows and keeps to); the evaluated model asks
up to 5 questions, then says "I believe your statement is: True|False". A state machine that
never calls a model.

The host presents the statement from the data as the user's. The interrogator may give its
verdict early, at any question turn. After the last question it must give the verdict; a missing
or unreadable verdict (after re-prompts) loses: "no_verdict". A question turn with no legal reply
uses up the question. A user with no legal answer leaves the question unanswered.
Outcomes: "win" (verdict equals the label), "lose", "no_verdict", "CE" (a model call failed).

With retrospective probes, protocol=paper also probes once after the statement, before the first
question (round 0), as GameArena does; the default probes after each question round only.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.errors import ParseError
from pytest_gameeval.engine.game import ABORTED, CHAT_ERROR, Seat, Turn
from pytest_gameeval.engine.options import option
from pytest_gameeval.engine.parsing import plain_text
from pytest_gameeval.games.arena.rules import USER, USER_ROLE, ArenaGame, ArenaOptions
from pytest_gameeval.games.bluffing import prompts
from pytest_gameeval.games.bluffing.prompts import INTERROGATOR, LEVEL_NAMES, VERDICT_FORM

OUTCOMES = ("win", "lose", "no_verdict", "CE", ABORTED)
# the verdict form, or the instruction's own short form of it ('"... False"'): a reply offering both
# answers the way the host's line does is no verdict, whatever else the echo check finds
_VERDICT = re.compile(r"(?:i\s+believe\s+your\s+statement\s+is|\"(?:\.\.\.|\u2026))\s*:?\s*[*\"']*\s*(true|false)\b",
                      re.IGNORECASE)
_LEVEL = re.compile(r"\b(possibly\s+true|possibly\s+false|unknown|true|false)\b", re.IGNORECASE)


def read_verdict(text: str) -> bool | None:
    """The verdict of a reply's verdict forms, or None if it has none. Forms that disagree (often
    an echo of the instruction, which names both) are a format error, never the last one's value."""
    found = {v.lower() for v in _VERDICT.findall(text)}
    if len(found) > 1:
        raise ParseError(f'your reply gives both verdicts; give exactly one: "{VERDICT_FORM}"')
    return None if not found else found.pop() == "true"


def read_level(text: str) -> dict[str, Any]:
    """The first of the five levels named in the reply (longest names are tried first)."""
    m = _LEVEL.search(text)
    if not m:
        raise ParseError(f"reply with one of: {', '.join(LEVEL_NAMES)}")
    key = " ".join(m.group(1).lower().split())
    return {"level": next(n for n in LEVEL_NAMES if n.lower() == key)}


def require_verdict(text: str) -> bool:
    verdict = read_verdict(text)
    if verdict is None:
        raise ParseError('give your verdict as "I believe your statement is: True" or "... False"')
    return verdict


@dataclass(frozen=True, kw_only=True)
class BluffingOptions(ArenaOptions):
    max_questions: int = option(5, "questions before the verdict is due", min=1)
    statements: list[str] | None = option(None, "only these statement ids (comma-separated)")


class BluffingGame(ArenaGame):
    name = "bluffing"
    evaluated_seat = INTERROGATOR

    def __init__(self, row: dict[str, Any], rng: random.Random, options: BluffingOptions):
        persona = row.get("persona") or {}
        private = {
            "statement": row["statement"],
            "truth": bool(row["label"]),
            "name": persona.get("name", "the user"),
            "facts": list(persona.get("facts", [])),
        }
        super().__init__([Seat(INTERROGATOR, "interrogator"), Seat(USER, USER_ROLE, private)], rng, options)
        self.statement = row["statement"]
        self.truth = bool(row["label"])
        self.private = private
        self.max_questions = options.max_questions
        self.questions = 0
        self._question: str | None = None
        self._verdict_due = False
        self.host(f'The user states: "{self.statement}" The interrogator may ask up to {self.max_questions} questions.')
        self.round = 1
        if options.protocol == "paper" and self.retrospective:  # GameArena probes after the statement too
            self.round = 0
            self._probe_due = True

    def system_prompt(self, seat: str) -> str:
        if seat == INTERROGATOR:
            return prompts.interrogator_variants(self.max_questions)[self.variant]
        p = self.private
        return prompts.user_system(p["statement"], p["truth"], p["name"], p["facts"])

    def read_move(self, text: str) -> dict[str, Any]:
        verdict = read_verdict(text)
        if verdict is not None:
            return {"verdict": verdict, "text": plain_text(text, max_chars=1000)}
        return {"question": plain_text(text, max_chars=1000)}

    def pending_move(self) -> list[Turn]:
        if self._verdict_due:
            return [
                Turn(
                    INTERROGATOR,
                    "verdict",
                    prompts.VERDICT_INSTRUCTION,
                    lambda t: {"verdict": require_verdict(t), "text": t.strip()},
                    reply=prompts.VERDICT,
                )
            ]
        if self._question is not None:
            return [Turn(USER, "answer", None, lambda t: plain_text(t, max_chars=1000), reply=prompts.ANSWER)]
        return [
            Turn(
                INTERROGATOR,
                "ask",
                prompts.ask_instruction(self.round, self.max_questions),
                self.read_move,
                reply=prompts.MOVE,
                no_repeat=True,
            )
        ]

    def apply_move(self, turn: Turn, text: str, move: Any) -> None:
        if turn.action == "answer":
            self.say(USER, move)
            self._question = None
            self.round_done()
            return
        if "verdict" in move:
            self.say(INTERROGATOR, move["text"])
            self._verdict(move["verdict"])
            return
        self.say(INTERROGATOR, move["question"])
        self.questions += 1
        self._question = move["question"]

    def _verdict(self, verdict: bool) -> None:
        right = verdict == self.truth
        self.judge(f"verdict {verdict} against label {self.truth}", verdict=verdict)
        self.host(
            f"The statement was {'true' if self.truth else 'false'}; the verdict is {'right' if right else 'wrong'}."
        )
        self.finish("win" if right else "lose", winner=INTERROGATOR if right else USER, verdict=verdict)

    def forfeit_move(self, turn: Turn, kind: str, detail: str) -> None:
        if kind == CHAT_ERROR:
            self.finish("CE", seat=turn.seat, error=detail)
        elif turn.action == "verdict":
            self.finish("no_verdict", winner=USER, verdict=None)
        elif turn.action == "answer":
            self._question = None
            self.host("The user gave no answer to this question.")
            self.round_done()
        else:
            self.host(f"The interrogator made no valid move in round {self.round}; the question is used.")
            self.round_done()

    def after_round(self) -> None:
        if self.round == 0:  # protocol=paper's opening probe, before the first question
            self.round = 1
            return
        if self.round >= self.max_questions:
            self._verdict_due = True
        self.round += 1

    probe_reply = prompts.LEVEL

    def probe_instruction(self) -> str:
        return prompts.PROBE_INSTRUCTION

    def parse_probe(self, text: str) -> dict[str, Any]:
        return read_level(text)

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        details.update(truth=self.truth, rounds=self.questions, statement=self.statement, max_rounds=self.max_questions)
        super().finish(label, winner, **details)
