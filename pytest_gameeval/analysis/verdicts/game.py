"""A game's verdict, decided in one place: better, worse, same, undecided, too few games or missing.

`decide` is the only function that gives a game its verdict; it returns a GameVerdict. The gate
(analysis/verdicts/gate.py), `gameeval report diff` (analysis/report/file.py), `gameeval compare`
(analysis/rankings/compare.py), the terminal lines, the markdown tables and the summaries render that
result and decide nothing. What each tested metric's verdict is (the statistics) is
analysis/verdicts/judge.judge_metric's; this module only combines them with what the runs played.
`gate_failures` likewise decides, once, whether a session's gate fails and why.

Two designs ask for a verdict, and `decide` says how they differ (`gate`):

- a comparison of two finished runs (`report diff`, `compare`): fewer than MIN_GAMES played games
  on a side is "too few games"; a side with no played game at all is "missing" (the caller sees
  the reports and says why);
- the sequential gate of one game against a baseline: the same, and besides, a baseline or a new
  run with no played game is "missing" (as `report diff` says), and an undecided game whose plan
  lost cases to harness errors is "too few games" (the games the errors took might have decided it).

Light on purpose (no scipy): the pytest plugin imports it in every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

BETTER, WORSE, SAME, UNDECIDED, TOO_FEW, MISSING = "better", "worse", "same", "undecided", "too few games", "missing"
VERDICTS = (BETTER, WORSE, SAME, UNDECIDED, TOO_FEW, MISSING)
FAILING = (WORSE, TOO_FEW, MISSING)  # the verdicts that fail a gate
MIN_GAMES = 2  # played games a side needs before anything is tested


@dataclass(frozen=True)
class GameVerdict:
    """One game's verdict and what it rests on; `as_dict()` is the form reports store."""

    game: str
    result: str  # one of VERDICTS
    reason: str  # why it fails ("" when it passes), on one line
    paired: bool | None = None
    games_old: int | None = None  # played games of the old run (the baseline)
    games_new: int | None = None
    metrics: Mapping[str, dict[str, Any]] = field(default_factory=dict)  # verdict.judge_metric per tested metric
    outcomes: dict[str, Any] | None = None  # verdict.outcome_breakdown: evidence, never decides

    @property
    def failed(self) -> bool:
        """Whether this verdict fails a gate."""
        return fails(self.result)

    def as_dict(self) -> dict[str, Any]:
        return {"game": self.game, "result": self.result, "reason": self.reason, "paired": self.paired,
                "games_old": self.games_old, "games_new": self.games_new, "metrics": dict(self.metrics),
                "outcomes": self.outcomes}


def fails(result: str) -> bool:
    """Whether a game's verdict fails a gate: worse, too few games or missing."""
    return result in FAILING


def without_evidence(result: str) -> bool:
    """Too few games or missing: no comparison was made (`gameeval compare` exits 1)."""
    return result in (TOO_FEW, MISSING)


def no_played_game(cases: Sequence[Mapping[str, Any]]) -> str | None:
    """Why one side's cases of a game give no evidence (None when some were played): the one
    wording of "missing" for the gate, `report diff` and `compare`."""
    if not any(c["status"] == "played" for c in cases):
        why = _none_played(sum(c["status"] == "error" for c in cases))
        provider = next((c["provider"]["cause"] for c in cases if c.get("provider")), None)
        return f"{why}; the provider failed: {provider}" if provider else why
    return None


def _none_played(harness_errors: int) -> str:
    return f"no played game ({harness_errors} harness errors)"


def unscored(results: Mapping[str, Mapping[str, Any]], side: str = "old") -> list[str]:
    """Metrics of which one side's played games hold no value at all: a report written before the
    metric existed (e.g. a baseline from before the headline), which must be regenerated."""
    return [m for m, r in results.items() if r.get(f"n_{side}") == 0]


