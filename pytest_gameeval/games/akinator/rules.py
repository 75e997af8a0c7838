"""Akinator (GameArena, Hu et al.): the questioner finds the user's object in at most 20
questions. A state machine that never calls a model.

A round: the questioner asks (or guesses with "This is a guess -- are you thinking of X?");
a question is answered by the user with Yes, No, Probably Yes, Probably No or Don't Know (anything
else is a user rule violation and is re-prompted); a guess is judged by the host against the
object and its aliases (whole words, plural-aware). A wrong guess uses the round's question.

Outcomes: "win" (correct guess within the limit), "lose" (the limit passed), "CE" (a model call
failed). Only the guess form counts as a guess: "Is it a dog?" is a question the user answers.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.game import ABORTED, CHAT_ERROR, Seat, Turn
from pytest_gameeval.engine.matching import WordMatcher, normalize
from pytest_gameeval.engine.options import option
from pytest_gameeval.engine.parsing import plain_text
from pytest_gameeval.engine.views import quote
from pytest_gameeval.games.akinator import prompts
from pytest_gameeval.games.akinator.prompts import ANSWERS, QUESTIONER
from pytest_gameeval.games.arena.rules import (
    CLASSIFY,
    USER,
    USER_ROLE,
    ArenaGame,
    ArenaOptions,
    parse_ranked_list,
    ranked_list_instruction,
)

OUTCOMES = ("win", "lose", "CE", ABORTED)
_GUESS = re.compile(r"this\s+is\s+a\s+guess\W*are\s+you\s+thinking\s+of\s+(?P<x>[^?\n]+)", re.IGNORECASE)
_ANSWER_KEYS = {normalize(a).replace("'", ""): a for a in ANSWERS}
_ANSWER_KEYS.update({"dont know": "Don't Know", "do not know": "Don't Know", "i dont know": "Don't Know"})


def read_guess(text: str) -> str | None:
    """The X of the last guess form in a reply, or None if the reply is not a guess."""
    found = list(_GUESS.finditer(text))
    if not found:
        return None
    guess = re.sub(r"^(?:an?|the)\s+", "", found[-1].group("x").strip().strip("\"'*.").strip(), flags=re.IGNORECASE)
    return guess or None


def _guessed(text: str) -> list[str]:
    """The guess form's X, which must name a real thing (not the placeholder X)."""
    guess = read_guess(text)
    return [guess] if guess else []


def read_answer(text: str) -> str:
    """One of the five allowed answers (case and punctuation tolerant), else a rule violation."""
    key = re.sub(r"[^a-z ]", "", normalize(text).replace("'", "")).strip()
    key = " ".join(key.split())
    if key in _ANSWER_KEYS:
        return _ANSWER_KEYS[key]
    raise RuleViolation(f"answer with exactly one of: {', '.join(ANSWERS)}")


def read_classification(text: str, count: int) -> dict[str, Any]:
    """Judge lines '<n>. Yes|No' -> labels per candidate ('unknown' where missing)."""
    labels = ["unknown"] * count
    for line in text.splitlines():
        m = re.match(r"^\s*\(?(\d{1,2})\b(.*)$", line)
        if not m or not 1 <= int(m.group(1)) <= count:
            continue
        words = re.findall(r"\b(yes|no)\b", m.group(2).lower())
        if words:
            labels[int(m.group(1)) - 1] = words[-1]
    n_yes, n_no = labels.count("yes"), labels.count("no")
    if n_yes + n_no == 0:
        raise ParseError("no candidate was classified Yes or No")
    return {"labels": labels, "n_yes": n_yes, "n_no": n_no, "disparity": abs(n_yes - n_no) / (n_yes + n_no)}


@dataclass(frozen=True, kw_only=True)
class AkinatorOptions(ArenaOptions):
    max_questions: int = option(20, "questions (guesses included) before the questioner loses", min=1)
    objects: list[str] | None = option(None, "only these object ids (comma-separated)")


