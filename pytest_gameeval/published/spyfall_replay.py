"""GameEval's published SpyFall games replayed through our SpyFall rules (engine.runner.play), each
seat a `ReplaySeat` answering with its real recorded replies.

The replayed game is seated as the recorded one: the log's seat names in its speaking order (kept
all game, as GameEval does), the log's spy and words, GameEval's settings (six players, public
votes one by one, no revote, the spy wins once three players are left), and every elimination the
host announced forced to the recorded one, so each recorded reply meets the living players its
model saw even where our rules counted a vote differently. Every recorded reply then has its fate
(`published/replaying.py`).
"""

from __future__ import annotations

import random

from pytest_gameeval.games.spyfall import SPEC
from pytest_gameeval.games.spyfall.rules import SpyFallGame, SpyFallOptions
from pytest_gameeval.games.voting import SPY_WIN, VILLAGER_WIN
from pytest_gameeval.published.gameeval_logs import PublishedGame
from pytest_gameeval.published.replaying import Replay, run_replay

# GameEval's settings for its published games (its code: the spy wins once 3 players are left); its
# tie rule (the first most-voted name in ballot order) is ReplayedSpyFall.forced_out's
REPLAY_OPTIONS = {"players": 6, "end_players": 3, "voting": "public", "revote": False, "naming": 1,
                  "shuffle_seats": False, "shuffle_order": False, "shuffle_options": False,
                  "both_orientations": False}
WINNERS = {SPY_WIN: "spy", VILLAGER_WIN: "villager"}  # our outcome label -> GameEval's `winer`


class ReplayedSpyFall(SpyFallGame):
    """SpyFall seated as a recorded game, with the host's announced eliminations forced."""

    def __init__(self, published: PublishedGame, options: SpyFallOptions):
        info = {"pair_id": f"{published.spy_word}&{published.villager_word}", "orientation": "fwd",
                "domain": None, "evaluated": options.evaluated, "replay_of": published.source}
        super().__init__(published.spy_word, published.villager_word, random.Random(0), options, info=info,
                         seated=(published.seats, published.spy))
        self.recorded_out = dict(published.eliminated)

    def forced_out(self, leaders: list[str]) -> str | None:
        """The elimination the host announced; else (the game's last round) the tally, a tie going
        as GameEval's harness breaks it: to the tied player whose first vote came first."""
        if self.round in self.recorded_out:
            return self.recorded_out[self.round]
        if len(leaders) > 1 and self.stage is not None:
            cast = [b.choice for b in self.stage.ballots.values() if b is not None]
            return next((choice for choice in cast if choice in leaders), None)
        return None


def replay_options(protocol: str, players: int = 6) -> SpyFallOptions:
    return SPEC.parse_options({"protocol": protocol, **REPLAY_OPTIONS, "players": players})  # type: ignore[return-value]


def replay_game(published: PublishedGame, protocol: str, *, strict: bool = False) -> Replay:
    """Replay one published game under `protocol` ("default" or "paper"); see ReplaySeat for `strict`."""
    options = replay_options(protocol, len(published.seats))
    return run_replay(ReplayedSpyFall(published, options), published, protocol, WINNERS,
                      strict=strict)
