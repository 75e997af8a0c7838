"""Akinator (GameArena, Hu et al.): the evaluated model asks yes/no questions to find the
user's everyday object."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.data import game_data_dir, load_json, load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.spec import GameSpec, Row, only_rows
from pytest_gameeval.games.akinator import metrics
from pytest_gameeval.games.akinator.rules import OUTCOMES, AkinatorGame, AkinatorOptions
from pytest_gameeval.games.akinator.scripted import POLICIES
from pytest_gameeval.games.arena.rules import USER_ROLE, arena_model_roles


def load_objects(path: Path) -> list[dict[str, Any]]:
    """Objects with aliases and a complete boolean table of our attributes (checked, one error line)."""
    attr_path = game_data_dir(__name__) / "attributes.json"
    attributes = load_json(attr_path)
    if not isinstance(attributes, dict) or not attributes or not all(isinstance(v, str) for v in attributes.values()):
        raise GameEvalError(f"{attr_path}: expected a JSON object {{attribute: question text}}")
    objects = load_jsonl(path, {"id": str, "object": str, "aliases": list, "attributes": dict}, unique="id")
    for lineno, row in enumerate(objects, start=1):
        missing = sorted(set(attributes) - set(row["attributes"]))
        if missing or not all(isinstance(v, bool) for v in row["attributes"].values()):
            raise GameEvalError(
                f"{path}: object {row['id']!r} lacks boolean attribute(s) {', '.join(missing) or '(non-boolean value)'}"
            )
    return objects


class AkinatorSpec(GameSpec):
    name = "akinator"
    title = "Akinator"
    data_file = "objects.jsonl"
    options_class = AkinatorOptions
    model_roles = arena_model_roles("questioner")
    reference_roles = (USER_ROLE,)  # the data user: answers from the object's attribute table
    outcome_labels = OUTCOMES
    outcome_names = {
        "win": "the questioner named the object",
        "lose": "the questioner did not name the object",
        "CE": "a model call failed (chat error)",
    }
    mean_keys = metrics.MEAN_KEYS
    binary_keys = ("played",)
    scripted = POLICIES

    def rows(self, options: AkinatorOptions) -> list[Row]:
        rows = [Row(o["id"], o) for o in load_objects(self.data_path(options))]
        return only_rows(rows, options.objects, "akinator", "object id")

    def new_game(self, row: Row, rng: random.Random, options: AkinatorOptions) -> AkinatorGame:
        return AkinatorGame(row.data, rng, options)


SPEC = AkinatorSpec()
