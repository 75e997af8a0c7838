"""Our analysis tools on the papers' real models (issue 45): GameEval's published SpyFall games,
re-judged by our rules under protocol=paper, through the same statistics our tournaments and
leaderboard use (Wilson intervals, t intervals, Bradley–Terry with bootstrap intervals), beside
GameEval's own published heatmap numbers.

GameEval's `spyfall/random` games seat every model at one table (two seats each), so a game
compares the spy's model with the other two models: the spy's win is its model's win over each of
them, a caught spy is each of them beating it. GameEval's heatmaps (`spyfall/result/`) come from
other games (one model as the spy, another as every villager); their `avg` divides a sum over its
11 word pairs by 10, so we show it beside the mean over the pairs it lists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_gameeval.metrics.ratings import bradley_terry
from pytest_gameeval.metrics.stats import mean, rate
from pytest_gameeval.published.gameeval_logs import MODELS
from pytest_gameeval.published.replaying import Replay

RESULT_FOLDER = "gameeval-70244bf-spyfall-result"


def clip(ci: list[float | None], low: float, high: float) -> list[float | None]:
    """An interval kept inside the bounds of what it estimates."""
    return [None if x is None else min(max(x, low), high) for x in ci]


def by_spy_model(replays: list[Replay]) -> dict[str, Any]:
    """Per spy model: spy win rate (Wilson) and GameEval's living round (the round the game ended
    in; t interval) over the re-judged games that have a winner."""
    out: dict[str, Any] = {}
    for model in sorted({MODELS.get(r.game.models[r.game.spy], r.game.models[r.game.spy]) for r in replays}):
        mine = [r for r in replays if r.to_end and r.game.winner != "exit"
                and MODELS.get(r.game.models[r.game.spy], r.game.models[r.game.spy]) == model]
        won = sum(r.outcome["winner"] == "spy" for r in mine)
        living = mean([float(r.outcome["round"]) for r in mine])
        out[model] = {"games": len(mine), "spy_win_rate": rate(won, len(mine)),
                      # GameEval's games last 1 to 3 rounds (six players, the spy wins at three)
                      "living_round": {**living, "ci": clip(living["ci"], 1.0, 3.0)}}
    return out


def ratings(replays: list[Replay], *, n_resamples: int = 500, seed: int = 0) -> dict[str, Any]:
    """Bradley–Terry over the re-judged games: the spy's model against each other model at the table."""
    games = []
    for r in replays:
        if not r.to_end or r.game.winner == "exit":
            continue
        name = lambda seat: MODELS.get(r.game.models[seat], r.game.models[seat])  # noqa: E731
        spy = name(r.game.spy)
        others = sorted({name(s) for s in r.game.seats} - {spy})
        spy_won = r.outcome["winner"] == "spy"
        games.append([(spy, other) if spy_won else (other, spy) for other in others])
    return bradley_terry(games, n_resamples=n_resamples, seed=seed)


def published_heatmap(source: Path) -> dict[str, Any]:
    """GameEval's published heatmap cells (spy model, villager model): its `avg` and the mean over
    the word pairs the file lists (the `avg` divides an 11-pair sum by 10)."""
    folder = source / RESULT_FOLDER
    if not folder.is_dir():
        return {}
    cells = {}
    for path in sorted(folder.glob("*_*.json")):
        spy, _, villagers = path.stem.partition("_")
        data = json.loads(path.read_text(encoding="utf-8"))
        pairs = [v for k, v in data.items() if "&" in k]
        cells[f"{MODELS.get(spy, spy)} spy, {MODELS.get(villagers, villagers)} villagers"] = {
            "pairs": len(pairs),
            "published_win_rate": data["avg"]["rate"], "published_living_round": data["avg"]["round_avg"],
            "mean_win_rate_over_pairs": sum(p["rate"] for p in pairs) / len(pairs),
            "mean_living_round_over_pairs": sum(p["round_avg"] for p in pairs) / len(pairs),
            "games": sum(p["cnt_spy"] + p["cnt_villager"] for p in pairs),
        }
    return cells
