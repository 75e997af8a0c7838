"""The SpyFall tournament (`gameeval tournament spyfall`, run by analysis/rankings/tournament.py): every
ordered model pair, one model playing the spy and the other every villager, and what its games
show: spy win rate and spy living round per pairing, points and Bradley–Terry ratings."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any, Sequence

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.spyfall.metrics import pair_metrics, spy_living_round
from pytest_gameeval.metrics.ratings import bradley_terry
from pytest_gameeval.metrics.stats import mean, rate
from pytest_gameeval.metrics.tournament import SeatedGame, matrix, points

SIDES = ("spy", "villager")  # the first is the evaluated side of a matchup


def pairings(models: Sequence[str], self_play: bool = False) -> list[tuple[tuple[str, str], ...]]:
    """Every ordered pair (M_a spy, M_b villagers), as (side, model) seats."""
    pairs = itertools.product(models, repeat=2) if self_play else itertools.permutations(models, 2)
    return [(("spy", a), ("villager", b)) for a, b in pairs]


def clip(ci: list[float | None], low: float, high: float | None) -> list[float | None]:
    return [None if x is None else max(x, low) if high is None else min(max(x, low), high) for x in ci]


def analyze(games: list[SeatedGame], models: list[str], *, n_resamples: int, seed: int) -> dict[str, Any]:
    by_pair: dict[tuple[str, str], list[GameRecord]] = defaultdict(list)
    won: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    comparisons = []
    for g in games:
        spy, villager = g.sides["spy"], g.sides["villager"]
        by_pair[(spy, villager)].append(g.record)
        spy_won = g.record.outcome["winner"] == "spy"
        winner = spy if spy_won else villager
        for m in {spy, villager}:
            played[m] += 1
        won[winner] += 1
        if spy != villager:
            comparisons.append([(winner, villager if spy_won else spy)])
    win_cells, round_cells, per_pair = {}, {}, {}
    for (a, b), records in by_pair.items():
        pm = pair_metrics(records)
        overall = rate(sum(r.outcome["winner"] == "spy" for r in records), len(records))
        w_avg, l_avg = pm["w_avg"], pm["l_avg"]
        if pm["pairs"] == 1:  # one word pair: its games are the only units, so the interval is over games
            w_avg = {**overall, "method": "wilson over the games of the one word pair"}
            l_avg = {
                **mean([float(spy_living_round(r)) for r in records]),
                "method": "t over the games of the one word pair",
            }
        # t-intervals over few word pairs can leave the possible range: clip them to it
        win_cells[(a, b)] = {**w_avg, "ci": clip(w_avg["ci"], 0.0, 1.0), "n": len(records)}
        round_cells[(a, b)] = {**l_avg, "ci": clip(l_avg["ci"], 0.0, None), "n": len(records)}
        per_pair[f"{a} (spy) vs {b} (villagers)"] = {
            "spy": a, "villagers": b, "games": len(records), "word_pairs": pm["pairs"],
            "spy_win_rate_avg_over_pairs": pm["w_avg"], "spy_living_round_avg_over_pairs": pm["l_avg"],
            "spy_win_rate_all_games": overall,
            "mean_spy_living_round_all_games": sum(spy_living_round(r) for r in records) / len(records),
        }
    return {
        "matrices": {
            "spy_win_rate": {
                "description": "row model plays the spy, column model every villager; average over word pairs",
                "rows_title": "spy played by",
                "cols_title": "villagers played by",
                **matrix(models, win_cells),
            },
            "spy_living_round": {
                "description": "rounds the spy survived; average over word pairs",
                "rows_title": "spy played by",
                "cols_title": "villagers played by",
                **matrix(models, round_cells),
            },
        },
        "matchups": per_pair,
        "points": points(models, won, played),
        "bradley_terry": bradley_terry(comparisons, models, n_resamples=n_resamples, seed=seed),
    }
