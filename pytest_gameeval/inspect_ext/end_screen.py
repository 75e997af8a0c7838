"""The end of an `inspect eval` of a game, answer first (issue 68): the top of the box inspect draws
at the end shows the headline with its 95% interval and n, the outcomes, the turn-level measure and
the cost; its foot, one line saying where the other scores are; about 20 lines on 80 columns
instead of 45.

Only the display changes. The scorer still declares every metric (scorer.py), so the log's results,
`evals_df`, `samples_df`, `inspect score`, epochs and each game's fingerprint stay exactly as they
were: declaring fewer metrics would have shortened the box only by taking them out of the log.
inspect 0.3.285 has no option for which scores its end-of-run box shows (`task_result_summary`
puts every score at the foot, four to a row, via `task_scores`), so this module wraps those two
functions for gameeval's scorers, building the box from inspect's own parts (`task_panel`,
`task_config`, `task_stats`); any other scorer, and `GAMEEVAL_SCORES=all`, get inspect's own box.
`inspect score` prints its own grid (it imported `task_scores` before this module is loaded).
Installed when a gameeval task is built."""

from __future__ import annotations

import math
import os
from typing import Any

from inspect_ai.log import EvalScore

try:  # private to inspect (checked on 0.3.285): a later inspect that moved it keeps its own box
    from inspect_ai._display.core import results as inspect_results
except ImportError:
    inspect_results = None

from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.metrics.answer_first import Estimate, answer_lines

SCORER_PREFIX = "gameeval_"
ALL_ENV = "GAMEEVAL_SCORES"  # =all: inspect's grid of every score at the end of the run
COST_KEY = "cost_usd"  # scorer.py's COST_KEY (scorer.py imports this module's installer, not the reverse)


def _estimate(score: EvalScore) -> Estimate | None:
    m = {name: metric.value for name, metric in score.metrics.items()}
    if "mean" not in m:
        return None
    n = m.get("n_defined", score.scored_samples or 0)
    n = int(n) if isinstance(n, (int, float)) and math.isfinite(n) else 0
    low, high = m.get("low95"), m.get("high95")
    return Estimate(m["mean"], n, low if low is None or math.isfinite(low) else None,
                    high if high is None or math.isfinite(high) else None)


def game_of(scores: list[EvalScore]) -> str | None:
    """The game whose scorer made these scores, or None if they are not (all) one gameeval scorer's."""
    scorers = {s.scorer for s in scores}
    if len(scorers) != 1:
        return None
    (name,) = scorers
    game = name[len(SCORER_PREFIX):] if name.startswith(SCORER_PREFIX) else None
    return game if game in GAMES else None


def end_lines(game: str, scores: list[EvalScore]) -> list[str]:
    spec = get_spec(game)
    estimates = {s.name: e for s in scores if (e := _estimate(s)) is not None}
    cost = estimates.get(COST_KEY)
    priced = cost.n if cost is not None and math.isfinite(cost.value) else 0
    turn_key = next((k for k in spec.default_gated if k != spec.headline), None)
    lines = answer_lines(game, spec.headline, estimates, spec.outcome_labels, turn_key,
                         (cost.value * priced if priced else None, priced))
    shown = {spec.headline, "played", "quality", *spec.outcome_labels, turn_key, COST_KEY}
    others = len([s for s in scores if s.metrics and s.name not in shown])
    lines.append(f"  {others} more scores in the log: inspect view; all of them here: {ALL_ENV}=all")
    return lines


def task_scores(scores: list[EvalScore], pad_edge: bool = False) -> list[Any]:
    """The score area as text lines for gameeval's scorers; inspect's own grid for any other."""
    game = game_of(scores)
    if game is None or _all_wanted():
        return _INSPECT_TASK_SCORES(scores, pad_edge)
    from rich.text import Text

    return [Text(line) for line in end_lines(game, scores)]


def task_result_summary(profile: Any, success: Any) -> Any:
    """inspect's end-of-run box with the answer at its top, above the run's settings and tokens, and
    the line saying where the other scores are at its foot (where inspect puts the scores)."""
    scores = list(success.results.scores) if success.results else []
    game = game_of(scores) if scores else None
    if game is None or _all_wanted():
        return _INSPECT_SUMMARY(profile, success)
    try:
        return _answer_first_box(profile, success, game, scores)
    except (AttributeError, TypeError):  # inspect's private parts changed shape: its own box, not a crash
        return _INSPECT_SUMMARY(profile, success)


def _answer_first_box(profile: Any, success: Any, game: str, scores: list[EvalScore]) -> Any:
    from rich.console import Group
    from rich.text import Text

    lines = end_lines(game, scores)
    notes = inspect_results.sample_coverage_messages(
        total_samples=profile.samples, completed_samples=success.samples_completed,
        early_stopping=success.results.early_stopping, score_on_error=profile.eval_config.score_on_error)
    answer = Group(*[Text(line, style="bold" if i == 0 else "") for i, line in enumerate(lines[:-1])], Text(""),
                   inspect_results.task_config(profile))
    return inspect_results.task_panel(profile=profile, show_model=True, body=inspect_results.task_stats(success.stats),
                                      subtitle=answer, footer=Group(Text(lines[-1]), *notes),
                                      log_location=profile.log_location)


def _all_wanted() -> bool:
    return os.environ.get(ALL_ENV, "").strip().lower() == "all"


_INSPECT_TASK_SCORES = getattr(inspect_results, "task_scores", None)
_INSPECT_SUMMARY = getattr(inspect_results, "task_result_summary", None)


def install() -> None:
    """Put ours in place of inspect's end-of-run box for its gameeval tasks (idempotent); where
    inspect no longer has the two functions, leave its box alone."""
    if _INSPECT_TASK_SCORES is None or _INSPECT_SUMMARY is None:
        return
    inspect_results.task_scores = task_scores
    inspect_results.task_result_summary = task_result_summary
