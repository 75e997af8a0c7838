"""AGE: adversarial word guessing (after "Evaluating LLMs Adversarially with Word Guessing Game", 2024)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.data import game_data_dir, load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.game import Game
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row
from pytest_gameeval.games.age.rules import MAX_PLAYERS, OUTCOMES, AgeGame, AgeOptions
from pytest_gameeval.games.age.scripted import POLICIES
from pytest_gameeval.metrics.headline import KEYS as HEADLINE_KEYS

CURATED = "list_a"
TOPICS = (
    "business",
    "entertainment",
    "sports",
    "technology",
    "science",
    "health",
    "politics",
    "world",
    "food",
    "travel",
)
LISTS = (CURATED, *TOPICS)
ROW_SCHEMA = {"id": str, "topic": str, "word_a": str, "word_b": str, "synonyms_a": list, "synonyms_b": list}


def expand_lists(names: list[str]) -> list[str]:
    """List names, with "all" (the 11 lists) and "topics" (the ten topic lists) expanded."""
    out: list[str] = []
    for name in names:
        name = name.strip().lower()
        group = {"all": LISTS, "topics": TOPICS}.get(name, (name,))
        for n in group:
            if n not in LISTS:
                raise GameEvalError(f"age: unknown list {n!r}; choose from all, topics, {', '.join(LISTS)}")
            if n not in out:
                out.append(n)
    return out


def list_path(name: str) -> Path:
    return game_data_dir(__name__) / f"{name}.jsonl"


def load_list(path: Path) -> list[dict[str, Any]]:
    rows = load_jsonl(path, ROW_SCHEMA, unique="id")
    for i, row in enumerate(rows, start=1):
        if not row["word_a"].strip() or not row["word_b"].strip():
            raise GameEvalError(f"{path}: row {row['id']!r} has an empty word")
        for key in ("synonyms_a", "synonyms_b"):
            if not all(isinstance(s, str) for s in row[key]):
                raise GameEvalError(f"{path}: row {row['id']!r}: {key} must be a list of strings")
    return rows


def seat_role(slot: int) -> str:
    """Model role of binding slot `slot`: slot 1 is the evaluated model; slot k >= 2 is
    `--model-role seatK=...` if bound, else the (k-1)-th model of `--model-role players=A,B,C`."""
    return EVALUATED if slot == 1 else f"seat{slot}|players[{slot - 2}]"


class AgeSpec(GameSpec):
    name = "age"
    title = "AGE"
    data_file = "list_a.jsonl"  # -T data=FILE replaces -T lists
    options_class = AgeOptions
    model_roles = {"player": EVALUATED}
    outcome_labels = OUTCOMES
    outcome_names = {
        "solved": "the group guessed its word",
        "limit": "round limit reached, not solved",
        "CE": "a model call failed (chat error)",
    }
    mean_keys = (
        "age",
        "comprehension",
        "confusion",
        "fcg",
        "guessed",
        "age_all_seats",
        "rounds",
        "both_guessed",
        "filter_literal",
        "filter_full_length",
        "age_filter_literal",
        "age_filter_full_length",
        *HEADLINE_KEYS,
    )
    binary_keys = ("played",)
    scripted = POLICIES

    def rows(self, options: AgeOptions) -> list[Row]:
        rows: list[Row] = []
        seen: dict[str, str] = {}
        given = options.data
        lists = [(Path(given).stem, self.data_path(options))] if given else [
            (name, list_path(name)) for name in expand_lists(options.lists or [CURATED])]
        for name, path in lists:
            for d in load_list(path):
                if d["id"] in seen:  # ids are unique across the 11 lists: a game's id names its pair
                    raise GameEvalError(f"age: pair id {d['id']!r} is in both {seen[d['id']]}.jsonl and {name}.jsonl")
                seen[d["id"]] = name
                rows.append(Row(d["id"], {**d, "list": name}))
        if options.pairs:
            wanted = options.pairs
            unknown = sorted(set(wanted) - set(seen))
            if unknown:
                raise GameEvalError(
                    f"age: unknown pair id(s) {', '.join(unknown)} in lists {', '.join(sorted(set(seen.values())))}"
                )
            rows = [r for r in rows if r.id in wanted]
        return rows

    def new_game(self, row: Row, rng: random.Random, options: AgeOptions) -> AgeGame:
        return AgeGame(row.data, rng, options)

    def bindable_roles(self) -> set[str]:
        return {"players"} | {f"seat{k}" for k in range(2, MAX_PLAYERS + 1)}

    def seat_model_roles(self, game: Game) -> dict[str, str]:
        return {name: seat_role(seat.private["slot"]) for name, seat in game.seats.items()}


SPEC = AgeSpec()
