"""The TofuKingdom tournament (`gameeval tournament tofukingdom`, run by analysis/rankings/tournament.py):
the camps (Prince, Queen, Spy) played by different models in every arrangement, and what its
games show: pairwise and per-camp win rates, points and Bradley–Terry ratings."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any, Sequence

from pytest_gameeval.games.tofukingdom.roles import CAMPS
from pytest_gameeval.metrics.ratings import bradley_terry
from pytest_gameeval.metrics.stats import rate
from pytest_gameeval.metrics.tournament import SeatedGame, matrix, points

SIDES = CAMPS  # the first (prince) is the evaluated side of a matchup


def pairings(models: Sequence[str], self_play: bool = False) -> list[tuple[tuple[str, str], ...]]:
    """With three or more models every ordered choice of three distinct models for the (Prince,
    Queen, Spy) camps — the six permutations for three models; with two models, the six
    assignments using both; as (camp, model) seats."""
    if len(models) >= 3:
        triples = list(itertools.permutations(models, 3))
    else:
        triples = [t for t in itertools.product(models, repeat=3) if len(set(t)) == len(models)]
    if self_play:
        triples += [(m, m, m) for m in models]
    return [tuple(zip(CAMPS, t)) for t in triples]


def analyze(games: list[SeatedGame], models: list[str], *, n_resamples: int, seed: int) -> dict[str, Any]:
    beat: dict[tuple[str, str], list[int]] = defaultdict(list)  # (a, b) -> 1 if a's camp won, per game
    camp_results: dict[tuple[str, str], list[int]] = defaultdict(list)  # (model, camp) -> wins
    won: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    comparisons = []
    per_perm: dict[str, dict[str, int]] = defaultdict(lambda: {c: 0 for c in CAMPS})
    # a game that ended without a winner (aborted: a seat's replies could not carry it on) won
    # nothing for anyone: left out of the tallies, counted on its own
    decided = [g for g in games if g.record.outcome.get("winner") in g.sides]
    for g in decided:
        winner_camp = g.record.outcome["winner"]
        winner = g.sides[winner_camp]
        per_perm[" / ".join(f"{c}={g.sides[c]}" for c in CAMPS)][winner_camp] += 1
        for m in set(g.sides.values()):
            played[m] += 1
        won[winner] += 1
        for camp, m in g.sides.items():
            camp_results[(m, camp)].append(int(camp == winner_camp))
        for a, b in itertools.permutations(set(g.sides.values()), 2):
            beat[(a, b)].append(int(a == winner))
        comparisons.append([(winner, loser) for loser in sorted(set(g.sides.values()) - {winner})])
    pair_cells = {k: {**rate(sum(v), len(v)), "n": len(v)} for k, v in beat.items()}
    camp_cells = {k: {**rate(sum(v), len(v)), "n": len(v)} for k, v in camp_results.items()}
    camp_matrix = {
        "rows": models, "cols": list(CAMPS),
        "value": [[camp_cells.get((m, c), {}).get("value") for c in CAMPS] for m in models],
        "ci": [[camp_cells.get((m, c), {}).get("ci") for c in CAMPS] for m in models],
        "n": [[camp_cells.get((m, c), {}).get("n", 0) for c in CAMPS] for m in models],
    }
    return {
        "matrices": {
            "pairwise_win_rate": {
                "description": "share of games with both models seated that the row model's camp won (the column "
                               "model's lost)",
                "rows_title": "model whose camp won",
                "cols_title": "against the model whose camp lost",
                **matrix(models, pair_cells),
            },
            "camp_win_rate": {
                "description": "win rate of the row model when playing the column camp",
                "rows_title": "model",
                "cols_title": "camp it played",
                **camp_matrix,
            },
        },
        "matchups": dict(per_perm),
        "games_without_a_winner": len(games) - len(decided),
        "points": points(models, won, played),
        "bradley_terry": bradley_terry(comparisons, models, n_resamples=n_resamples, seed=seed),
    }
