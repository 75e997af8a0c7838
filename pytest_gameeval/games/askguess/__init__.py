"""Ask-Guess (GameEval, Qiao et al. 2023 §3.1)."""

from __future__ import annotations

import random

from pytest_gameeval.engine.data import load_jsonl
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row, only_rows
from pytest_gameeval.games.askguess.rules import OUTCOMES, AskGuessGame, AskGuessOptions
from pytest_gameeval.games.askguess.scripted import POLICIES
from pytest_gameeval.metrics.headline import KEYS as HEADLINE_KEYS


class AskGuessSpec(GameSpec):
    name = "askguess"
    title = "Ask-Guess"
    options_class = AskGuessOptions
    data_file = "cifar100.jsonl"
    model_roles = {"questioner": EVALUATED, "answerer": "answerer"}
    # the answerer answers from the word's data (scripted oracle); GameEval plays every seat with one model
    reference_roles = ("answerer",)
    paper_protocol = {"opponents": "self"}
    outcome_labels = OUTCOMES
    outcome_names = {
        "ST": "solved: the questioner guessed the word",
        "EE": "ended early without the word",
        "RLE": "round limit reached, word not guessed",
        "AME": "the answerer said the word",
        "CE": "a model call failed (chat error)",
    }
    mean_keys = ("rounds", "rounds_st", "missed_guesses", *HEADLINE_KEYS)
    binary_keys = ("played",)
    scripted = POLICIES

    def rows(self, options: AskGuessOptions) -> list[Row]:
        data = load_jsonl(self.data_path(options), {"label": str, "aliases": list, "homograph": bool})
        rows = [Row(d["label"], d) for d in data]
        return only_rows(rows, [w.strip().replace(" ", "_") for w in options.words or []], "askguess", "word")

    def new_game(self, row: Row, rng: random.Random, options: AskGuessOptions) -> AskGuessGame:
        return AskGuessGame(row.data, rng, options)

    def case_key(self, row: Row, options: AskGuessOptions) -> str:
        return f"{options.mode}-{row.id}"


SPEC = AskGuessSpec()
