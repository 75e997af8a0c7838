"""SpyGPT (Liang et al. 2023): describe a word, then a judge rates the description against the
word and its distractors. A state machine that never calls a model.

Seats: the Describer (the evaluated model) and one Judge seat per candidate word (the target
and each distractor), all bound to the `judge` model role. Each Judge seat is its own
conversation: it sees the judge instructions, the description (quoted by the host) and its
one word — never which word is the target, never the other words, never the mode. The judge
turns are asked together, in a seeded shuffled order.

Rule decisions (the spec leaves them open): a description must not contain the target word
(whole word, plural-aware) and must keep the mode's word limit (aggressive 100 words,
conservative 10); either breach is a rule violation (re-prompt, then the game ends
"no_description", nothing scored). A judge reply must be one whole number 1–5 in the asked-for form (the number alone,
optionally labelled, or a JSON "score"): a number inside other text is not a rating; anything else is
a format error (re-prompt, then that judgement is counted as unparsed and never scored).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.game import ABORTED, Game, Seat, Turn
from pytest_gameeval.engine.matching import WordMatcher
from pytest_gameeval.engine.options import DataGameOptions, option
from pytest_gameeval.engine.parsing import json_objects
from pytest_gameeval.games.spygpt import prompts
from pytest_gameeval.games.spygpt.prompts import WORD_LIMITS

DESCRIBER = "Describer"
OUTCOMES = ("judged", "no_description", ABORTED)
MODES = ("aggressive", "conservative")


@dataclass(frozen=True, kw_only=True)
class SpyGPTOptions(DataGameOptions):
    mode: str = option("both", "aggressive (be guessable), conservative (blend in) or both", ("both", *MODES))
    targets: list[str] | None = option(None, "only these target ids (comma-separated)")
_WORDS = re.compile(r"[\w'’-]+")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
SCORE_FORMAT = "reply with a single whole number from 1 to 5"


def count_words(text: str) -> int:
    return len(_WORDS.findall(text))


# The asked-for form: the number alone, optionally labelled ("Score: 4", "I rate it 4") and out of 5.
_SCORE_FORM = re.compile(
    r"^\W*(?:(?:my\s+)?(?:score|rating)(?:\s+is)?|i\s*(?:would|'d)?\s+(?:rate|give|score)(?:\s+(?:it|this))?)?\W*"
    r"(?P<n>\d+(?:[.,]\d+)?|one|two|three|four|five)(?:\s*(?:/|out\s+of)\s*5)?\W*$",
    re.IGNORECASE,
)


def parse_score(text: str) -> int:
    """A judge's rating in the asked-for form: one whole number 1-5 alone ("4", "Score: 4", "4/5",
    "I rate it 4 out of 5", {"score": 4}, "Four"). A number inside other text ("Player 2 is
    eliminated"), several numbers, fractions or out-of-range values are format errors."""
    for obj in reversed(json_objects(text)):
        if "score" in obj:
            value = obj["score"]
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value.strip())
            if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5:
                return value
            raise ParseError(f"the score must be a whole number from 1 to 5; {SCORE_FORMAT}")
    form = _SCORE_FORM.match(text.strip())
    if form is None:
        raise ParseError(SCORE_FORMAT)
    number = str(_NUMBER_WORDS.get(form["n"].lower(), form["n"]))
    if not number.isdigit() or not 1 <= int(number) <= 5:
        raise ParseError(f"{number} is not a whole number from 1 to 5; {SCORE_FORMAT}")
    return int(number)


class SpyGPTGame(Game):
    name = "spygpt"

    def __init__(self, item: dict[str, Any], rng: random.Random, options: SpyGPTOptions):
        self.mode = item["mode"]
        self.target = item["target"]
        self.distractors = list(item["distractors"])
        words = [self.target, *self.distractors]
        rng.shuffle(words)  # judge seats carry no hint of which word is the target
        self.judges = {f"Judge {i}": w for i, w in enumerate(words, start=1)}
        seats = [Seat(DESCRIBER, "describer", {"target": self.target, "mode": self.mode, "domain": item.get("domain")})]
        seats += [Seat(name, "judge", {"word": word}) for name, word in self.judges.items()]
        super().__init__(seats, rng, options)
        self.matcher = WordMatcher(self.target, tuple(item.get("aliases", ())))
        self.description: str | None = None
        self.scores: dict[str, int | None] = {}
        self.round = 1

    def system_prompt(self, seat: str) -> str:
        if seat == DESCRIBER:
            return prompts.describer_system(self.target, self.mode)
        return prompts.JUDGE_SYSTEM

    def pending(self) -> list[Turn]:
        if self.description is None:
            return [
                Turn(
                    DESCRIBER,
                    "describe",
                    prompts.DESCRIBE_INSTRUCTION,
                    self._parse_description,
                    reply=prompts.describe(self.mode),
                )
            ]
        return [
            Turn(seat, "rate", prompts.judge_instruction(self.description, word), parse_score,
                 data={"word": word, "description": self.description}, reply=prompts.SCORE)
            for seat, word in self.judges.items() if seat not in self.scores
        ]

    def _parse_description(self, text: str) -> str:
        description = prompts.describe(self.mode).read(text)["description"]
        if not description:
            raise ParseError("the description is empty")  # unreadable, as an empty move is in every game
        limit = WORD_LIMITS[self.mode]
        if count_words(description) > limit:
            raise RuleViolation(f"the description has {count_words(description)} words; the limit is {limit}")
        if self.matcher.mentioned_in(description):
            raise RuleViolation("the description contains the word itself")
        return description

    def apply(self, turn: Turn, text: str, action: Any) -> None:
        if turn.action == "describe":
            self.description = action
            self.act(DESCRIBER, action, description=action, words=count_words(action))
            self.round = 2
            return
        self.scores[turn.seat] = action
        word = self.judges[turn.seat]
        self.act(turn.seat, f"rated {word}: {action}", word=word, score=action, is_target=word == self.target)
        self._maybe_finish()

    def forfeit(self, turn: Turn, kind: str, detail: str) -> None:
        if turn.action == "describe":
            self.finish("no_description", None, **self._details(failure=kind))
            return
        self.scores[turn.seat] = None  # unparsed: counted, never scored
        self.judge(f"{turn.seat} gave no usable rating ({kind})", word=self.judges[turn.seat], failure=kind)
        self._maybe_finish()

    def _maybe_finish(self) -> None:
        if len(self.scores) == len(self.judges):
            self.finish("judged", None, **self._details())

    def _details(self, **extra: Any) -> dict[str, Any]:
        by_word = {self.judges[s]: v for s, v in self.scores.items()}
        return {
            "mode": self.mode, "target": self.target, "distractors": self.distractors,
            "description": self.description,
            "description_words": count_words(self.description) if self.description else None,
            "target_score": by_word.get(self.target),
            "distractor_scores": {d: by_word.get(d) for d in self.distractors},
            "unparsed": sum(1 for v in self.scores.values() if v is None),
            "judge_order": list(self.judges.values()),
            **extra,
        }


def describe_json(description: str, thought: str = "scripted") -> str:
    return json.dumps({"thought": thought, "description": description})
