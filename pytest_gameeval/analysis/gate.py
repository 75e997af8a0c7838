"""The sequential regression gate: one verdict per game, from the game's headline.

Every comparison works on per-game numbers the game itself produced (`spec.score(record)`, stored
per case in the report). The gate tests each game's headline (`spec.headline`, `played_quality`)
and any metric the user names (`--gameeval-gate-metric GAME.METRIC=higher|lower[:TOLERANCE]`),
never every outcome share: the outcome labels are shown as a breakdown and tested together, as
evidence only (analysis/verdict.py). Each metric's test is analysis/verdict.judge_metric, the same
function `report diff` and `gameeval compare` use: paired where both runs played the same cases
with the same seeds, independent otherwise.

The gate is group-sequential: the new run's cases are played in `looks` batches; after each batch
every gated metric not yet worse is tested. Error is spent over looks with the quadratic spending
function (look j of K gets alpha * (j^2 - (j-1)^2) / K^2) and combined with a union bound, so the
stated error rates are upper bounds whatever the correlation between looks:

- P(a game is called worse | its gated metrics are not worse than the baseline by more than their
  tolerance) <= alpha (alpha is split evenly over the game's gated metrics);
- P(a metric is called the same | it is worse by more than its tolerance) <= beta / metrics. "Same"
  spends nothing at the first of several looks (a quarter of the games never decides it) and
  beta quadratically over the remaining ones (`spent_same`); each look's "same" interval is
  distribution-free for values in [0, 1] (verdict.same_interval), so games played alike decide
  it only once there are enough of them (bounds.min_games_same).

A game stops as soon as a metric is worse or every metric has crossed a boundary (better or the
same). A metric called better or the same while another keeps its game going is tested again at
every later look, and "worse" overrides it. The game's verdict (verdict.game_verdict): worse,
better, same, undecided, too few games, missing. The gate fails on "worse", on "missing" (the
baseline has the game but the new run played none of it) and on "too few games" (fewer than two
played games on a side, or harness errors left the verdict open); "undecided" passes and is
reported as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from pytest_gameeval.analysis.gate_config import GateConfig
from pytest_gameeval.analysis.verdict import (
    BETTER, FAILING, MEAN, MISSING, RATE, SAME, TOO_FEW, UNDECIDED, WORSE, compare_metric, game_verdict, is_paired,
    judge_metric, mean_change, outcome_breakdown, played, rate_change, unscored,
)

# re-exported: what the plugin's runner, the benchmarks and the tests import from here
__all__ = ["BETTER", "MEAN", "MISSING", "RATE", "SAME", "TOO_FEW", "UNDECIDED", "WORSE", "GameGate", "GateMetric",
           "compare_metric", "look_ends", "mean_change", "missing_game", "rate_change", "spent", "spent_same"]


def spent(total: float, look: int, looks: int) -> float:
    """Error spent at look `look` (1-based) of `looks`: quadratic spending, sums to `total`."""
    return total * (look**2 - (look - 1) ** 2) / looks**2


def spent_same(total: float, look: int, looks: int) -> float:
    """Error of calling a metric "same" spent at look `look` of `looks`: nothing at the first of
    several looks (a quarter of the games never decides "same"), then quadratic spending over the
    remaining looks; sums to `total`. With one look, all of it there (that look is the run's end)."""
    if looks == 1:
        return total
    return 0.0 if look == 1 else spent(total, look - 1, looks - 1)


def look_ends(n_cases: int, looks: int) -> list[int]:
    """Cumulative case counts after each look (at most `looks`, at least one case each)."""
    looks = max(1, min(looks, n_cases))
    return sorted({math.ceil(n_cases * j / looks) for j in range(1, looks + 1)})


@dataclass
class GateMetric:
    name: str
    kind: str  # RATE or MEAN (the test itself looks at the values: 0/1 values are tested as a rate)
    higher_is_better: bool
    tolerance: float


@dataclass
class GameGate:
    """The state of one game's sequential test."""

    game: str
    metrics: list[GateMetric]
    config: GateConfig
    n_cases: int
    looks_done: int = 0
    games_used: int = 0  # cases the looks used, harness errors included
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    games_played: int = 0  # of those, games that were played to a classified outcome
    baseline_played: int | None = None  # played games of this game in the baseline
    paired: bool | None = None
    breakdown: dict[str, Any] | None = None

    @property
    def ends(self) -> list[int]:
        return look_ends(self.n_cases, self.config.looks)

    @property
    def stopped(self) -> bool:
        states = [v["verdict"] for v in self.verdicts.values()]
        return bool(states) and (WORSE in states or all(s in (BETTER, SAME) for s in states))

    @property
    def harness_errors(self) -> int:
        return self.games_used - self.games_played

    @property
    def verdict(self) -> str:
        """The game's one verdict."""
        if self.games_played == 0:
            return MISSING
        if self.baseline_played is not None and self.baseline_played < 2:
            return TOO_FEW
        result = game_verdict([v["verdict"] for v in self.verdicts.values()])
        if result == UNDECIDED and self.harness_errors:
            return TOO_FEW  # the games the errors took might have decided it
        return result

    @property
    def reason(self) -> str:
        """Why the game fails ("" when it passes), on one line."""
        verdict = self.verdict
        if verdict == WORSE:
            return "worse: " + ", ".join(m for m, v in self.verdicts.items() if v["verdict"] == WORSE)
        if verdict == MISSING:
            return f"missing: no game of it was played ({self.harness_errors} harness errors)"
        if verdict == TOO_FEW:
            if self.baseline_played is not None and self.baseline_played < 2:
                return f"too few games: the baseline has {self.baseline_played} played game(s) of it"
            if missing := unscored(self.verdicts):
                return (f"too few games: the baseline has no values of {', '.join(missing)} "
                        "(a report written before it existed: regenerate the baseline)")
            if self.harness_errors:
                return (f"too few games: only {self.games_played} of {self.games_used} games were played "
                        f"({self.harness_errors} harness errors), too few to decide")
            return f"too few games: {self.games_played} played"
        return ""

    @property
    def failed(self) -> bool:
        return self.verdict in FAILING

    def look(self, baseline: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]], games_used: int, last: bool,
             games_played: int | None = None) -> None:
        """Test every undecided metric after one more batch. `baseline` and `new` are case
        entries (report form); `new` holds every case so far; `games_used` counts them all,
        `games_played` those played (default: the played entries of `new`)."""
        self.looks_done += 1
        looks = len(self.ends)
        last = last or self.looks_done >= looks
        self.games_used = games_used
        self.games_played = len(played(new)) if games_played is None else games_played
        self.paired = is_paired(baseline, new)
        self.breakdown = outcome_breakdown(baseline, new, self.paired)
        a = spent(self.config.alpha / max(1, len(self.metrics)), self.looks_done, looks)
        b = spent_same(self.config.beta / max(1, len(self.metrics)), self.looks_done, looks)
        for m in self.metrics:
            previous = self.verdicts.get(m.name)
            if previous and previous["verdict"] == WORSE:
                continue
            result = judge_metric(m.name, baseline, new, higher_is_better=m.higher_is_better, tolerance=m.tolerance,
                                  alpha=a, beta=b, paired=self.paired)
            # games: what this verdict rests on (a metric decided at an earlier look keeps that look's count)
            result.update(look=self.looks_done, games=games_used, games_played=self.games_played,
                          alpha_spent=a, beta_spent=b, final=last)
            # a metric called same or better while another keeps the game going is tested again
            # (alpha is spent over every look): worse overrides it; an open look keeps it
            if previous and previous["verdict"] in (BETTER, SAME) and result["verdict"] not in (WORSE, BETTER, SAME):
                continue
            self.verdicts[m.name] = result

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "verdict": "fail" if self.failed else "pass",
            "result": self.verdict,
            "reason": self.reason,
            "paired": self.paired,
            "games_used": self.games_used,
            "games_played": self.games_played,
            "harness_errors": self.harness_errors,
            "cases_available": self.n_cases,
            "looks_done": self.looks_done,
            "looks_planned": len(self.ends),
            "alpha": self.config.alpha,
            "beta": self.config.beta,
            "metrics": self.verdicts,
            "outcomes": self.breakdown,
        }


def missing_game(game: str, n_cases: int, config: GateConfig, why: str) -> dict[str, Any]:
    """The gate's entry for a baseline game the new run has no played game of."""
    return {"game": game, "verdict": "fail", "result": MISSING, "reason": f"missing: {why}", "paired": None,
            "games_used": 0, "games_played": 0, "harness_errors": 0, "cases_available": n_cases, "looks_done": 0,
            "looks_planned": 0, "alpha": config.alpha, "beta": config.beta, "metrics": {}, "outcomes": None}

