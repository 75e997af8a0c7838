"""A published game's replay record (one that `benchmarks/published_games.py --records` wrote) seated
again for `gameeval rejudge`: the record names its source (`replay_of`), and its seats, spy, words,
speaking orders and eliminations are enough to seat the replay as before. Every elimination but the
last is forced to the recorded one (those the paper's host announced, so that each reply meets
the living players its model saw); the last is re-scored by the installed rules."""

from __future__ import annotations

from pytest_gameeval.engine.game import Game
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.published.gameeval_logs import PublishedGame
from pytest_gameeval.published.spyfall_replay import ReplayedSpyFall
from pytest_gameeval.published.spygame_games import ReplayedSpyGame

REPLAYED = {"spyfall": ReplayedSpyFall, "spygame": ReplayedSpyGame}


def replayed_game(record: GameRecord) -> Game | None:
    """The record's published game seated again (None: the record is not a published game's replay)."""
    details = record.outcome.get("details") or {}
    source = details.get("replay_of")
    if not source or record.game not in REPLAYED:
        return None
    seats = [s["name"] for s in record.seats]
    published = PublishedGame(
        source, details["spy_word"], details["villager_word"], seats, {s["name"]: s["model"] for s in record.seats},
        details["spy"], "", 0, [], {e["round"]: e["seat"] for e in details["eliminated"][:-1]},
        {r["round"]: list(r["order"]) for r in details["rounds_log"]},
    )
    return REPLAYED[record.game](published, get_spec(record.game).parse_options(record.options))
