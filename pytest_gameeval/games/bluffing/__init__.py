"""Bluffing (GameArena, Hu et al.): the evaluated model questions the user and decides whether
the user's statement is true."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.data import load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.spec import GameSpec, Row, only_rows
from pytest_gameeval.games.arena.rules import USER_ROLE, arena_model_roles
from pytest_gameeval.games.bluffing import metrics
from pytest_gameeval.games.bluffing.rules import OUTCOMES, BluffingGame, BluffingOptions
from pytest_gameeval.games.bluffing.scripted import POLICIES


def load_statements(path: Path) -> list[dict[str, Any]]:
    rows = load_jsonl(path, {"id": str, "statement": str, "label": bool, "topic": str, "persona": dict}, unique="id")
    for row in rows:
        persona = row["persona"]
        if not isinstance(persona.get("name"), str) or not isinstance(persona.get("facts"), list):
            raise GameEvalError(f"{path}: statement {row['id']!r}: persona needs a name and a list of facts")
    return rows


class BluffingSpec(GameSpec):
    name = "bluffing"
    title = "Bluffing"
    data_file = "statements.jsonl"
    options_class = BluffingOptions
    model_roles = arena_model_roles("interrogator")
    reference_roles = (USER_ROLE,)  # the data user: defends the statement with its persona facts
    outcome_labels = OUTCOMES
    outcome_names = {
        "win": "the interrogator judged the claim correctly",
        "lose": "the interrogator judged the claim wrongly",
        "no_verdict": "the interrogator gave no verdict",
        "CE": "a model call failed (chat error)",
    }
    mean_keys = metrics.MEAN_KEYS
    binary_keys = ("played",)
    scripted = POLICIES

    def rows(self, options: BluffingOptions) -> list[Row]:
        rows = [Row(s["id"], s) for s in load_statements(self.data_path(options))]
        return only_rows(rows, options.statements, "bluffing", "statement id")

    def new_game(self, row: Row, rng: random.Random, options: BluffingOptions) -> BluffingGame:
        return BluffingGame(row.data, rng, options)


SPEC = BluffingSpec()
