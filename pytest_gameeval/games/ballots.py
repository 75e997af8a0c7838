"""One ballot of the hidden-word voting games (SpyFall, SpyGame), and what metrics read back from it.

`VoteStage` is one ballot among living players. Secret and simultaneous by default (every ballot
is asked at once from the same state and announced together), or sequential and public (each
ballot is announced before the next voter is asked). Votes are validated: a vote for oneself, for
a player who is out, for an unknown name, or (in a revote) for a player outside the tie is a rule
violation; an unreadable reply is a format error. The runner re-prompts; a seat that still has no
valid vote abstains. `leaders()` gives the most-voted candidates. The round loop around ballots is
`games/voting.py`.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from pytest_gameeval.engine.errors import RuleViolation
from pytest_gameeval.engine.matching import normalize, squash
from pytest_gameeval.engine.replies import Field, ReplyFormat


def match_name(raw: str, names: list[str]) -> str | None:
    """The seat a vote names: an exact (case/space-folded) name, else the one name mentioned."""
    key = squash(raw)
    exact = [n for n in names if squash(n) == key]
    if exact:
        return exact[0]
    text = normalize(raw)
    found = [n for n in names if re.search(rf"(?<![a-z0-9]){re.escape(normalize(n))}(?![a-z0-9])", text)]
    return found[0] if len(found) == 1 else None


@dataclass
class Ballot:
    """A validated vote: the chosen seat and every field of the reply (reason, reasoning...)."""

    choice: str
    fields: dict[str, Any] = field(default_factory=dict)


def vote_format(name: str, options: list[str], *before: Field) -> ReplyFormat:
    """A vote reply: the fields `before`, then "name", one of the voter's options."""
    return ReplyFormat(name, (*before, Field("name", "<the player you vote for>", enum=tuple(options))))


def ballot_parser(voter: str, options: list[str], alive: list[str], names: list[str], reply: ReplyFormat | None = None,
                  *, read: Callable[[str], dict[str, Any]] | None = None, self_vote: bool = False):
    """parse(text) -> Ballot for one voter; format errors and rule violations as the engine wants.
    `reply`: the vote's reply format (default: just the name); `read`: how a reply's fields are read
    (default: `reply.read`); `self_vote`: a vote for oneself counts (GameEval's harness counted it)."""
    reply = reply or vote_format("vote", options)
    read = read or reply.read

    def parse(text: str) -> Ballot:
        fields = read(text)
        choice = match_name(fields["name"], names)
        if choice is None:
            raise RuleViolation(f"there is no player called {fields['name'][:40]!r}; make a choice from {options}")
        if choice == voter and not self_vote:
            raise RuleViolation(f"you cannot vote for yourself; make a choice from {options}")
        if choice not in alive:
            raise RuleViolation(f"{choice} is out of the game; make a choice from {options}")
        if choice not in options and choice != voter:  # the voter is no option, but may count (self_vote)
            raise RuleViolation(f"{choice} is not among the players you may vote for now; make a choice from {options}")
        return Ballot(choice, fields)

    return parse


class VoteStage:
    """One ballot: who votes, whom each may choose (in the order shown), and the votes cast."""

    def __init__(self, kind: str, voters: list[str], candidates: list[str], rng: random.Random, *,
                 secret: bool = True, shuffle_options: bool = True):
        self.kind = kind  # "first" or "revote"
        self.voters = list(voters)  # in the order asked when voting is public
        self.candidates = list(candidates)
        self.secret = secret
        self.options: dict[str, list[str]] = {}
        for v in self.voters:
            opts = [c for c in self.candidates if c != v]
            if shuffle_options:
                rng.shuffle(opts)
            self.options[v] = opts
        self.ballots: dict[str, Ballot | None] = {}  # None: abstained
        self.abstain_reason: dict[str, str] = {}

    def waiting(self) -> list[str]:
        left = [v for v in self.voters if v not in self.ballots]
        return left if self.secret else left[:1]

    def cast(self, voter: str, ballot: Ballot) -> None:
        self.ballots[voter] = ballot

    def abstain(self, voter: str, why: str) -> None:
        self.ballots[voter] = None
        self.abstain_reason[voter] = why

    @property
    def complete(self) -> bool:
        return all(v in self.ballots for v in self.voters)

    def tally(self) -> dict[str, int]:
        counts = Counter(b.choice for b in self.ballots.values() if b is not None)
        return {c: counts.get(c, 0) for c in self.candidates}

    def leaders(self) -> list[str]:
        """The most-voted candidates (all candidates if nobody cast a valid vote)."""
        tally = self.tally()
        top = max(tally.values())
        return [c for c in self.candidates if tally[c] == top]

    def records(self, round_: int, order: list[str]) -> list[dict[str, Any]]:
        """One JSON-able entry per voter, with what bias metrics need (option and speaking positions)."""
        out = []
        for v in self.voters:
            b = self.ballots.get(v)
            out.append({
                "round": round_, "stage": self.kind, "voter": v, "options": self.options[v],
                "order": list(order), "choice": None if b is None else b.choice,
                "abstained": b is None, "why": self.abstain_reason.get(v),
            })
        return out


# -- what metrics read back from a game's ballots ----------------------------------------------
def votes_received(ballots: list[dict[str, Any]], stage: str = "first") -> dict[str, dict[int, int]]:
    """seat -> round -> valid votes received in that round's ballot of the given stage."""
    out: dict[str, dict[int, int]] = {}
    for b in ballots:
        if b["stage"] == stage and b["choice"] is not None:
            out.setdefault(b["choice"], {}).setdefault(b["round"], 0)
            out[b["choice"]][b["round"]] += 1
    return out


def votes_per_round(details: dict[str, Any], seat: str) -> float:
    """Average first-ballot votes a seat received per round it was in the game."""
    rounds = [r for r in details["rounds_log"] if seat in r["alive"]]
    if not rounds:
        return float("nan")
    got = votes_received(details["ballots"]).get(seat, {})
    return sum(got.get(r["round"], 0) for r in rounds) / len(rounds)