def _combined(metric_verdicts: Sequence[str]) -> str:
    """The game's one verdict from its tested metrics' verdicts: worse if any is worse; better if
    one is better and none is worse (an undecided one may still be told apart later, but it showed
    no evidence of a loss, and each test keeps its own share of alpha); same only if all are same."""
    if not metric_verdicts:
        return UNDECIDED
    for v in (TOO_FEW, WORSE):
        if v in metric_verdicts:
            return v
    if all(v == SAME for v in metric_verdicts):
        return SAME
    if BETTER in metric_verdicts:
        return BETTER
    return UNDECIDED


def decide(game: str, metrics: Mapping[str, dict[str, Any]] | None = None, *, played_old: int | None = None,
           played_new: int = 0, lost: int = 0, paired: bool | None = None, outcomes: dict[str, Any] | None = None,
           missing: str | None = None, gate: bool = False) -> GameVerdict:
    """The game's verdict. `metrics`: each tested metric's result (verdict.judge_metric, holding
    its "verdict"); `played_old`/`played_new`: played games of each run (`played_old` None: not
    known, not checked); `lost`: cases the gate's plan lost to harness errors; `missing`: why a
    side has no played game (the caller sees the runs); `gate`: the sequential gate's design and
    wording (the module's docstring), else a comparison of two finished runs."""
    metrics = metrics or {}
    if missing is None and gate and played_old == 0:
        missing = "the baseline has no played game of it"
    elif missing is None and gate and played_new == 0:
        missing = _none_played(lost)
    if missing is not None:  # no counts: one side has nothing to count
        return GameVerdict(game, MISSING, f"missing: {missing}", paired, None, None, metrics, outcomes)
    if (played_old is not None and played_old < MIN_GAMES) or played_new < MIN_GAMES:
        result = TOO_FEW
    else:
        result = _combined([r["verdict"] for r in metrics.values()])
        if result == UNDECIDED and gate and lost:
            result = TOO_FEW  # the games the errors took might have decided it
    reason = _reason(result, metrics, played_old, played_new, lost, gate)
    return GameVerdict(game, result, reason, paired, played_old, played_new, metrics, outcomes)


def _reason(result: str, metrics: Mapping[str, dict[str, Any]], played_old: int | None, played_new: int, lost: int,
            gate: bool) -> str:
    if result == WORSE:
        return "worse: " + ", ".join(m for m, r in metrics.items() if r["verdict"] == WORSE)
    if result != TOO_FEW:
        return ""
    missing = unscored(metrics)
    if gate:
        if played_old is not None and played_old < MIN_GAMES:
            return f"too few games: the baseline has {played_old} played game(s) of it"
        if missing:
            return (f"too few games: the baseline has no values of {', '.join(missing)} "
                    "(a report written before it existed: regenerate the baseline)")
        if lost:
            return (f"too few games: only {played_new} of {played_new + lost} games were played "
                    f"({lost} harness errors), too few to decide")
        return f"too few games: {played_new} played"
    if played_old is not None and played_old >= MIN_GAMES and missing:
        return (f"too few games: the old report has no values of {', '.join(missing)} "
                "(written before it existed: regenerate it)")
    return f"too few games: {played_old} played in the old run, {played_new} in the new"


def gate_failures(gate: Mapping[str, Any]) -> list[str]:
    """Why a session's gate fails, one entry per game (empty: it passes). `gate`: the report's
    `gate` section (every game's gate entry, games missing from the baseline, games whose
    opponents differ from the baseline's, games with a data error)."""
    failing = [f"{n}: {g['reason'] or g['result']}" for n, g in sorted(gate["games"].items()) if g["verdict"] == "fail"]
    if not gate.get("allow_missing"):
        failing += [f"{n}: not in the baseline" for n in gate.get("missing_from_baseline", [])]
    failing += gate.get("opponents_differ", [])  # other opponents than the baseline's: no comparison (issue 25)
    return failing + [f"{n}: not played (data error)" for n in gate.get("data_errors", [])]
