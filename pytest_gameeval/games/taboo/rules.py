"""Taboo (GameArena, Hu et al.): the user tries to make the evaluated model say a target word.
A state machine that never calls a model.

A round: the user gives a message (at most 140 characters, never containing the word, as a
whole word or plural: otherwise a user rule violation, re-prompted); the guesser replies. A reply
may guess with "My guess of the word is: X". Decisions (GameArena's rule, its App. E.3 example):
- a guess X equal to the word or its plural (case, space and punctuation folded) wins: "guessed",
  even if the guesser said the word earlier (the example: it says SAMOA, then guesses it);
- any other guess loses: "wrong_guess";
- saying the word outside a guess clause does not end the game (nothing tells the guesser); if the
  game then ends by the round limit without a right guess, the user has won: "said_word";
- surviving every round without saying the word wins: "survived".
A guesser with no legal reply after re-prompts loses ("forfeit"); a user with no legal message
loses the round's message (the round still counts). A failed model call ends the game: "CE".

protocol=paper (GameArena App. A.1.2, E.3): when a reply says the word outside a guess clause,
the host tells the guesser that it has said the word (not which) and asks for its guess at once;
that guess decides the game ("guessed" or "wrong_guess"; no readable guess after re-prompts:
"said_word"). The default tells the guesser nothing and plays on.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.game import ABORTED, CHAT_ERROR, Seat, Turn
from pytest_gameeval.engine.matching import WordMatcher, plural_forms, squash
from pytest_gameeval.engine.options import option
from pytest_gameeval.engine.parsing import plain_text
from pytest_gameeval.games.arena.rules import (
    USER,
    USER_ROLE,
    ArenaGame,
    ArenaOptions,
    parse_ranked_list,
    ranked_list_instruction,
)
from pytest_gameeval.games.taboo import prompts
from pytest_gameeval.games.taboo.prompts import GUESSER, MAX_CLUE

OUTCOMES = ("guessed", "survived", "said_word", "wrong_guess", "forfeit", "CE", ABORTED)
WINS = ("guessed", "survived")
_GUESS = re.compile(r"my\s+guess\s+of\s+the\s+word\s+is\s*[:\-]?\s*(?P<x>[^\n.!?,;]*)", re.IGNORECASE)


def _guessed(text: str) -> list[str]:
    """The guess form's X, which must name a real word (not the placeholder X)."""
    guess = split_guess(text)[0]
    return [guess] if guess else []


def split_guess(text: str) -> tuple[str | None, str]:
    """(the guessed word or None, the reply with the guess clause removed)."""
    found = list(_GUESS.finditer(text))
    if not found:
        return None, text
    last = found[-1]
    guess = re.sub(r"^(?:an?|the)\s+", "", last.group("x").strip().strip("\"'*").strip(), flags=re.IGNORECASE)
    rest = _GUESS.sub(" ", text)
    return guess or None, rest


def guess_is_right(guess: str, word: str) -> bool:
    return squash(guess) in {squash(form) for form in plural_forms(word.lower())}


@dataclass(frozen=True, kw_only=True)
class TabooOptions(ArenaOptions):
    max_rounds: int = option(5, "rounds the guesser must survive", min=1)
    words: list[str] | None = option(None, "only these word ids (comma-separated)")


