"""The sequential regression gate: one verdict per game, from the game's headline.

Every comparison works on per-game numbers the game itself produced (`spec.score(record)`, stored
per case in the report). The gate tests each game's headline (`spec.headline`, `played_quality`)
and any metric the user names (`--gameeval-gate-metric GAME.METRIC=higher|lower[:TOLERANCE]`),
never every outcome share: the outcome labels are shown as a breakdown and tested together, as
evidence only (analysis/verdicts/judge.py). Each metric's test is analysis/verdicts/judge.judge_metric, the same
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
every later look, and "worse" overrides it. The game's verdict is game_verdict.decide's (the gate
decides nothing itself): worse, better, same, undecided, too few games, missing. The gate fails on
"worse", on "missing" (the baseline or the new run played none of the game) and on "too
few games" (fewer than two played games on a side, or harness errors left the verdict open);
"undecided" passes and is reported as such.

A GameGate owns its state: it is built once per game (`GameGate.against`: its gated metrics, the
baseline's cases of it, the number of cases planned), fed the new run's cases look by look
(`look`) and asked for its verdict (`game_verdict`). Its fields are read-only outside this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from pytest_gameeval.analysis.verdicts.game import GameVerdict, decide
from pytest_gameeval.analysis.verdicts.gate_config import GateConfig, absolute_tolerance
from pytest_gameeval.analysis.verdicts.judge import (
    BETTER,
    MEAN,
    MISSING,
    RATE,
    SAME,
    TOO_FEW,
    UNDECIDED,
    WORSE,
    compare_metric,
    is_paired,
    judge_metric,
    mean_change,
    outcome_breakdown,
    played,
    rate_change,
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


@dataclass(frozen=True)
class GateMetric:
    name: str
    kind: str  # RATE or MEAN (the test itself looks at the values: 0/1 values are tested as a rate)
    higher_is_better: bool
    tolerance: float


@dataclass
class _Looks:
    """What the looks so far found: written by GameGate.look only."""

    done: int = 0
    games_used: int = 0  # cases the looks used, harness errors included
    games_played: int = 0  # of those, games that were played to a classified outcome
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    paired: bool | None = None
    breakdown: dict[str, Any] | None = None


@dataclass(frozen=True)
class GameGate:
    """One game's sequential test: its plan is fixed when it is built, its looks are its own."""

    game: str
    metrics: Sequence[GateMetric]
    config: GateConfig
    n_cases: int  # cases planned for the new run
    baseline_played: int | None = None  # played games of this game in the baseline (None: not checked)
    _looks: _Looks = field(default_factory=_Looks, init=False, repr=False, compare=False)

    @classmethod
    def against(cls, game: str, metrics: Sequence[GateMetric], config: GateConfig, baseline: Sequence[dict[str, Any]],
                n_cases: int) -> GameGate:
        """The gate of `game`: its gated metrics, the baseline's cases of it (report form) and the
        number of cases the new run plans to play."""
        # a relative tolerance (GAME.METRIC=higher:5%) becomes an absolute one here, from the baseline alone
        fixed = tuple(replace(m, tolerance=absolute_tolerance(m.tolerance, m.name, baseline)) for m in metrics)
        return cls(game, fixed, config, n_cases, sum(c.get("status") == "played" for c in baseline))

    @property
    def ends(self) -> list[int]:
        return look_ends(self.n_cases, self.config.looks)

    @property
    def looks_done(self) -> int:
        return self._looks.done

    @property
    def games_used(self) -> int:
        return self._looks.games_used

    @property
    def games_played(self) -> int:
        return self._looks.games_played

    @property
    def verdicts(self) -> Mapping[str, dict[str, Any]]:
        """Per gated metric, its latest verdict (verdict.judge_metric's result and the look's)."""
        return MappingProxyType(self._looks.verdicts)

    @property
    def paired(self) -> bool | None:
        return self._looks.paired

    @property
    def breakdown(self) -> dict[str, Any] | None:
        return self._looks.breakdown

    @property
    def stopped(self) -> bool:
        states = [v["verdict"] for v in self._looks.verdicts.values()]
        return bool(states) and (WORSE in states or all(s in (BETTER, SAME) for s in states))

    @property
    def harness_errors(self) -> int:
        return self.games_used - self.games_played

    def game_verdict(self) -> GameVerdict:
        """The game's one verdict so far (game_verdict.decide, in the gate's design)."""
        return decide(self.game, dict(self._looks.verdicts), played_old=self.baseline_played,
                      played_new=self.games_played, lost=self.harness_errors, paired=self.paired,
                      outcomes=self.breakdown, gate=True)

    @property
    def verdict(self) -> str:
        return self.game_verdict().result

    @property
    def reason(self) -> str:
        """Why the game fails ("" when it passes), on one line."""
        return self.game_verdict().reason

    @property
    def failed(self) -> bool:
        return self.game_verdict().failed

    def look(self, baseline: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]], games_used: int, last: bool,
             games_played: int | None = None) -> None:
        """Test every undecided metric after one more batch. `baseline` and `new` are case
        entries (report form); `new` holds every case so far; `games_used` counts them all,
        `games_played` those played (default: the played entries of `new`)."""
        state = self._looks
        state.done += 1
        looks = len(self.ends)
        last = last or state.done >= looks
        state.games_used = games_used
        state.games_played = len(played(new)) if games_played is None else games_played
        state.paired = is_paired(baseline, new)
        state.breakdown = outcome_breakdown(baseline, new, state.paired)
        a = spent(self.config.alpha / max(1, len(self.metrics)), state.done, looks)
        b = spent_same(self.config.beta / max(1, len(self.metrics)), state.done, looks)
        for m in self.metrics:
            previous = state.verdicts.get(m.name)
            if previous and previous["verdict"] == WORSE:
                continue
            result = judge_metric(m.name, baseline, new, higher_is_better=m.higher_is_better, tolerance=m.tolerance,
                                  alpha=a, beta=b, paired=state.paired)
            # games: what this verdict rests on (a metric decided at an earlier look keeps that look's count)
            result.update(look=state.done, games=games_used, games_played=state.games_played,
                          alpha_spent=a, beta_spent=b, final=last)
            # a metric called same or better while another keeps the game going is tested again
            # (alpha is spent over every look): worse overrides it; an open look keeps it
            if previous and previous["verdict"] in (BETTER, SAME) and result["verdict"] not in (WORSE, BETTER, SAME):
                continue
            state.verdicts[m.name] = result

    def to_dict(self) -> dict[str, Any]:
        """The gate's entry for this game, as the report's `gate` section holds it."""
        return _entry(self.game_verdict(), self.config, used=self.games_used, played=self.games_played,
                      cases=self.n_cases, looks=(self.looks_done, len(self.ends)))


def _entry(v: GameVerdict, config: GateConfig, *, used: int, played: int, cases: int,
           looks: tuple[int, int]) -> dict[str, Any]:
    """A game's verdict in the gate's form: pass/fail, and how many games and looks it took."""
    return {
        "game": v.game,
        "verdict": "fail" if v.failed else "pass",
        "result": v.result,
        "reason": v.reason,
        "paired": v.paired,
        "games_used": used,
        "games_played": played,
        "harness_errors": used - played,
        "cases_available": cases,
        "looks_done": looks[0],
        "looks_planned": looks[1],
        "alpha": config.alpha,
        "beta": config.beta,
        "metrics": dict(v.metrics),
        "outcomes": v.outcomes,
    }


def missing_game(game: str, n_cases: int, config: GateConfig, why: str) -> dict[str, Any]:
    """The gate's entry for a baseline game the new run has no played game of."""
    return _entry(decide(game, missing=why, gate=True), config, used=0, played=0, cases=n_cases, looks=(0, 0))
