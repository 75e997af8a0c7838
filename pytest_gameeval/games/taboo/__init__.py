"""Taboo (GameArena, Hu et al.): the user tries to make the evaluated model say a word."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.data import load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.spec import GameSpec, Row, only_rows
from pytest_gameeval.games.arena.rules import USER_ROLE, arena_model_roles
from pytest_gameeval.games.taboo import metrics
from pytest_gameeval.games.taboo.rules import OUTCOMES, TabooGame, TabooOptions
from pytest_gameeval.games.taboo.scripted import POLICIES


def load_words(path: Path) -> list[dict[str, Any]]:
    rows = load_jsonl(path, {"id": str, "word": str, "category": str, "related": list}, unique="id")
    for row in rows:
        if (
            not row["word"].strip()
            or not row["related"]
            or not all(isinstance(r, str) and r.strip() for r in row["related"])
        ):
            raise GameEvalError(f"{path}: word {row['id']!r} needs a word and non-empty related clue words")
    return rows


class TabooSpec(GameSpec):
    name = "taboo"
    title = "Taboo"
    data_file = "words.jsonl"
    options_class = TabooOptions
    model_roles = arena_model_roles("guesser")
    reference_roles = (USER_ROLE,)  # the data user: clues from the word's own related words
    outcome_labels = ("win",) + OUTCOMES
    outcome_names = {
        "guessed": "the guesser guessed the word",
        "survived": "the guesser never said the word and survived every round",
        "said_word": "the guesser said the word",
        "wrong_guess": "the guesser guessed a wrong word",
        "forfeit": "the guesser gave no valid reply (forfeit)",
        "CE": "a model call failed (chat error)",
    }
    mean_keys = metrics.MEAN_KEYS
    binary_keys = ("played",)
    scripted = POLICIES

    def rows(self, options: TabooOptions) -> list[Row]:
        rows = [Row(w["id"], w) for w in load_words(self.data_path(options))]
        return only_rows(rows, options.words, "taboo", "word id")

    def new_game(self, row: Row, rng: random.Random, options: TabooOptions) -> TabooGame:
        return TabooGame(row.data, rng, options)


SPEC = TabooSpec()
