"""What the SpyFall and TofuKingdom tournaments share (each game's own analysis is
games/GAME/tournament.py): a played game with the model on every side, a models x models
matrix of per-pairing cells, and points with their intervals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.metrics.stats import rate


@dataclass
class SeatedGame:
    """One game of a tournament: its record and which model played each side."""

    sides: dict[str, str]  # side -> model name as given on the command line
    record: GameRecord


def matrix(models: list[str], cell: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    """Rows and columns are the models; each cell's value, interval and games (0 when unplayed)."""
    return {
        "rows": models, "cols": models,
        "value": [[cell.get((a, b), {}).get("value") for b in models] for a in models],
        "ci": [[cell.get((a, b), {}).get("ci") for b in models] for a in models],
        "n": [[cell.get((a, b), {}).get("n", 0) for b in models] for a in models],
    }


def points(models: list[str], won: dict[str, int], played: dict[str, int]) -> dict[str, Any]:
    """Per model: games won (one point each), games played, the win rate and the points' interval."""
    out = {}
    for m in models:
        r = rate(won[m], played[m])
        ci = [None if x is None else x * played[m] for x in r["ci"]]
        out[m] = {"points": won[m], "games": played[m], "rate": r, "points_ci": ci}
    return out
