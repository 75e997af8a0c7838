"""Ask-Guess (GameEval, Qiao et al. 2023 §3.1)."""

from __future__ import annotations

import random
from typing import Any

from pytest_gameeval.engine.data import load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Option, Row, only_rows
from pytest_gameeval.games.askguess.rules import OUTCOMES, AskGuessGame
from pytest_gameeval.games.askguess.scripted import POLICIES
from pytest_gameeval.games.askguess import metrics
from pytest_gameeval.metrics.headline import DIRECTIONS as HEADLINE_DIRECTIONS, KEYS as HEADLINE_KEYS


class AskGuessSpec(GameSpec):
    name = "askguess"
    title = "Ask-Guess"
    options = {
        "mode": Option("hard", "easy: the answerer first describes the word; hard: no description", ("easy", "hard")),
        "max_rounds": Option(30, "question-answer rounds before RLE"),
        "words": Option(None, "only these labels (comma-separated)", kind=list),
        "cot": Option(False, 'replies as chain-of-thought JSON {"thought", "speak"}'),
    }
    data_file = "cifar100.jsonl"
    model_roles = {"questioner": EVALUATED, "answerer": "answerer"}
    # the answerer answers from the word's data (scripted oracle); GameEval plays every seat with one model
    reference_roles = ("answerer",)
    paper_protocol = {"opponents": "self"}
    outcome_labels = OUTCOMES
    outcome_names = {"ST": "solved: the questioner guessed the word", "EE": "ended early without the word", "RLE": "round limit reached, word not guessed", "AME": "the answerer said the word", "CE": "a model call failed (chat error)"}
    mean_keys = ("rounds", "rounds_st", "missed_guesses", *HEADLINE_KEYS)
    binary_keys = ("played",)
    higher_is_better = {"ST": True, "EE": False, "RLE": False, "AME": False, "CE": False, "rounds_st": False, **HEADLINE_DIRECTIONS}
    scripted = POLICIES

    def rows(self, options: dict[str, Any]) -> list[Row]:
        data = load_jsonl(self.data_path(options), {"label": str, "aliases": list, "homograph": bool})
        rows = [Row(d["label"], d) for d in data]
        return only_rows(rows, [w.strip().replace(" ", "_") for w in options["words"] or []], "askguess", "word")

    def new_game(self, row: Row, rng: random.Random, options: dict[str, Any]) -> AskGuessGame:
        if options["max_rounds"] < 1:
            raise GameEvalError("askguess: max_rounds must be at least 1")
        return AskGuessGame(row.data, rng, options)

    def case_key(self, row: Row, options: dict[str, Any]) -> str:
        return f"{options['mode']}-{row.id}"

    def score(self, record: GameRecord) -> dict[str, float]:
        return metrics.score(record)

    def summarize(self, records: list[GameRecord]) -> dict[str, Any]:
        return metrics.summarize(records)


SPEC = AskGuessSpec()
