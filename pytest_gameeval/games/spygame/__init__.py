"""SpyGame / Who-is-Spy (Liang et al. 2023): a guest agent among host agents, with bias probes,
ablations and theory-of-mind probes."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.data import load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.game import Game
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row
from pytest_gameeval.games.spyfall import pair_rows, select_pairs
from pytest_gameeval.games.spygame import metrics
from pytest_gameeval.games.spygame.rules import SpyGameGame, SpyGameOptions, new_game
from pytest_gameeval.games.spygame.scripted import POLICIES
from pytest_gameeval.games.voting import NOBODY_OUT, OUTCOMES, PUBLIC, SPY, VILLAGER, vote_facts
from pytest_gameeval.metrics.headline import KEYS as HEADLINE_KEYS

HOST_ROLE = "host"


def load_pairs(path: Path) -> list[dict[str, Any]]:
    rows = load_jsonl(path, {"id": str, "word_a": str, "word_b": str}, unique="id")
    for r in rows:
        if (
            not r["word_a"].strip()
            or not r["word_b"].strip()
            or r["word_a"].strip().lower() == r["word_b"].strip().lower()
        ):
            raise GameEvalError(f"{path}: pair {r['id']!r} needs two different, non-empty words")
    return rows


class SpyGameSpec(GameSpec):
    name = "spygame"
    title = "SpyGame (Who is the Spy)"
    data_file = "pairs.jsonl"
    options_class = SpyGameOptions
    # the default (guest=spy); seat_model_roles puts the evaluated model on the guest seat
    model_roles = {SPY: EVALUATED, VILLAGER: HOST_ROLE}
    reference_roles = (HOST_ROLE,)  # the strong hosts: describe their word, vote by overlap
    # the paper states no tie rule; its Round above 2 with 4 players needs rounds without an
    # elimination, so a tie (after the revote) eliminates nobody; its Algorithm 1 has each vote
    # heard before the next player votes; it sets no word limit on descriptions (docs/fidelity.md);
    # its published games show a tie going straight to a new round of descriptions, with no revote
    paper_protocol = {"tie": NOBODY_OUT, "voting": PUBLIC, "max_words": 0, "revote": False}
    outcome_labels = OUTCOMES
    outcome_names = {
        "spy_win": "the spy survived to the end: the spy wins",
        "villager_win": "the spy was voted out: the villagers win",
    }
    mean_keys = (
        "guest_win",
        "guest_rounds",
        "guest_round_paper",
        "guest_voted",
        "rounds",
        "abstentions",
        *metrics.TOM_KEYS,
        *HEADLINE_KEYS,
    )
    win_key = "guest_win"
    binary_keys = ("guest_win", "played")
    scripted = POLICIES

    def rows(self, options: SpyGameOptions) -> list[Row]:
        pairs = load_pairs(self.data_path(options))
        if options.domains:
            pairs = [p for p in pairs if p.get("domain") in options.domains]
            if not pairs:
                raise GameEvalError(f"spygame: no pairs in domain(s) {', '.join(options.domains)}")
        pairs = select_pairs(pairs, options.pairs, self.name)
        # fwd: the spy holds word_a; rev: word_b
        return pair_rows(pairs, "word_a", "word_b", options.both_orientations)

    def new_game(self, row: Row, rng: random.Random, options: SpyGameOptions) -> SpyGameGame:
        return new_game(row.data, rng, options)

    def seat_model_roles(self, game: Game) -> dict[str, str]:
        assert isinstance(game, SpyGameGame)
        return {name: EVALUATED if name == game.guest else HOST_ROLE for name in game.seats}

    def key_facts(self, record: GameRecord) -> list[str]:
        return vote_facts(record.outcome["details"])

    def evaluated_side(self, record: GameRecord) -> str:
        return record.seat(record.outcome["details"]["guest"])["role"]


SPEC = SpyGameSpec()
