"""The arena's results: what people played, computed from the store with the games' own metrics.

- per game and model: the model's win rate against people (Wilson interval), every outcome's
  share, rounds, and the retrospective metrics GameArena reports (the game's `summarize`, the same
  function the inspect and pytest front ends report with);
- one Bradley–Terry pool of people and models (metrics.ratings): each finished game with a winner
  is one comparison between the model and the person, who is "people" (one anonymous population)
  unless they gave a nickname and consented to be rated by it;
- GameArena's engagement figures: sessions started and finished, abandon rate (a live session
  untouched for `abandon_after` seconds counts as abandoned), rounds and the person's moves per
  finished session, minutes per finished session.
"""

from __future__ import annotations

import io
import statistics
import time
from collections import defaultdict
from typing import Any

from pytest_gameeval.arena.live import person_label
from pytest_gameeval.arena.store import FINISHED, LIVE, Store
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.arena.rules import USER, USER_ROLE
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.metrics.ratings import bradley_terry
from pytest_gameeval.metrics.stats import mean, rate

PEOPLE = "people"
BOOTSTRAP = 200
_cache: dict[tuple[Any, ...], dict[str, Any]] = {}


def person_name(player: str | None) -> str:
    return person_label(player) if player else PEOPLE


def comparison(record: GameRecord, model: str, player: str | None) -> tuple[str, str] | None:
    """(winner, loser) between the model and the person; None when the game named no winner."""
    winner = record.outcome.get("winner")
    if winner is None:
        return None
    person = person_name(player)
    return (person, model) if winner in (USER, USER_ROLE) else (model, person)


def compute(store: Store, abandon_after: float = 1800.0) -> dict[str, Any]:
    sessions = store.sessions()
    now = time.time()
    finished = [s for s in sessions if s.status == FINISHED]
    # the ratings' bootstrap is the slow part: recomputed when a game ends, else at most every 30 s
    key = (id(store), len(sessions), len(finished), int(now // 30))
    if key in _cache:
        return _cache[key]
    groups: dict[tuple[str, str], list[GameRecord]] = defaultdict(list)
    pairs: list[list[tuple[str, str]]] = []
    for s in finished:
        record = GameRecord.from_dict(s.record or {})
        groups[(s.game, s.model)].append(record)
        pair = comparison(record, s.model, s.player)
        if pair:
            pairs.append([pair])
    per_game: list[dict[str, Any]] = []
    for (game, model), records in sorted(groups.items()):
        summary = get_spec(game).summarize(records)
        per_game.append(
            {
                "game": game,
                "title": get_spec(game).title,
                "model": model,
                "games": len(records),
                "win": summary["rates"]["win"],
                "outcomes": {k: v for k, v in summary["rates"].items() if k != "win"},
                "rounds": summary["rounds"],
                "retrospective": summary.get("retrospective", {}),
            }
        )
    names = {n for p in pairs for n in p[0]}
    ratings = bradley_terry(pairs, n_resamples=BOOTSTRAP) if len(names) >= 2 else None
    abandoned = [s for s in sessions if s.status == LIVE and now - s.updated_at > abandon_after]
    moves = store.person_moves()
    minutes = [(s.finished_at - s.created_at) / 60 for s in finished if s.finished_at]
    engagement = {
        "sessions_started": len(sessions),
        "sessions_finished": len(finished),
        "sessions_in_progress": sum(s.status == LIVE for s in sessions) - len(abandoned),
        "sessions_abandoned": len(abandoned),
        "abandon_rate": rate(len(abandoned), len(abandoned) + len(finished)),
        "rounds_per_session": mean(
            [float(GameRecord.from_dict(s.record or {}).outcome["details"].get("rounds", 0)) for s in finished]
        ),
        "person_moves_per_session": mean([float(moves.get(s.id, 0)) for s in finished]),
        "minutes_per_session": mean(minutes),
        "median_minutes_per_session": statistics.median(minutes) if minutes else None,
        "model_errors": sum(s.model_errors for s in sessions),
        "abandon_after_seconds": abandon_after,
    }
    result = {"per_game": per_game, "ratings": ratings, "engagement": engagement,
              "started_by_game": {g: sum(s.game == g for s in sessions) for g in sorted({s.game for s in sessions})}}
    _cache.clear()
    _cache[key] = result
    return result


def fmt(value: Any, digits: int = 2) -> str:
    if isinstance(value, dict):
        value = value.get("value")
    return "–" if value is None or value != value else f"{value:.{digits}f}"


def interval(value: dict[str, Any] | None, digits: int = 2) -> str:
    if not value or value.get("ci", [None])[0] is None:
        return ""
    low, high = value["ci"]
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def plot(summary: dict[str, Any]) -> bytes:
    """Two panels: the models' win rates against people with 95% intervals; the ratings pool."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    rows = [r for r in summary["per_game"] if r["win"]["value"] is not None]
    if rows:
        labels = [f"{r['title']}\n{r['model']}" for r in rows]
        values = [r["win"]["value"] for r in rows]
        errors = [
            [v - r["win"]["ci"][0] for v, r in zip(values, rows)],
            [r["win"]["ci"][1] - v for v, r in zip(values, rows)],
        ]
        left.barh(labels, values, xerr=errors, color="#6a9fd8", capsize=4)
        left.set_xlim(0, 1)
    else:
        left.text(0.5, 0.5, "no finished games yet", ha="center", va="center")
    left.set_title("the model's win rate against people (95% CI)", fontsize=10)
    ratings = summary.get("ratings")
    if ratings:
        names = sorted(ratings["ratings"], key=lambda n: ratings["ratings"][n]["rating"])
        values = [ratings["ratings"][n]["rating"] for n in names]
        cis = [[v if c is None else c for c in ratings["ratings"][n]["ci"]] for v, n in zip(values, names)]
        errors = [[v - lo for v, (lo, _) in zip(values, cis)], [hi - v for v, (_, hi) in zip(values, cis)]]
        right.barh(names, values, xerr=errors, color="#8cc084", capsize=4)
        right.axvline(0, color="#999", lw=0.8)
    else:
        right.text(0.5, 0.5, "no decided games yet", ha="center", va="center")
    right.set_title("Bradley–Terry rating, people and models (95% CI)", fontsize=10)
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=100)
    plt.close(fig)
    return out.getvalue()
