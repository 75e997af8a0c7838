"""TofuKingdom (GameEval, Qiao et al. 2023 §3.3)."""

from __future__ import annotations

import random

from pytest_gameeval.engine.game import Game
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row
from pytest_gameeval.games.tofukingdom.roles import CAMP_OF
from pytest_gameeval.games.tofukingdom.rules import OUTCOMES, TofuKingdomGame, TofuKingdomOptions
from pytest_gameeval.games.tofukingdom.scripted import POLICIES
from pytest_gameeval.metrics.headline import KEYS as HEADLINE_KEYS


class TofuKingdomSpec(GameSpec):
    name = "tofukingdom"
    title = "TofuKingdom"
    options_class = TofuKingdomOptions
    # Model roles are per camp (see seat_model_roles): the evaluated camp is the evaluated
    # model; the other camps are bound with --model-role prince=... / queen=... / spy=...
    model_roles = {role: camp for role, camp in CAMP_OF.items()}
    outcome_labels = OUTCOMES
    outcome_names = {
        "prince": "the Prince named the Princess (the Prince's camp wins)",
        "queen": "the Prince named the Queen (the Queen's camp wins)",
        "spy": "the Prince named someone else (the Spy's camp wins)",
        "void": "protocol=paper: every attempt ended without a valid reply (no camp wins)",
    }
    mean_keys = (
        "win",
        "evaluated_rule_violations",
        "answer_rule_violations",
        "forfeited_answers",
        "obligation_breaches",
        *HEADLINE_KEYS,
    )
    win_key = "win"
    binary_keys = ("win", "played")
    scripted = POLICIES

    def rows(self, options: TofuKingdomOptions) -> list[Row]:
        return [Row(f"game-{i:03d}", {"index": i}) for i in range(1, options.games + 1)]

    def new_game(self, row: Row, rng: random.Random, options: TofuKingdomOptions) -> TofuKingdomGame:
        return TofuKingdomGame(rng, options)

    def seat_model_roles(self, game: Game) -> dict[str, str]:
        evaluated = game.options.evaluated
        out = {}
        for name, seat in game.seats.items():
            camp = CAMP_OF[seat.role]
            out[name] = EVALUATED if camp == evaluated else camp
        return out

    def case_key(self, row: Row, options: TofuKingdomOptions) -> str:
        return f"{options.evaluated}-{row.id}"

    def evaluated_side(self, record: GameRecord) -> str:
        return record.outcome["details"]["evaluated"]


SPEC = TofuKingdomSpec()
