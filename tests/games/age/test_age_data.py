"""The shipped AGE lists through the game: they load, and every pair is playable (the exact other
word is accepted, one's own word never is, even for pairs within Jaro 0.8 such as hotel/motel)."""

import asyncio

import pytest

from pytest_gameeval.engine.data import game_data_dir
from pytest_gameeval.engine.game import Turn
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.games.age import LISTS, SPEC
from pytest_gameeval.players.scripted import scripted_binder

pytestmark = pytest.mark.skipif(
    not (game_data_dir("pytest_gameeval.games.age") / "list_a.jsonl").exists(), reason="AGE data not written yet"
)


def test_all_lists_load():
    rows = SPEC.rows(SPEC.parse_options({"lists": "all"}))
    assert len(rows) >= 531
    assert {r.data["list"] for r in rows} == set(LISTS)
    assert len(SPEC.rows(SPEC.parse_options({}))) >= 45  # list_a by default


def guess_counts(game, seat, guess):
    before = game.fcg[seat]
    game.fcg[seat] = None
    game._next = game.order.index(seat)
    game.apply(
        Turn(seat, "describe_guess", None, lambda t: t), "", {"description": f"clue {len(game.events)}", "guess": guess}
    )
    counted = game.fcg[seat] is not None
    game.fcg[seat] = before
    return counted


def test_every_pair_accepts_the_other_word_and_never_ones_own():
    for row in SPEC.rows(SPEC.parse_options({"lists": "all"})):
        game, _ = SPEC.setup(row, 0, SPEC.parse_options({"lists": "all", "max_rounds": 50}))
        seat = game.order[0]
        own, other = game.words[game.group[seat]], game.words[game.other(seat)]
        assert guess_counts(game, seat, other), row.id
        assert not guess_counts(game, seat, own), row.id


def test_one_scripted_game_per_list():
    opts = SPEC.parse_options({"lists": "all", "max_rounds": 3})
    bind = scripted_binder(SPEC, {EVALUATED: "oracle", "*": "random"})
    by_list = {}
    for row in SPEC.rows(opts):
        by_list.setdefault(row.data["list"], row)
    for row in by_list.values():
        rec = asyncio.run(play_case(SPEC, row, 0, opts, bind))
        assert rec.label in ("solved", "limit")
        assert SPEC.score(rec)["comprehension"] == 1.0  # the oracle knows the pair list
        assert sum(sum(c.values()) for c in rec.failures.values()) == 0
