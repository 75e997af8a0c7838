"""Ask-Guess rules (GameEval §3.1): a state machine that never calls a model.

Outcomes, exactly one per game: ST (gameover after a correct guess), EE (gameover though the
word was not guessed), RLE (the round limit passed), AME (the answerer's spoken text
contained the word), CE (a model call failed after retries).

Our default credits ST if any question so far named the word (an answerer that missed a right
guess and calls gameover later is not blamed on the questioner), and checks AME first, on the
word and its aliases. GameEval's code (protocol=paper) credits ST only if the question just
answered named the word, and reads gameover before AME, which it checks on the word alone.

Whether a question names the word: by default the host's WordMatcher (whole words, plural-aware,
the word's aliases count: "sofa" guesses couch, "pineapple" does not guess apple); under
protocol=paper GameEval's test, the label as a substring of the lower-cased question (no
aliases: "sofa" is no guess of couch, "pineapple" guesses apple). Under protocol=paper a hard-mode
answer must be yes, no or gameover alone (GameEval's hard-mode answerer prompt); anything else is
a rule violation, re-prompted.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.errors import RuleViolation
from pytest_gameeval.engine.game import ABORTED, CHAT_ERROR, Game, Seat, Turn
from pytest_gameeval.engine.matching import WordMatcher
from pytest_gameeval.engine.options import DataGameOptions, option
from pytest_gameeval.engine.parsing import plain_text
from pytest_gameeval.engine.replies import ReplyFormat
from pytest_gameeval.games.askguess import prompts
from pytest_gameeval.games.askguess.prompts import ANSWERER, QUESTIONER

OUTCOMES = ("ST", "EE", "RLE", "AME", "CE", ABORTED)
_GAMEOVER = re.compile(r"\bgame\s*-?\s*over\b", re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class AskGuessOptions(DataGameOptions):
    mode: str = option("hard", "easy: the answerer first describes the word; hard: no description", ("easy", "hard"))
    max_rounds: int = option(30, "question-answer rounds before RLE", min=1)
    words: list[str] | None = option(None, "only these labels (comma-separated)")
    cot: bool = option(False, 'replies as chain-of-thought JSON {"thought", "speak"}')


def says_gameover(text: str) -> bool:
    return bool(_GAMEOVER.search(text))


class AskGuessGame(Game):
    name = "askguess"

    def __init__(self, word: dict[str, Any], rng: random.Random, options: AskGuessOptions):
        label = word["label"].replace("_", " ")
        seats = [
            Seat(QUESTIONER, "questioner"),
            Seat(ANSWERER, "answerer", {"word": label, "category": word.get("category")}),
        ]
        super().__init__(seats, rng, options)
        self.word = label
        self.matcher = WordMatcher(word["label"], tuple(word.get("aliases", ())), word.get("homograph", False))
        self.mode = options.mode
        self.max_rounds = options.max_rounds
        self.cot = options.cot
        self.paper = options.protocol == "paper"
        self.word_only = WordMatcher(word["label"])  # GameEval's AME check: the word, no aliases
        self.guessed_in: int | None = None  # first round whose question the host judged correct
        self.missed_guesses = 0  # correct guesses the answerer did not call gameover on
        self._awaiting_answer = False
        self._last_question_correct = False
        self.host(f"Ask-Guess begins ({self.mode} mode). The Questioner has {self.max_rounds} questions.")
        self.round = 0 if self.mode == "easy" else 1

    # -- prompts --------------------------------------------------------------------
    def system_prompt(self, seat: str) -> str:
        if seat == QUESTIONER:
            return prompts.questioner_system(self.mode, self.max_rounds, self.cot)
        return prompts.answerer_system(self.word, self.mode, self.cot, self.paper)

    def _read(self, text: str) -> str:
        return plain_text(prompts.COT.read(text)["speak"] if self.cot else text)  # same checks in both styles

    def _read_hard_answer(self, text: str) -> str:
        """protocol=paper, hard mode: the answer is yes, no or gameover and nothing else."""
        answer = self._read(text)
        word = re.sub(r"[^a-z]", "", answer.lower())
        if word not in prompts.HARD_ANSWERS:  # "Yes.", "game over!" are fine; "Yes, it is a fruit." is not
            raise RuleViolation('in hard mode the Answerer may reply only "yes", "no" or "gameover"')
        return answer

    def _turn(self, seat: str, action: str, instruction: str | None, reply: ReplyFormat) -> Turn:
        parse = self._read_hard_answer if self.paper and self.mode == "hard" and action == "answer" else self._read
        # asking the same question again is no new move (engine/degenerate.py); answers may repeat
        return Turn(
            seat, action, instruction, parse, reply=prompts.COT if self.cot else reply, no_repeat=action == "ask"
        )

    def names_word(self, question: str) -> bool:
        """Does a question guess the word? GameEval's substring test under protocol=paper, else ours."""
        if self.paper:
            return self.word.lower() in question.lower()
        return self.matcher.mentioned_in(question)

    def pending(self) -> list[Turn]:
        if self.round == 0:
            return [self._turn(ANSWERER, "describe", prompts.DESCRIBE, prompts.DESCRIPTION)]
        if self._awaiting_answer:
            hard_paper = self.paper and self.mode == "hard"
            return [self._turn(ANSWERER, "answer", None, prompts.HARD_ANSWER if hard_paper else prompts.ANSWER)]
        return [self._turn(QUESTIONER, "ask", prompts.ask_instruction(self.round, self.max_rounds), prompts.QUESTION)]


    # -- moves ----------------------------------------------------------------------
    def apply(self, turn: Turn, text: str, spoken: str) -> None:
        if turn.seat == ANSWERER:
            self._answer(turn.action, spoken)
        else:
            self._question(spoken)

    def _question(self, question: str) -> None:
        self.say(QUESTIONER, question)
        correct = self.names_word(question)
        self.judge(f"question {'guesses' if correct else 'does not guess'} the word", correct=correct)
        if correct and self.guessed_in is None:
            self.guessed_in = self.round
        self._last_question_correct = correct
        self._awaiting_answer = True


    def _answer(self, action: str, answer: str) -> None:
        gameover_first = self.paper and action == "answer" and says_gameover(answer)  # GameEval's order
        if not gameover_first and (self.word_only if self.paper else self.matcher).mentioned_in(answer):
            self.say(ANSWERER, answer)
            self.finish("AME", rounds=self.round, action=action)
            return
        if action == "describe":
            self.say(ANSWERER, answer)
            self.round = 1
            return
        self._awaiting_answer = False
        claim = says_gameover(answer)
        self.say(ANSWERER, answer)
        self.judge(f"answerer {'claims' if claim else 'does not claim'} gameover", claim=claim)
        if claim:
            guessed = self._last_question_correct if self.paper else self.guessed_in is not None
            self.finish("ST" if guessed else "EE", rounds=self.round)
            return
        if self._last_question_correct:
            self.missed_guesses += 1
        self._next_round()

    def _next_round(self) -> None:
        if self.round >= self.max_rounds:
            self.finish("RLE", rounds=self.round)
        else:
            self.round += 1

    def forfeit(self, turn: Turn, kind: str, detail: str) -> None:
        if kind == CHAT_ERROR:
            self.finish("CE", rounds=self.round, seat=turn.seat, error=detail)
        elif turn.action == "describe":
            self.host("The Answerer gave no description.")
            self.round = 1
        elif turn.seat == QUESTIONER:
            self.host(f"The Questioner asked no question in round {self.round}; the round is lost.")
            self._next_round()
        else:
            self._awaiting_answer = False
            self.host("The Answerer gave no answer.")
            self._next_round()

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        details.update(guessed_in=self.guessed_in, missed_guesses=self.missed_guesses, word=self.word)
        super().finish(label, winner, **details)
