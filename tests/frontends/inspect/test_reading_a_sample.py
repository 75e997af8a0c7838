"""What a reader of one sample sees: the ANSWER says the outcome from the evaluated seat's side
(won / lost, as which side, and why), never only which side won."""

from __future__ import annotations

import asyncio

import pytest

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.scripted import scripted_binder

SIDED = {"spyfall": "evaluated", "spygame": "guest", "tofukingdom": "evaluated"}


def _records(game: str, options: dict, seeds=range(6)):
    spec = get_spec(game)
    opts = spec.parse_options(options)
    rows = spec.select_rows(opts)
    for seed in seeds:
        yield asyncio.run(
            play_case(spec, rows[seed % len(rows)], seed, opts, scripted_binder(spec, {"*": "random"}, seed))
        )


@pytest.mark.parametrize("game,side", [("spyfall", "spy"), ("spyfall", "villager"), ("spygame", "spy"),
                                       ("spygame", "villager"), ("tofukingdom", "queen")])
def test_answer_says_won_or_lost_from_the_evaluated_side(game, side):
    spec = get_spec(game)
    seen = set()
    for record in _records(game, {SIDED[game]: side}):
        answer = spec.answer(record)
        won = spec.score(record)[spec.win_key] == 1.0
        assert answer.startswith(("won" if won else "lost") + f" as the {side}: "), answer
        assert answer.endswith(f"({record.label})") and spec.outcome_name(record.label) in answer
        assert spec.explain(record).startswith(f"**{answer}**")
        seen.add(won)
    assert seen  # at least one game was read


def test_spy_caught_reads_as_lost_not_villager_win():
    spec = get_spec("spyfall")
    caught = [r for r in _records("spyfall", {"evaluated": "spy"}, range(12)) if r.label == "villager_win"]
    assert caught, "no game in which the villagers caught the spy"
    assert spec.answer(caught[0]).startswith("lost as the spy: the spy was voted out")


def test_games_without_sides_keep_their_label():
    spec = get_spec("askguess")
    record = next(_records("askguess", {"limit": 1}, range(1)))
    assert spec.win_key is None and spec.answer(record) == record.label