class TabooGame(ArenaGame):
    name = "taboo"
    evaluated_seat = GUESSER

    def __init__(self, row: dict[str, Any], rng: random.Random, options: TabooOptions):
        related = list(row.get("related", []))
        seats = [Seat(GUESSER, "guesser"), Seat(USER, USER_ROLE, {"word": row["word"], "related": related})]
        super().__init__(seats, rng, options)
        self.word = row["word"]
        self.related = related
        self.matcher = WordMatcher(self.word)
        self.max_rounds = options.max_rounds
        self._clue_given = False
        self.said_in: int | None = None  # first round whose reply said the word outside a guess
        self.paper = options.protocol == "paper"
        self._guess_due = False  # protocol=paper: told it said the word, the guesser must guess now
        self.host(f"Taboo begins: {self.max_rounds} rounds.")
        self.round = 1

    def system_prompt(self, seat: str) -> str:
        if seat == GUESSER:
            return prompts.guesser_variants(self.max_rounds)[self.variant]
        return prompts.user_system(self.word, self.related, self.max_rounds)

    def read_clue(self, text: str) -> str:
        clue = plain_text(text, max_chars=1000)
        if len(clue) > MAX_CLUE:
            raise RuleViolation(f"your message has {len(clue)} characters; the limit is {MAX_CLUE}")
        if self.matcher.mentioned_in(clue):
            raise RuleViolation("your message contains the secret word")
        return clue

    def read_told_guess(self, text: str) -> str:
        reply = plain_text(text, max_chars=1000)
        if split_guess(reply)[0] is None:
            raise ParseError(f'give your guess as "{prompts.GUESS_FORM}" with the word in place of X')
        return reply

    def pending_move(self) -> list[Turn]:
        if self._guess_due:
            return [
                Turn(
                    GUESSER,
                    "guess",
                    prompts.SAID_WORD_NOTICE,
                    self.read_told_guess,
                    reply=prompts.REPLY,
                    word_slots=_guessed,
                )
            ]
        if not self._clue_given:
            return [
                Turn(
                    USER,
                    "clue",
                    prompts.clue_instruction(self.round, self.max_rounds),
                    self.read_clue,
                    reply=prompts.CLUE,
                )
            ]
        return [
            Turn(
                GUESSER,
                "reply",
                None,
                lambda t: plain_text(t, max_chars=1000),
                reply=prompts.REPLY,
                word_slots=_guessed,
            )
        ]

    def apply_move(self, turn: Turn, text: str, spoken: str) -> None:
        if turn.action == "clue":
            self.say(USER, spoken)
            self._clue_given = True
            return
        self.say(GUESSER, spoken)
        self._clue_given = False
        self._guess_due = False
        guess, rest = split_guess(spoken)
        said = self.matcher.mentioned_in(rest)
        what = f"the guesser guessed \"{guess}\"" if guess is not None else "no guess this round"
        self.judge(f"{what}; {'the word was said outside a guess' if said else 'the word was not said'}.",
                   guess=guess, said_word=said)
        if said and self.said_in is None:
            self.said_in = self.round
        if guess is not None:
            right = guess_is_right(guess, self.word)
            self.host(f"{'Right' if right else 'Wrong'}: the word was {self.word}.")
            self.finish(
                "guessed" if right else "wrong_guess",
                winner=GUESSER if right else USER,
                rounds=self.round,
                guess=guess,
                told_said_word=turn.action == "guess",
            )
        elif said and self.paper:
            self._guess_due = True  # the host's notice is the next turn's instruction
        else:
            self.round_done()

    def forfeit_move(self, turn: Turn, kind: str, detail: str) -> None:
        if kind == CHAT_ERROR:
            self.finish("CE", rounds=self.round, seat=turn.seat, error=detail)
        elif turn.action == "clue":
            self.host("The user gave no valid message this round.")
            self._clue_given = True  # the guesser still replies in the empty round
        elif turn.action == "guess":
            self.host(f"No guess: the word was {self.word}.")
            self.finish("said_word", winner=USER, rounds=self.round, told_said_word=True)
        else:
            self.finish("forfeit", winner=USER, rounds=self.round)

    def after_round(self) -> None:
        if self.round >= self.max_rounds:
            rounds = f"{self.max_rounds} round{'s' if self.max_rounds != 1 else ''}"
            if self.said_in is not None:
                self.host(f"The {rounds} are over. You said the word ({self.word}) in round {self.said_in}.")
                self.finish("said_word", winner=USER, rounds=self.round)
            else:
                self.host(f"You lasted {rounds} without saying the word ({self.word}).")
                self.finish("survived", winner=GUESSER, rounds=self.round)
        else:
            self.round += 1

    def probe_instruction(self) -> str:
        return ranked_list_instruction("candidates for the secret word")

    def parse_probe(self, text: str) -> dict[str, Any]:
        return parse_ranked_list(text)

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        details.update(target=self.word, aliases=[], max_rounds=self.max_rounds, said_in=self.said_in)
        super().finish(label, winner, **details)
