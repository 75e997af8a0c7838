"""SpyGame / Who-is-Spy rules (Liang et al. 2023) on the shared voting loop.

N players (default 4): one guest (the evaluated model, the spy unless -T guest=villager) and
host agents. Each round every living player describes its keyword (at most `max_words` words,
not its own keyword, not a repeat of another player's description), optionally guessing the other
keyword first (word guessing); then everyone votes, optionally reasoning first. Probe mode
publishes "..." for every description (content-free), so the votes show pure name / position
bias. The theory-of-mind probe asks every player privately, just before the first vote, what it
infers; it is then removed from every seat's view so it cannot change the game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.game import Turn
from pytest_gameeval.engine.matching import squash
from pytest_gameeval.engine.options import option
from pytest_gameeval.engine.parsing import plain_text
from pytest_gameeval.engine.replies import ReplyFormat
from pytest_gameeval.games.ballots import VoteStage, ballot_parser, match_name
from pytest_gameeval.games.spygame import prompts
from pytest_gameeval.games.voting import (
    DRAW_LOTS,
    MAX_PLAYERS,
    NOBODY_OUT,
    SPY,
    TIE_RULES,
    VILLAGER,
    VOTING_MODES,
    SpyWordGame,
    SpyWordOptions,
    no_own_word,
)


@dataclass(frozen=True, kw_only=True)
class SpyGameOptions(SpyWordOptions):
    guest: str = option(
        SPY, "the side of the guest (the evaluated model); hosts are --model-role host=...", (SPY, VILLAGER)
    )
    players: int = option(
        4, "number of players: one guest and players-1 hosts, one of them the spy", min=3, max=MAX_PLAYERS
    )
    end_players: int = option(2, "the spy wins when this many players or fewer remain")
    max_words: int = option(10, "longest description in words (0: no limit)", min=0)
    word_guessing: bool = option(True, "ask for a guess of the other keyword with each description (off: ablation)")
    reasoning: bool = option(True, "ask for reasoning about every player before each vote (off: ablation)")
    tom: bool = option(True, "theory-of-mind probe of every player just before the first vote")
    probe: bool = option(False, 'content-free bias probe: every description is "..."')
    voting: str = option("secret", "secret: simultaneous ballots announced together; public: sequential", VOTING_MODES)
    tie: str = option(
        DRAW_LOTS,
        "a tie left after any revote: lots (the host draws one) or nobody (nobody is out, next round)",
        TIE_RULES,
    )
    max_rounds: int = option(10, "with tie=nobody: the spy wins if still in the game after this many rounds", min=1)
    shuffle_seats: bool = option(True, "seat the spy (and a villager guest) at random")
    domains: list[str] | None = option(None, "only pairs of these domains (comma-separated)")


def read_identity(value: Any) -> str | None:
    """'spy' / 'villager' from a free answer ("I am the spy" counts); None if neither or both."""
    text = str(value).lower() if value is not None else ""
    spy, villager = "spy" in text, "villager" in text or "civilian" in text
    return SPY if spy and not villager else VILLAGER if villager and not spy else None


def read_players(value: Any, others: list[str]) -> dict[str, dict[str, Any]]:
    """{seat: {"word", "identity"}} from a probe answer, keyed by the seats named (unknown keys dropped)."""
    if not isinstance(value, dict):
        raise ParseError('"players" must be a JSON object keyed by player name')
    out: dict[str, dict[str, Any]] = {}
    for key, entry in value.items():
        seat = match_name(str(key), others)
        if seat is None or not isinstance(entry, dict):
            continue
        word = entry.get("word")
        out[seat] = {
            "word": str(word).strip() if word is not None else None,
            "identity": read_identity(entry.get("identity")),
        }
    return out


class SpyGameGame(SpyWordGame):
    name = "spygame"
    options: SpyGameOptions

    @property
    def tie_rule(self) -> str:
        return self.options.tie

    @property
    def round_limit(self) -> int:
        return self.options.max_rounds

    def seated(self) -> None:
        """Pick the guest seat (the evaluated model): the spy, or a villager."""
        if self.options.guest == SPY:
            self.guest = self.spy
        else:
            villagers = [n for n in self.names if n != self.spy]
            self.guest = self.rng.choice(villagers) if self.options.shuffle_seats else villagers[0]
        self.tom: dict[str, dict[str, Any] | None] = {}

    def content_free(self) -> bool:
        return self.options.probe

    def system_prompt(self, seat: str) -> str:
        return prompts.system(
            seat,
            self.names,
            self.seats[seat].private["word"],
            self.end_players,
            self.options.max_words,
            self.tie_rule == NOBODY_OUT,
            not self.secret,
        )

    def describe_turn(self, seat: str) -> Turn:
        word = self.seats[seat].private["word"]
        guessing = self.options.word_guessing or seat != self.guest  # ablations switch off the guest only
        # the game's first speaker has heard no description to guess from: SpyGame asks it for none
        # (its published games; asked anyway, every first speaker's real move was a format error)
        guessing = guessing and any(d["text"] for d in self.descriptions)
        max_words = self.options.max_words
        said_by_others = {squash(d["text"]) for d in self.descriptions if d["seat"] != seat and d["text"]}
        reply = prompts.describe_format(max_words, guessing)

        def parse(text: str) -> dict[str, str]:
            fields = reply.read(text)
            speak = fields["speak"] = plain_text(fields["speak"], max_chars=600)  # SpyFall's checks
            if max_words and len(speak.split()) > max_words:
                raise RuleViolation(f"your description has {len(speak.split())} words; use at most {max_words}")
            no_own_word(speak, word)
            if squash(speak) in said_by_others:
                raise RuleViolation("another player already said exactly that; say something new")
            return fields

        return Turn(seat, "describe", prompts.describe_instruction(self.round, max_words, guessing), parse, reply=reply)

    def vote_turn(self, seat: str, options: list[str], stage: VoteStage) -> Turn:
        reasoning = self.options.reasoning or seat != self.guest  # ablations switch off the guest only
        reply = prompts.vote(options, reasoning)
        parse = ballot_parser(seat, options, self.alive, self.names, reply)
        instruction = prompts.vote_instruction(options, stage.kind == "revote", reasoning)
        return Turn(seat, "vote", instruction, parse, data={"options": options, "stage": stage.kind}, reply=reply)

    # -- theory-of-mind probe -----------------------------------------------------------------
    def pre_vote_turns(self) -> list[Turn]:
        if not self.options.tom:
            return []
        turns = []
        for seat in self.alive:
            others = [p for p in self.alive if p != seat]
            second = seat == self.guest

            reply = prompts.tom_format(others, second)

            def parse(
                text: str, others: list[str] = others, second: bool = second, reply: ReplyFormat = reply
            ) -> dict[str, Any]:
                obj = reply.read(text)
                answer = {
                    "self_identity": read_identity(obj.get("self_identity")),
                    "players": read_players(obj["players"], others),
                }
                if second:
                    answer["they_think"] = read_players(obj["they_think"], others)
                return answer

            turns.append(Turn(seat, "tom", prompts.tom_instruction(others, second), parse,
                              data={"others": others, "second_order": second}, record_only=True, reply=reply))
        return turns

    def on_pre_vote(self, turn: Turn, action: Any | None, failure: str | None) -> None:
        self.tom[turn.seat] = action
        self.act(turn.seat, "theory-of-mind probe answer" if action else f"no probe answer ({failure})", answer=action)

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        guest_won = (label == "spy_win") == (self.guest == self.spy)
        details.update(guest=self.guest, guest_role=self.seats[self.guest].role, guest_win=guest_won,
                       probe=self.options.probe, tom=self.tom if self.options.tom else None,
                       words={n: s.private["word"] for n, s in self.seats.items()},
                       roles={n: s.role for n, s in self.seats.items()})
        super().finish(label, winner, **details)


def new_game(row: dict[str, Any], rng: random.Random, options: SpyGameOptions) -> SpyGameGame:
    info = {"pair_id": row["pair_id"], "orientation": row["orientation"], "domain": row.get("domain")}
    return SpyGameGame(row["spy_word"], row["villager_word"], rng, options, info=info)
