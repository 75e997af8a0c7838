"""Taboo (GameArena, Hu et al.): the user tries to make the evaluated model say a word."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.data import load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import GameSpec, Option, Row, only_rows
from pytest_gameeval.games.arena.rules import ARENA_OPTIONS, USER_ROLE, arena_model_roles
from pytest_gameeval.games.taboo.rules import OUTCOMES, TabooGame
from pytest_gameeval.games.taboo.scripted import POLICIES
from pytest_gameeval.games.taboo import metrics


def load_words(path: Path) -> list[dict[str, Any]]:
    rows = load_jsonl(path, {"id": str, "word": str, "category": str, "related": list}, unique="id")
    for row in rows:
        if not row["word"].strip() or not row["related"] or not all(isinstance(r, str) and r.strip() for r in row["related"]):
            raise GameEvalError(f"{path}: word {row['id']!r} needs a word and non-empty related clue words")
    return rows


class TabooSpec(GameSpec):
    name = "taboo"
    title = "Taboo"
    data_file = "words.jsonl"
    options = {
        "max_rounds": Option(5, "rounds the guesser must survive"),
        "words": Option(None, "only these word ids (comma-separated)", kind=list),
        **ARENA_OPTIONS,
    }
    model_roles = arena_model_roles("guesser")
    reference_roles = (USER_ROLE,)  # the data user: clues from the word's own related words
    outcome_labels = ("win",) + OUTCOMES
    outcome_names = {"guessed": "the guesser guessed the word", "survived": "the guesser never said the word and survived every round", "said_word": "the guesser said the word", "wrong_guess": "the guesser guessed a wrong word", "forfeit": "the guesser gave no valid reply (forfeit)", "CE": "a model call failed (chat error)"}
    mean_keys = metrics.MEAN_KEYS
    higher_is_better = metrics.HIGHER_IS_BETTER
    binary_keys = ("played",)
    scripted = POLICIES

    def rows(self, options: dict[str, Any]) -> list[Row]:
        rows = [Row(w["id"], w) for w in load_words(self.data_path(options))]
        return only_rows(rows, options["words"], "taboo", "word id")

    def new_game(self, row: Row, rng: random.Random, options: dict[str, Any]) -> TabooGame:
        if options["max_rounds"] < 1:
            raise GameEvalError("taboo: max_rounds must be at least 1")
        return TabooGame(row.data, rng, options)

    def score(self, record: GameRecord) -> dict[str, float]:
        return metrics.score(record)

    def summarize(self, records: list[GameRecord]) -> dict[str, Any]:
        return metrics.summarize(records)


SPEC = TabooSpec()
