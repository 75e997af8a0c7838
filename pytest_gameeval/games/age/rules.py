"""AGE rules (adversarial word guessing, after "Evaluating LLMs Adversarially with Word
Guessing Game", 2024): a state machine that never calls a model.

Players are split into group A (word one of a pair) and group B (word two). Each round every
player, in a fixed random order, describes its own word in public and guesses the other
group's word in private. The game ends once every player has guessed correctly, or after
`max_rounds` rounds. Outcomes: "solved" (everyone guessed), "limit" (rounds ran out), "CE" (a
model call failed after retries; the game cannot go on fairly without that seat).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from typing import Any

from rapidfuzz.distance import Jaro

from pytest_gameeval.engine.degenerate import DegenerateMove, bare
from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.events import SPEECH
from pytest_gameeval.engine.game import ABORTED, CHAT_ERROR, Game, Seat, Turn
from pytest_gameeval.engine.matching import WordMatcher, jaro_match, squash
from pytest_gameeval.engine.options import DataGameOptions, option
from pytest_gameeval.engine.parsing import json_objects
from pytest_gameeval.engine.views import quote
from pytest_gameeval.games.age import prompts

OUTCOMES = ("solved", "limit", "CE", ABORTED)
MAX_PLAYERS = 8


@dataclass(frozen=True, kw_only=True)
class AgeOptions(DataGameOptions):
    lists: list[str] = option(["list_a"], "word-pair lists: list_a, a topic, 'topics' (the ten) or 'all'")
    pairs: list[str] | None = option(None, "only these pair ids (comma-separated)")
    players: int = option(4, "number of players (2-8), split into two groups", min=2, max=MAX_PLAYERS)
    max_rounds: int = option(5, "rounds before the game stops", min=1)
    cot: bool = option(False, 'replies carry a private "thought" field in the JSON object')
GROUPS = ("A", "B")
MAX_GUESS_WORDS = 6

# "Guess: it is the Pepsi." -> "Pepsi": polite lead-ins and articles are not part of a guess.
_LEAD_IN = re.compile(r"^(?:(?:i\s+think|i\s+guess|my\s+guess\s+is|maybe|perhaps|it\s+is|it's|its)\s*:?\s+)+", re.I)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.I)
_LABELLED = re.compile(r"^\W*(description|clue|guess)\W*\s*[:=\-]\s*(.*)$", re.I)


def group_sizes(n_players: int) -> tuple[int, int]:
    """Group A gets the larger half: 2 and 2 for 4 players, 3 and 2 for 5."""
    a = math.ceil(n_players / 2)
    return a, n_players - a


def clean_guess(guess: str) -> str:
    text = guess.strip().strip("\"'`*.!?,;: ")
    text = _LEAD_IN.sub("", text)
    text = _ARTICLE.sub("", text)
    return text.strip().strip("\"'`*.!?,;: ")


def read_reply(text: str, want_thought: bool) -> dict[str, str]:
    """{"description", "guess"} from a JSON object, else from "Description: ..." / "Guess: ..." lines.

    A missing or empty description is a format error; a missing guess is an empty guess.
    """
    fields: dict[str, str] = {}
    for obj in reversed(json_objects(text)):  # a model that corrects itself: the last object wins
        lowered = {str(k).lower(): v for k, v in obj.items()}
        if "description" in lowered or "guess" in lowered:
            for key in ("description", "guess", "thought"):
                value = lowered.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    value = str(value)
                if value is not None and not isinstance(value, str):
                    raise ParseError(f"the field {key!r} must be a string")
                if value is not None:
                    fields[key] = value.strip()
            break
    else:
        if want_thought:
            raise ParseError('reply with one JSON object {"thought": ..., "description": ..., "guess": ...}')
        for line in text.splitlines():
            m = _LABELLED.match(line)
            if m:
                key = "description" if m[1].lower() in ("description", "clue") else "guess"
                fields.setdefault(key, m[2].strip())
    if not fields.get("description"):
        raise ParseError('no description found: reply with one JSON object {"description": ..., "guess": ...}')
    if re.fullmatch(r"<[^<>]*>", fields["description"]):
        raise DegenerateMove("you copied the placeholder; write your own clue in the description field")
    if len(fields["description"]) > 600:
        raise ParseError("your description is too long; keep it under 600 characters")
    guess = clean_guess(fields.get("guess", ""))
    if re.fullmatch(r"<[^<>]*>", guess):
        guess = ""  # a copied placeholder is no guess
    if len(guess.split()) > MAX_GUESS_WORDS:
        raise ParseError(f"your guess should be one word or a short name (at most {MAX_GUESS_WORDS} words)")
    return {"description": fields["description"], "guess": guess}


class AgeGame(Game):
    name = "age"

    def __init__(self, pair: dict[str, Any], rng: random.Random, options: AgeOptions):
        n = options.players
        self.words = {"A": pair["word_a"], "B": pair["word_b"]}
        self.synonyms = {"A": list(pair.get("synonyms_a", [])), "B": list(pair.get("synonyms_b", []))}
        # the pair's words and synonyms are real words even where they look like a placeholder (Twitter's "X")
        self._real_words = frozenset(bare(w) for g in "AB" for w in [self.words[g], *self.synonyms[g]])
        self.max_rounds = options.max_rounds
        self.cot = options.cot
        # Seat randomness, all from the game rng: which binding slot (1 = evaluated model) speaks
        # at which position, and which positions form group A.
        slots = list(range(1, n + 1))
        rng.shuffle(slots)
        n_a, _ = group_sizes(n)
        in_a = set(rng.sample(range(n), n_a))
        seats = []
        for position, slot in enumerate(slots):
            group = "A" if position in in_a else "B"
            seats.append(Seat(f"Player {position + 1}", "player", {
                "word": self.words[group], "group": group, "slot": slot,
                "topic": pair.get("topic"), "list": pair.get("list"),
            }))
        super().__init__(seats, rng, options)
        self.order = [s.name for s in seats]
        self.group = {s.name: s.private["group"] for s in seats}
        self.own_word = {g: WordMatcher(w, [s for s in self.synonyms[g] if s.strip()]) for g, w in self.words.items()}
        self.fcg: dict[str, int | None] = {s: None for s in self.order}  # round of first correct guess
        self.guesses: dict[str, list[str]] = {s: [] for s in self.order}  # "" for a skipped turn
        self._next = 0  # position in self.order of the next speaker this round
        self.round = 1
        self.host(
            f"The word game begins with {n} players ({', '.join(self.order)}), speaking in this order, "
            f"for at most {self.max_rounds} rounds."
        )

    def other(self, seat: str) -> str:
        return "B" if self.group[seat] == "A" else "A"

    # -- prompts --------------------------------------------------------------------
    def system_prompt(self, seat: str) -> str:
        return prompts.player_system(seat, self.words[self.group[seat]], len(self.order), self.max_rounds, self.cot)

    def pending(self) -> list[Turn]:
        seat = self.order[self._next]
        done = self.fcg[seat] is not None
        return [Turn(seat, "describe_guess", prompts.turn_instruction(self.round, self.max_rounds, done, self.cot),
                     lambda text, seat=seat: self._parse(seat, text), reply=prompts.reply_format(self.cot, done),
                     real_words=self._real_words)]

    def _parse(self, seat: str, text: str) -> dict[str, str]:
        reply = read_reply(text, self.cot)
        if self.own_word[self.group[seat]].mentioned_in(reply["description"]):
            raise RuleViolation("your description contains your own secret word (or a form or synonym of it)")
        said = squash(reply["description"])
        earlier = [e for e in self.events if e.kind == SPEECH]
        if said and any(squash(e.text) == said for e in earlier):
            raise RuleViolation("your description repeats an earlier description; give a new clue")
        return reply

    def _is_own_word(self, seat: str, guess: str) -> bool:
        """The guess names the guesser's own word: equal to it or a synonym, or closer to it than to
        the target (pairs such as hotel/motel or Iran/Iraq are within Jaro 0.8 of each other)."""
        own, target = self.group[seat], self.other(seat)
        g = squash(guess)
        if g in {squash(w) for w in self.synonyms[target]}:
            return False  # an accepted synonym of the target always counts
        if g in {squash(w) for w in [self.words[own], *self.synonyms[own]]}:
            return True
        return Jaro.similarity(g, squash(self.words[own])) > Jaro.similarity(g, squash(self.words[target]))

    # -- moves ----------------------------------------------------------------------
    def apply(self, turn: Turn, text: str, reply: dict[str, str]) -> None:
        seat = turn.seat
        self.say(seat, reply["description"])
        if self.fcg[seat] is None:
            guess = reply["guess"]
            target = self.other(seat)
            correct = bool(guess) and jaro_match(guess, self.words[target], self.synonyms[target])
            if correct and self._is_own_word(seat, guess):
                correct = False  # naming your own word never finds the other one, however alike they look
            self.guesses[seat].append(guess)
            self.act(seat, f"guess: {guess}", guess=guess, correct=correct)
            self.judge(
                f"{seat} {'guessed' if correct else 'did not guess'} the word of group {target}", correct=correct
            )
            if correct:
                self.fcg[seat] = self.round
                self.host(prompts.CORRECT, to=(seat,))
            elif guess:
                self.host(prompts.WRONG.format(guess=quote(guess)), to=(seat,))
        self._advance()

    def forfeit(self, turn: Turn, kind: str, detail: str) -> None:
        if kind == CHAT_ERROR:
            self.finish("CE", seat=turn.seat, error=detail)
            return
        if self.fcg[turn.seat] is None:
            self.guesses[turn.seat].append("")
        self.host(f"{turn.seat} gave no valid reply this round and is skipped.")
        self._advance()

    def _advance(self) -> None:
        if all(f is not None for f in self.fcg.values()):
            self.finish("solved")
            return
        self._next += 1
        if self._next == len(self.order):
            if self.round >= self.max_rounds:
                self.finish("limit")
                return
            self._next = 0
            self.round += 1

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        details.update(
            rounds=self.round,
            fcg=dict(self.fcg),
            groups=dict(self.group),
            words=dict(self.words),
            guesses={s: list(g) for s, g in self.guesses.items()},
        )
        super().finish(label, winner, **details)
