"""SpyFall (GameEval, Qiao et al. 2023 §3.2): one spy among villagers, describe then vote."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.data import load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.game import Game
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row
from pytest_gameeval.games.spyfall.rules import SpyFallGame, SpyFallOptions, new_game
from pytest_gameeval.games.spyfall.scripted import POLICIES
from pytest_gameeval.games.voting import OUTCOMES, SPY, VILLAGER, vote_facts
from pytest_gameeval.metrics.headline import KEYS as HEADLINE_KEYS

ORIENTATIONS = ("fwd", "rev")


def load_pairs(path: Path) -> list[dict[str, Any]]:
    rows = load_jsonl(path, {"id": str, "spy": str, "villager": str}, unique="id")
    for r in rows:
        if (
            not r["spy"].strip()
            or not r["villager"].strip()
            or r["spy"].strip().lower() == r["villager"].strip().lower()
        ):
            raise GameEvalError(f"{path}: pair {r['id']!r} needs two different, non-empty words")
    return rows


def pair_rows(pairs: list[dict[str, Any]], first: str, second: str, both: bool) -> list[Row]:
    """One row per (pair, orientation): fwd gives `first` to the spy, rev swaps the words."""
    rows = []
    for p in pairs:
        for orientation in ORIENTATIONS if both else ORIENTATIONS[:1]:
            spy, villager = (p[first], p[second]) if orientation == "fwd" else (p[second], p[first])
            data = {"pair_id": p["id"], "orientation": orientation, "spy_word": spy, "villager_word": villager,
                    "domain": p.get("domain"), "source": p.get("source")}
            rows.append(Row(f"{p['id']}-{orientation}", data))
    return rows


def select_pairs(pairs: list[dict[str, Any]], wanted: list[str] | None, game: str) -> list[dict[str, Any]]:
    if not wanted:
        return pairs
    known = {p["id"] for p in pairs}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise GameEvalError(f"{game}: unknown pair id(s) {', '.join(unknown)}")
    return [p for p in pairs if p["id"] in wanted]


class SpyFallSpec(GameSpec):
    name = "spyfall"
    title = "SpyFall"
    options_class = SpyFallOptions
    data_file = "pairs.jsonl"
    outcome_labels = OUTCOMES
    outcome_names = {
        "spy_win": "the spy survived to the end: the spy wins",
        "villager_win": "the spy was voted out: the villagers win",
    }
    mean_keys = (
        "evaluated_win",
        "spy_living_round",
        "spy_living_round_paper",
        "spy_votes_per_round",
        "rounds",
        "abstentions",
        *HEADLINE_KEYS,
    )
    win_key = "evaluated_win"
    binary_keys = ("evaluated_win", "played")
    scripted = POLICIES

    # the default (evaluated=spy); seat_model_roles follows -T evaluated
    model_roles = {SPY: EVALUATED, VILLAGER: VILLAGER}
    # GameEval's setting (paper and public code): its 11 pairs one way round, six players named by
    # first name speaking in seat order, ballots announced one by one, no revote, and (as its code,
    # which produced the published averages) the spy wins once 3 players are left
    paper_protocol = {"source": "paper", "both_orientations": False, "players": 6, "naming": 3, "shuffle_order": False,
                      "voting": "public", "revote": False, "end_players": 3}

    def rows(self, options: SpyFallOptions) -> list[Row]:
        pairs = load_pairs(self.data_path(options))
        if options.source != "all":
            pairs = [p for p in pairs if p.get("source") == options.source]
        pairs = select_pairs(pairs, options.pairs, self.name)
        return pair_rows(pairs, "spy", "villager", options.both_orientations)

    def new_game(self, row: Row, rng: random.Random, options: SpyFallOptions) -> SpyFallGame:
        return new_game(row.data, rng, options)

    def bindable_roles(self) -> set[str]:
        return {SPY, VILLAGER}  # the side not evaluated (-T evaluated=spy|villager)

    def seat_model_roles(self, game: Game) -> dict[str, str]:
        evaluated = game.options.evaluated
        other = VILLAGER if evaluated == SPY else SPY
        return {name: EVALUATED if seat.role == evaluated else other for name, seat in game.seats.items()}

    def key_facts(self, record: GameRecord) -> list[str]:
        return vote_facts(record.outcome["details"])

    def evaluated_side(self, record: GameRecord) -> str:
        return record.outcome["details"]["evaluated"]


SPEC = SpyFallSpec()