class AkinatorGame(ArenaGame):
    name = "akinator"
    evaluated_seat = QUESTIONER

    def __init__(self, row: dict[str, Any], rng: random.Random, options: AkinatorOptions):
        seats = [
            Seat(QUESTIONER, "questioner"),
            Seat(
                USER,
                USER_ROLE,
                {
                    "object": row["object"],
                    "aliases": list(row.get("aliases", [])),
                    "attributes": dict(row.get("attributes", {})),
                },
            ),
        ]
        super().__init__(seats, rng, options)
        self.object = row["object"]
        self.aliases = list(row.get("aliases", []))
        self.matcher = WordMatcher(self.object, tuple(self.aliases))
        self.max_questions = options.max_questions
        self.guesses: list[dict[str, Any]] = []
        self._question: str | None = None  # the question awaiting the user's answer
        self._last_list: list[str] | None = None  # the questioner's latest probed candidates
        self._list_round = -1
        self.host(f"Akinator begins. The questioner has {self.max_questions} questions to find the user's object.")
        self.round = 1

    def system_prompt(self, seat: str) -> str:
        if seat == QUESTIONER:
            return prompts.questioner_variants(self.max_questions)[self.variant]
        return prompts.user_system(self.object, self.aliases)

    def pending_move(self) -> list[Turn]:
        if self._question is not None:
            return [Turn(USER, "answer", None, read_answer, reply=prompts.ANSWER)]
        return [
            Turn(
                QUESTIONER,
                "ask",
                prompts.ask_instruction(self.round, self.max_questions),
                lambda t: plain_text(t, max_chars=1000),
                reply=prompts.QUESTION,
                no_repeat=True,
                word_slots=_guessed,
            )
        ]

    def apply_move(self, turn: Turn, text: str, spoken: str) -> None:
        if turn.action == "answer":
            self.say(USER, spoken)
            self._question = None
            self.round_done()
            return
        self.say(QUESTIONER, spoken)
        guess = read_guess(spoken)
        if guess is None:
            self._question = spoken
            self._queue_disparity(spoken)
            return
        correct = self.matcher.mentioned_in(guess)
        self.guesses.append({"round": self.round, "guess": guess, "correct": correct})
        self.judge(f"guess {guess!r} is {'right' if correct else 'wrong'}", guess=guess, correct=correct)
        if correct:
            self.host(f"Yes! The object was {self.object}.")
            self.finish("win", winner=QUESTIONER, rounds=self.round)
            return
        self.host(f"No, it is not {quote(guess)}.")
        self.round_done()

    def _queue_disparity(self, question: str) -> None:
        # Disparity needs the previous round's list and a judge: the user seat classifies it.
        if self.retrospective and self._last_list and self._list_round == self.round - 1:
            self.queue_record_only(
                USER, CLASSIFY, prompts.classify_instruction(question, self._last_list),
                lambda t, n=len(self._last_list): read_classification(t, n), prompts.CLASSIFICATION,
                question=question, candidates=list(self._last_list),
            )

    def forfeit_move(self, turn: Turn, kind: str, detail: str) -> None:
        if kind == CHAT_ERROR:
            self.finish("CE", rounds=self.round, seat=turn.seat, error=detail)
        elif turn.action == "answer":
            self._question = None
            self.host("The user gave no valid answer to this question.")
            self.round_done()
        else:
            self.host(f"The questioner made no valid move in round {self.round}; the question is used.")
            self.round_done()

    def after_round(self) -> None:
        if self.round >= self.max_questions:
            self.host(f"No questions left. The object was {self.object}.")
            self.finish("lose", winner=USER, rounds=self.round)
        else:
            self.round += 1

    def probe_instruction(self) -> str:
        return ranked_list_instruction("objects")

    def parse_probe(self, text: str) -> dict[str, Any]:
        result = parse_ranked_list(text)
        self._last_list, self._list_round = result["items"], self.round
        return result

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        details.update(target=self.object, aliases=self.aliases, guesses=self.guesses, max_rounds=self.max_questions)
        super().finish(label, winner, **details)
