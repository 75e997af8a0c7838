"""SpyFall rules (GameEval §3.2) on the shared voting loop, with the original code's bugs fixed.

Six players by default: one spy (the spy word), the rest villagers (the common word); nobody is
told their side. Each round: descriptions in a shuffled speaking order, then a vote; the most-voted
player is out. Villagers win when the spy is out; the spy wins when `end_players` (default 2, the
paper's "fewer than three") or fewer remain and it is still in. Fixes over GameEval's code: every
game ends with a winner (a failed call is a missing description or an abstention, never an
"exit"), invalid votes are re-prompted then abstentions, ties go to a revote then to a seeded draw.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.game import Turn
from pytest_gameeval.engine.matching import mentions
from pytest_gameeval.engine.options import option
from pytest_gameeval.engine.parsing import plain_text
from pytest_gameeval.games.ballots import Ballot, VoteStage, ballot_parser
from pytest_gameeval.games.referee_reading import read_move
from pytest_gameeval.games.spyfall import prompts
from pytest_gameeval.games.voting import SPY, VILLAGER, SpyWordGame, SpyWordOptions, no_own_word


@dataclass(frozen=True, kw_only=True)
class SpyFallOptions(SpyWordOptions):
    evaluated: str = option(
        SPY,
        "the side the evaluated model plays; the other side is --model-role spy=... or villager=...",
        (SPY, VILLAGER),
    )
    source: str = option("all", "pairs from the paper, ours, or all", ("all", "paper", "ours"))


class SpyFallGame(SpyWordGame):
    name = "spyfall"
    end_settled_ties = True

    def seated(self) -> None:
        self.prompts = prompts.for_protocol(self.options.protocol)
        # protocol=paper accepts what GameEval's harness accepted (its published games, issue 45):
        # well-formed JSON only, a vote for oneself, the own word said (its rules forbid it in a
        # description, its code checks it nowhere)
        self.paper = self.options.protocol == "paper"

    def round_opening(self) -> str:
        short = self.prompts.round_opening
        return short(self.round, self.order) if short else super().round_opening()

    def vote_opening(self, kind: str, candidates: list[str]) -> str:
        short = self.prompts.vote_opening
        return short(kind, candidates, self.round, self.secret) if short else super().vote_opening(kind, candidates)

    def system_prompt(self, seat: str) -> str:
        return self.prompts.system(seat, self.names, self.seats[seat].private["word"], self.end_players)

    def describe_turn(self, seat: str) -> Turn:
        word = self.seats[seat].private["word"]

        def parse(text: str) -> dict[str, str]:
            fields = read_move(self.prompts.describe, text, near_json=not self.paper)
            if self.paper:  # GameEval's harness published any speak: empty, long, or saying the word
                return fields
            fields["speak"] = plain_text(fields["speak"], max_chars=600)
            no_own_word(fields["speak"], word)
            return fields

        return Turn(seat, "describe", self.prompts.describe_instruction(self.round), parse, reply=self.prompts.describe)

    def vote_turn(self, seat: str, candidates: list[str], stage: VoteStage) -> Turn:
        reply = self.prompts.vote(candidates)
        parse = ballot_parser(seat, candidates, self.alive, self.names, reply, self_vote=self.paper,
                              read=lambda text: read_move(reply, text, near_json=not self.paper))
        return Turn(seat, "vote", self.prompts.vote_instruction(candidates, stage.kind == "revote"), parse,
                    data={"options": candidates, "stage": stage.kind}, reply=reply)

    def describe_reason(self, seat: str, ballot: Ballot) -> str | None:
        """The vote's public reason. Under the default protocol a reason saying the voter's own word
        is withheld, not rejected: the vote is a legal move by the paper's rules (which forbid the
        word in descriptions only, and GPT-4 said it in 3 of 415 real votes), but the word must not
        reach the other seats."""
        reason = ballot.fields.get("speak") or None
        if reason and not self.paper and mentions(reason, self.seats[seat].private["word"]):
            self.judge(f"{seat}'s vote reason withheld: it says {seat}'s own word", withheld_reason=seat)
            return None
        return reason


def new_game(row: dict[str, Any], rng: random.Random, options: SpyFallOptions) -> SpyFallGame:
    spy_word, villager_word = row["spy_word"], row["villager_word"]
    info = {"pair_id": row["pair_id"], "orientation": row["orientation"], "domain": row.get("domain"),
            "evaluated": options.evaluated}
    return SpyFallGame(spy_word, villager_word, rng, options, info=info)
