"""Every game's headline, played x quality (docs/headlines.md): in [0, 1], higher for the stronger
scripted player with the opponents fixed, 0 for a game the evaluated seat did not finish."""

from __future__ import annotations

import asyncio
import math
import statistics
from dataclasses import replace

import pytest

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.metrics import headline as hl
from pytest_gameeval.players.scripted import scripted_binder

# game -> (opponents' strength, stronger, weaker evaluated strength)
ORDER = {
    "askguess": ("oracle", "oracle", "random"),
    "akinator": ("random", "strong", "random"),
    "taboo": ("random", "strong", "random"),
    "bluffing": ("random", "random", "evasive"),  # evasive never gives a verdict: not played
    "tofukingdom": ("random", "oracle", "random"),
    "spygpt": ("oracle", "oracle", "random"),  # the judges fixed to the overlap judge
    "age": ("random", "oracle", "random"),
    "spyfall": ("random", "strong", "first_option"),
    "spygame": ("random", "strong", "first_option"),
}


def headlines(game: str, evaluated: str, opponents: str, n: int = 24) -> list[float]:
    spec = get_spec(game)
    options = spec.parse_options({})
    rows = spec.select_rows(options)

    async def run() -> list[float]:
        values = []
        for i in range(n):
            record = await play_case(spec, rows[i % len(rows)], i // len(rows), options,
                                     scripted_binder(spec, {"evaluated": evaluated, "*": opponents}))
            values.append(spec.score(record)["played_quality"])
        return values

    return asyncio.run(run())


def test_every_game_declares_played_quality_as_its_headline():
    for game in GAMES:
        spec = get_spec(game)
        assert spec.headline == hl.HEADLINE, game
        assert {"played", "quality", hl.HEADLINE} <= set(spec.mean_keys) and "played" in spec.rate_keys
        assert all(spec.higher_is_better[k] for k in hl.KEYS)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_stronger_player_has_the_higher_headline(game):
    opponents, strong, weak = ORDER[game]
    high, low = headlines(game, strong, opponents), headlines(game, weak, opponents)
    for v in high + low:
        assert math.isnan(v) or 0.0 <= v <= 1.0
    assert statistics.fmean(high) > statistics.fmean(low) + 0.05, (game, statistics.fmean(high), statistics.fmean(low))


def test_a_game_the_evaluated_seat_did_not_finish_scores_zero():
    spec = get_spec("askguess")
    options = spec.parse_options({})
    row = spec.select_rows(options)[0]
    record = asyncio.run(play_case(spec, row, 0, options, scripted_binder(spec, {"*": "oracle"})))
    assert spec.score(record)["played"] == 1.0 and spec.score(record)["played_quality"] > 0.5
    # the answerer said the word: aborted before the questioner could finish
    aborted = replace(record, outcome={**record.outcome, "label": "AME"})
    assert spec.score(aborted)["played_quality"] == 0.0 and math.isnan(spec.score(aborted)["quality"])
    # a forfeited turn of the evaluated seat: not played, whatever the ending
    forfeited = replace(record, failures={"Questioner": {"forfeit": 1}})
    assert spec.score(forfeited)["played"] == 0.0 and spec.score(forfeited)["played_quality"] == 0.0
    # the opponent's forfeit does not take the questioner's game away
    assert spec.score(replace(record, failures={"Answerer": {"forfeit": 1}}))["played"] == 1.0


def test_quality_outside_the_unit_interval_is_a_bug_not_a_score():
    with pytest.raises(ValueError):
        hl.scores(True, 1.5)
    assert hl.speed(1, 30) == 1.0 and hl.speed(30, 30) == 0.5 and hl.speed(1, 1) == 1.0
