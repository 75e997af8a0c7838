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
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Option, Row
from pytest_gameeval.games.spyfall import pair_rows, select_pairs
from pytest_gameeval.games.spygame.rules import SpyGameGame, new_game
from pytest_gameeval.games.spygame.scripted import POLICIES
from pytest_gameeval.games.voting import DRAW_LOTS, NAMING_METHODS, NOBODY_OUT, OUTCOMES, PUBLIC, SPY, TIE_RULES, VILLAGER, VOTING_MODES, vote_facts
from pytest_gameeval.games.spygame import metrics
from pytest_gameeval.metrics.headline import DIRECTIONS as HEADLINE_DIRECTIONS, KEYS as HEADLINE_KEYS

HOST_ROLE = "host"


def load_pairs(path: Path) -> list[dict[str, Any]]:
    rows = load_jsonl(path, {"id": str, "word_a": str, "word_b": str}, unique="id")
    for r in rows:
        if not r["word_a"].strip() or not r["word_b"].strip() or r["word_a"].strip().lower() == r["word_b"].strip().lower():
            raise GameEvalError(f"{path}: pair {r['id']!r} needs two different, non-empty words")
    return rows


class SpyGameSpec(GameSpec):
    name = "spygame"
    title = "SpyGame (Who is the Spy)"
    data_file = "pairs.jsonl"
    options = {
        "guest": Option(SPY, "the side of the guest (the evaluated model); hosts are --model-role host=...", (SPY, VILLAGER)),
        "players": Option(4, "number of players: one guest and players-1 hosts, one of them the spy"),
        "end_players": Option(2, "the spy wins when this many players or fewer remain"),
        "max_words": Option(10, "longest description in words (0: no limit)"),
        "word_guessing": Option(True, "ask for a guess of the other keyword with each description (off: ablation)"),
        "reasoning": Option(True, "ask for reasoning about every player before each vote (off: ablation)"),
        "tom": Option(True, "theory-of-mind probe of every player just before the first vote"),
        "probe": Option(False, 'content-free bias probe: every description is "..."'),
        "voting": Option("secret", "secret: simultaneous ballots announced together; public: sequential", VOTING_MODES),
        "revote": Option(True, "a tie goes to a revote among the tied before the draw of lots"),
        "tie": Option(DRAW_LOTS, "a tie left after any revote: lots (the host draws one) or nobody (nobody is out, next round)", TIE_RULES),
        "max_rounds": Option(10, "with tie=nobody: the spy wins if still in the game after this many rounds"),
        "naming": Option(1, "display names: 1 'Player k', 2 'Aaron One'..., 3 plain first names", NAMING_METHODS),
        "shuffle_seats": Option(True, "seat the spy (and a villager guest) at random"),
        "shuffle_order": Option(True, "shuffle the speaking order every round"),
        "shuffle_options": Option(True, "shuffle the vote options for every voter"),
        "both_orientations": Option(True, "play each pair with the words swapped too"),
        "pairs": Option(None, "only these pair ids (comma-separated)", kind=list),
        "domains": Option(None, "only pairs of these domains (comma-separated)", kind=list),
    }
    # the default (guest=spy); seat_model_roles puts the evaluated model on the guest seat
    model_roles = {SPY: EVALUATED, VILLAGER: HOST_ROLE}
    reference_roles = (HOST_ROLE,)  # the strong hosts: describe their word, vote by overlap
    # the paper states no tie rule; its Round above 2 with 4 players needs rounds without an
    # elimination, so a tie (after the revote) eliminates nobody; its Algorithm 1 has each vote
    # heard before the next player votes; it sets no word limit on descriptions (docs/fidelity.md)
    paper_protocol = {"tie": NOBODY_OUT, "voting": PUBLIC, "max_words": 0}
    outcome_labels = OUTCOMES
    outcome_names = {"spy_win": "the spy survived to the end: the spy wins", "villager_win": "the spy was voted out: the villagers win"}
    mean_keys = ("guest_win", "guest_rounds", "guest_round_paper", "guest_voted", "rounds", "abstentions", *metrics.TOM_KEYS, *HEADLINE_KEYS)
    higher_is_better = {"guest_win": True, "guest_rounds": True, "guest_round_paper": True, "guest_voted": False, **{k: True for k in metrics.TOM_KEYS}, **HEADLINE_DIRECTIONS}
    win_key = "guest_win"
    binary_keys = ("guest_win", "played")
    scripted = POLICIES

    def rows(self, options: dict[str, Any]) -> list[Row]:
        pairs = load_pairs(self.data_path(options))
        if options.get("domains"):
            pairs = [p for p in pairs if p.get("domain") in options["domains"]]
            if not pairs:
                raise GameEvalError(f"spygame: no pairs in domain(s) {', '.join(options['domains'])}")
        pairs = select_pairs(pairs, options.get("pairs"), self.name)
        # fwd: the spy holds word_a; rev: word_b
        return pair_rows(pairs, "word_a", "word_b", options.get("both_orientations", True))

    def new_game(self, row: Row, rng: random.Random, options: dict[str, Any]) -> SpyGameGame:
        if options["max_rounds"] < 1:
            raise GameEvalError("spygame: max_rounds must be at least 1")
        if options["max_words"] < 0:
            raise GameEvalError("spygame: max_words must be 0 (no limit) or more")
        return new_game(row.data, rng, options)

    def seat_model_roles(self, game: Game) -> dict[str, str]:
        assert isinstance(game, SpyGameGame)
        return {name: EVALUATED if name == game.guest else HOST_ROLE for name in game.seats}

    def key_facts(self, record: GameRecord) -> list[str]:
        return vote_facts(record.outcome["details"])

    def evaluated_side(self, record: GameRecord) -> str:
        return record.seat(record.outcome["details"]["guest"])["role"]

    def score(self, record: GameRecord) -> dict[str, float]:
        return metrics.score(record)

    def summarize(self, records: list[GameRecord]) -> dict[str, Any]:
        return metrics.summarize(records)


SPEC = SpyGameSpec()
