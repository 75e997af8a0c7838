"""Voting machinery shared by the hidden-word voting games (SpyFall, SpyGame / Who-is-Spy).

One ballot (who may vote for whom, reading a vote, the tally) is in `games/ballots.py`; this module
holds what the two games share around it:

- `SpyWordOptions`, display names and the description checks;
- `SpyWordGame`: the round loop. Each round: a describing stage in speaking
  order, optional private turns before the vote (SpyGame's theory-of-mind probe), then a vote.
  The most-voted player is out; a tie goes to a revote among the tied, then to a draw of lots
  with the game's seeded random source. Villagers win when the spy is voted out; the spy wins when
  `end_players` or fewer players remain and it is still in. Every round removes exactly one
  player, so every game ends, with a winner, within `players - end_players` rounds.

Bias controls (SpyGame paper §3.3): display names by a naming method, seats shuffled (which seat
is the spy), speaking order shuffled every round, vote options shuffled for every voter.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, final

from pytest_gameeval.engine.errors import GameEvalError, RuleViolation
from pytest_gameeval.engine.game import ABORTED, Game, Seat, Turn
from pytest_gameeval.engine.matching import mentions, squash
from pytest_gameeval.engine.options import DataGameOptions, option
from pytest_gameeval.games.ballots import Ballot, VoteStage

SPY = "spy"
VILLAGER = "villager"
SPY_WIN = "spy_win"
VILLAGER_WIN = "villager_win"
OUTCOMES = (SPY_WIN, VILLAGER_WIN, ABORTED)
DRAW_LOTS, NOBODY_OUT = "lots", "nobody"  # what a tie that survives the revote leads to
TIE_RULES = (DRAW_LOTS, NOBODY_OUT)

SECRET = "secret"
PUBLIC = "public"
VOTING_MODES = (SECRET, PUBLIC)

# -- display names ------------------------------------------------------------------------
# Method 2 pairs a first name with the seat number written out; method 3 uses plain first names.
_NUMBER_NAMES = [
    "Aaron One", "Barbara Two", "Charlie Three", "David Four", "Emma Five", "Frank Six",
    "Grace Seven", "Henry Eight", "Irene Nine", "Julian Ten", "Karen Eleven", "Louis Twelve",
]
_FIRST_NAMES = ["Jack", "Mary", "Alice", "Tom", "Linda", "Peter", "Susan", "Mike", "Nora", "Oscar", "Rita", "Sam"]
NAMING_METHODS = (1, 2, 3)
MAX_PLAYERS = 12


@dataclass(frozen=True, kw_only=True)
class SpyWordOptions(DataGameOptions):
    """The options both voting games take (SpyFall's wording; SpyGame rewords some)."""

    players: int = option(6, "number of players (one spy)", min=3, max=MAX_PLAYERS)
    end_players: int = option(2, "the spy wins when this many players or fewer remain (paper: 2; GameEval's code: 3)")
    voting: str = option(
        "secret",
        "secret: simultaneous ballots announced together; public: sequential, each announced at once",
        VOTING_MODES,
    )
    revote: bool = option(True, "a tie goes to a revote among the tied before the draw of lots")
    naming: int = option(1, "display names: 1 'Player k', 2 'Aaron One'..., 3 plain first names", NAMING_METHODS)
    shuffle_seats: bool = option(True, "seat the spy at random (else seat 1)")
    shuffle_order: bool = option(True, "shuffle the speaking order every round")
    shuffle_options: bool = option(True, "shuffle the vote options for every voter")
    both_orientations: bool = option(True, "play each pair with the words swapped too")
    pairs: list[str] | None = option(None, "only these pair ids (comma-separated)")


def seat_names(method: int, n: int) -> list[str]:
    """The display names of seats 1..n under a naming method (1: "Player k")."""
    if not 3 <= n <= MAX_PLAYERS:
        raise GameEvalError(f"players must be between 3 and {MAX_PLAYERS}, not {n}")
    if method == 1:
        return [f"Player {k}" for k in range(1, n + 1)]
    if method == 2:
        return _NUMBER_NAMES[:n]
    if method == 3:
        return _FIRST_NAMES[:n]
    raise GameEvalError(f"naming must be one of {', '.join(map(str, NAMING_METHODS))}, not {method}")


class SpyWordGame(Game):
    """The shared round loop. It implements the engine's hooks (`pending`, `apply`, `forfeit`: final
    here); a game of this family implements `system_prompt` and the abstract `describe_turn` and
    `vote_turn`, and may override the hooks with defaults below (docs/adding-a-game.md, "Two
    families of games")."""

    name = "spyword"
    options: SpyWordOptions
    # what a tie left after any revote leads to, and the rounds after which the spy wins when
    # ties can leave everyone in (0: no limit); SpyGame takes both as options
    tie_rule = DRAW_LOTS
    round_limit = 0
    # a tie that ends the game the same way however it is broken is not revoted: no model call can
    # change the outcome. SpyFall's metrics read only the spy's fate; SpyGame keeps its revote,
    # since its guest may be one of the tied villagers and its rounds survived would move
    end_settled_ties = False

    def __init__(self, spy_word: str, villager_word: str, rng: random.Random, options: SpyWordOptions, *,
                 info: dict[str, Any] | None = None, seated: tuple[list[str], str] | None = None):
        """`seated`: (seat names in seat order, the spy) of a recorded game replayed (players/replay.py);
        else the names come from `options.naming` and the spy's seat from `rng`."""
        n = options.players
        end = options.end_players
        if not 2 <= end < n:
            raise GameEvalError(f"end_players must be at least 2 and below players ({n}), not {end}")
        if seated is not None and (len(seated[0]) != n or seated[1] not in seated[0]):
            raise GameEvalError(f"a replayed game seats {n} players, the spy among them, not {seated}")
        names = list(seated[0]) if seated else seat_names(options.naming, n)
        spy_index = names.index(seated[1]) if seated else rng.randrange(n) if options.shuffle_seats else 0
        seats = [
            Seat(name, SPY if i == spy_index else VILLAGER, {"word": spy_word if i == spy_index else villager_word})
            for i, name in enumerate(names)
        ]
        super().__init__(seats, rng, options)
        self.names = names
        self.spy = names[spy_index]
        self.spy_word, self.villager_word = spy_word, villager_word
        self.info = dict(info or {})
        self.end_players = end
        self.alive = list(names)
        self.secret = options.voting == SECRET
        self.revote = options.revote
        self.phase = "describe"
        self.order: list[str] = []
        self.speaker = 0
        self.stage: VoteStage | None = None
        self.ballots: list[dict[str, Any]] = []
        self.rounds_log: list[dict[str, Any]] = []
        self.eliminated: list[dict[str, Any]] = []
        self.descriptions: list[dict[str, Any]] = []
        self._pre_vote: list[Turn] = []
        self._pre_vote_done: set[str] = set()
        self.seated()
        self._start_round()

    # -- subclass hooks -----------------------------------------------------------------
    def seated(self) -> None:
        """Called once the seats exist, before the first round starts."""

    @abstractmethod
    def describe_turn(self, seat: str) -> Turn:
        """`seat`'s describing turn; its action is a dict with at least "speak" (`on_description`)."""

    @abstractmethod
    def vote_turn(self, seat: str, candidates: list[str], stage: VoteStage) -> Turn:
        """`seat`'s ballot among `candidates` (in the order shown to it); its action is a `Ballot`."""

    def content_free(self) -> bool:
        """True when descriptions are not asked but published as "..." (SpyGame's probe mode)."""
        return False

    def pre_vote_turns(self) -> list[Turn]:
        """Private turns asked together after the descriptions and before the vote (default none).

        A probe that must not shape the game (SpyGame's theory-of-mind question) is `record_only`.
        """
        return []

    def on_pre_vote(self, turn: Turn, action: Any | None, failure: str | None) -> None:
        pass

    def forced_order(self) -> list[str] | None:
        """This round's speaking order whatever the shuffle (None: as drawn). Only a replay overrides
        it: a recorded reply was written after the descriptions its model had heard."""
        return None

    def forced_out(self, leaders: list[str]) -> str | None:
        """The player out after this round's first ballot whatever its tally (None: the tally decides).
        Only a replay overrides it: a recorded game's eliminations keep every later recorded reply
        meeting the living players its model saw, even where our rules counted a vote differently."""
        return None

    def describe_reason(self, seat: str, ballot: Ballot) -> str | None:
        """The public words that go with a vote (SpyFall: the `speak` field); None: no words."""
        return None

    def round_opening(self) -> str:
        """The host's first line of a round, heard by every seat."""
        alive, order = ", ".join(self.alive), ", ".join(self.order)
        return f"Round {self.round}. Players still in the game: {alive}. Speaking order: {order}."

    def vote_opening(self, kind: str, candidates: list[str]) -> str:
        """The host's line opening a ballot ("first" or "revote" among `candidates`)."""
        how = (
            "secretly and all at once; the votes are announced together"
            if self.secret
            else "one after another, in speaking order, and each vote is announced at once"
        )
        if kind == "first":
            return f"Voting for round {self.round}: every player votes for the player they think is the spy, {how}."
        return f"Revote among the tied players {', '.join(candidates)}: every player votes again, {how}."

    # -- the round loop -------------------------------------------------------------------
    def _start_round(self) -> None:
        self.round += 1
        self.order = list(self.alive)
        if self.options.shuffle_order:
            self.rng.shuffle(self.order)
        self.order = self.forced_order() or self.order
        self.speaker = 0
        self.phase = "describe"
        self.rounds_log.append({"round": self.round, "alive": list(self.alive), "order": list(self.order)})
        self.host(self.round_opening())
        if self.content_free():
            for seat in self.order:
                self.say(seat, "...", description=True, content_free=True)
                self.descriptions.append({"round": self.round, "seat": seat, "text": "...", "content_free": True})
            self._descriptions_done()

    def _descriptions_done(self) -> None:
        turns = self.pre_vote_turns() if self.round == 1 else []
        if turns:
            self.phase = "pre_vote"
            self._pre_vote = turns
            return
        self._open_vote("first", list(self.alive))

    def _open_vote(self, kind: str, candidates: list[str]) -> None:
        self.phase = "vote"
        voters = list(self.order)  # public voting follows the speaking order
        self.stage = VoteStage(kind, voters, candidates, self.rng, secret=self.secret,
                               shuffle_options=self.options.shuffle_options)
        self.host(self.vote_opening(kind, candidates))

    @final
    def pending(self) -> list[Turn]:
        if self.phase == "describe":
            return [self.describe_turn(self.order[self.speaker])]
        if self.phase == "pre_vote":
            return [t for t in self._pre_vote if t.seat not in self._pre_vote_done]
        assert self.stage is not None
        return [self.vote_turn(v, self.stage.options[v], self.stage) for v in self.stage.waiting()]

    @final
    def apply(self, turn: Turn, text: str, action: Any) -> None:
        if turn.action == "describe":
            self.on_description(turn.seat, action)
            self._next_speaker()
        elif turn.action == "vote":
            self._cast(turn.seat, action)
        else:
            self._pre_vote_answer(turn, action, None)

    @final
    def forfeit(self, turn: Turn, kind: str, detail: str) -> None:
        if turn.action == "describe":
            self.host(f"{turn.seat} gave no description this round.")
            self.descriptions.append({"round": self.round, "seat": turn.seat, "text": None, "failure": kind})
            self._next_speaker()
        elif turn.action == "vote":
            assert self.stage is not None
            self.stage.abstain(turn.seat, kind)
            if not self.secret:
                self.host(f"{turn.seat} cast no valid vote and abstains.")
            self._maybe_resolve()
        else:
            self._pre_vote_answer(turn, None, kind)

    @final
    def on_description(self, seat: str, action: Any) -> None:
        """Publish a validated description (action: dict with at least "speak")."""
        self.say(seat, action["speak"], description=True)
        self.descriptions.append({"round": self.round, "seat": seat, "text": action["speak"]})
        private = {k: v for k, v in action.items() if k not in ("speak", "thought")}
        if private:
            self.act(seat, "private fields of the description turn", **private)

    def _next_speaker(self) -> None:
        self.speaker += 1
        if self.speaker >= len(self.order):
            self._descriptions_done()

    def _pre_vote_answer(self, turn: Turn, action: Any | None, failure: str | None) -> None:
        self.on_pre_vote(turn, action, failure)
        self._pre_vote_done.add(turn.seat)
        if all(t.seat in self._pre_vote_done for t in self._pre_vote):
            self._open_vote("first", list(self.alive))

    def _cast(self, voter: str, ballot: Ballot) -> None:
        assert self.stage is not None
        self.stage.cast(voter, ballot)
        self.act(voter, f"votes for {ballot.choice}", choice=ballot.choice, stage=self.stage.kind)
        if not self.secret:
            self._announce_ballot(voter, ballot)
        self._maybe_resolve()

    def _announce_ballot(self, voter: str, ballot: Ballot | None) -> None:
        if ballot is None:
            self.host(f"{voter} abstains.")
            return
        self.host(f"{voter} votes for {ballot.choice}.")
        reason = self.describe_reason(voter, ballot)
        if reason:
            self.say(voter, reason, vote_reason=True)

    def _maybe_resolve(self) -> None:
        stage = self.stage
        assert stage is not None
        if not stage.complete:
            return
        if self.secret:  # simultaneous ballots become public together, in speaking order
            for voter in stage.voters:
                self._announce_ballot(voter, stage.ballots[voter])
        self.ballots.extend(stage.records(self.round, self.order))
        tally = stage.tally()
        self.host("Votes received: " + ", ".join(f"{c}: {tally[c]}" for c in stage.candidates) + ".")
        leaders = stage.leaders()
        forced = self.forced_out(leaders) if stage.kind == "first" else None
        if forced is not None:
            self.judge("elimination forced to the recorded game's", leaders=leaders, forced=forced)
            self._eliminate(forced, "vote" if leaders == [forced] else "forced")
        elif len(leaders) == 1:
            self._eliminate(leaders[0], "vote")
        elif stage.kind == "first" and self.revote and self.end_settled_ties and self._settled_tie(leaders):
            self.host(f"It is a tie between {', '.join(leaders)}. Whichever of them is out, only "
                      f"{len(self.alive) - 1} players remain with the spy still in: the spy wins.")
            self.judge("tie settles the game: no revote", tied=leaders)
            self.stage = None
            self.finish(SPY_WIN, "spy")
        elif stage.kind == "first" and self.revote:
            self.host(f"It is a tie between {', '.join(leaders)}.")
            self._open_vote("revote", leaders)
        elif self.tie_rule == NOBODY_OUT:
            self.host(f"It is a tie between {', '.join(leaders)}: nobody is voted out this round.")
            self.judge("tie: nobody voted out", tied=leaders)
            self.stage = None
            self._round_without_elimination()
        else:
            chosen = self.rng.choice(leaders)
            self.host(f"Still a tie between {', '.join(leaders)}; the host draws lots: {chosen}.")
            self.judge("tie broken by the seeded random source", tied=leaders, chosen=chosen)
            self._eliminate(chosen, "lot")

    def _settled_tie(self, leaders: list[str]) -> bool:
        """Only villagers are tied, and whichever goes out leaves the spy among the last players."""
        return self.tie_rule == DRAW_LOTS and self.spy not in leaders and len(self.alive) - 1 <= self.end_players

    def _eliminate(self, seat: str, how: str) -> None:
        self.alive.remove(seat)
        self.eliminated.append({"round": self.round, "seat": seat, "role": self.seats[seat].role, "how": how})
        self.stage = None
        if seat == self.spy:
            self.host(f"{seat} is voted out. {seat} was the spy: the villagers win.")
            self.finish(VILLAGER_WIN, "villagers")
        elif len(self.alive) <= self.end_players:
            self.host(f"{seat} is voted out and was not the spy. Only {len(self.alive)} players remain: the spy wins.")
            self.finish(SPY_WIN, "spy")
        else:
            self.host(f"{seat} is voted out. The spy is still in the game.")
            self._start_round()

    def _round_without_elimination(self) -> None:
        limit = self.round_limit
        if limit and self.round >= limit:
            self.host(f"{limit} rounds are over and the spy is still in the game: the spy wins.")
            self.finish(SPY_WIN, "spy")
        else:
            self._start_round()

    # -- the record ---------------------------------------------------------------------
    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        out_round = {e["seat"]: e["round"] for e in self.eliminated}
        details.update(
            self.info,
            spy=self.spy, spy_word=self.spy_word, villager_word=self.villager_word,
            rounds=self.round, end_players=self.end_players,
            # rounds a seat survived: completed rounds in which it was not voted out
            survived={s: (out_round[s] - 1 if s in out_round else self.round) for s in self.names},
            eliminated=self.eliminated, ballots=self.ballots, rounds_log=self.rounds_log,
            descriptions=self.descriptions,
        )
        super().finish(label, winner, **details)


def same_word(a: str | None, b: str | None) -> bool:
    """Whether two keyword strings name the same word (case, spacing, articles, plurals folded)."""
    if not a or not b or not squash(a) or not squash(b):
        return False
    if squash(a) == squash(b):
        return True
    try:
        return mentions(a, b) or mentions(b, a)
    except ValueError:
        return False


def no_own_word(text: str, word: str) -> None:
    """A description must not say its own keyword."""
    if mentions(text, word):
        raise RuleViolation("what you say must not contain your own keyword; say it again without the keyword")


def vote_facts(details: dict[str, Any]) -> list[str]:
    """How a voting game went, for a reader: the spy and the words, who was voted out and how,
    and whether a draw of lots decided it."""
    facts = [
        f'The spy was {details["spy"]} (word "{details["spy_word"]}"; the villagers had "{details["villager_word"]}")',
        f"{details['rounds']} round{'s' if details['rounds'] != 1 else ''}",
    ]
    out = [f"{e['seat']} (round {e['round']}, {e['role']}{', by drawn lots' if e['how'] == 'lot' else ''})"
           for e in details.get("eliminated", [])]
    if out:
        facts.append("Voted out: " + ", ".join(out))
    lots = sum(e["how"] == "lot" for e in details.get("eliminated", []))
    if lots:
        last = details["eliminated"][-1]["how"] == "lot"
        facts.append(f"{lots} elimination{'s' if lots > 1 else ''} decided by drawn lots"
                     + (", including the one that ended the game" if last else ""))
    return facts
