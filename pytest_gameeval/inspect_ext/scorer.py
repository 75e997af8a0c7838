"""Scorer and metrics: every outcome as a number (one-hot), the label in Score.answer."""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState
from scipy import stats

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import GameSpec
from pytest_gameeval.inspect_ext.solver import RECORD_KEY

FAILURE_KEYS = {"format": "format_errors", "rule": "rule_violations", "chat": "chat_errors"}


def _wilson(scores: list[SampleScore], side: int) -> float:
    values = [float(s.score.value) for s in scores]  # type: ignore[arg-type]
    n = len(values)
    if n == 0:
        return float("nan")
    ci = stats.binomtest(round(sum(values)), n).proportion_ci(method="wilson")
    return float(ci.high if side else ci.low)


@metric
def wilson_low() -> Metric:
    """Lower end of the 95% Wilson interval of a rate."""

    def low(scores: list[SampleScore]) -> float:
        return _wilson(scores, 0)

    return low


@metric
def wilson_high() -> Metric:
    """Upper end of the 95% Wilson interval of a rate."""

    def high(scores: list[SampleScore]) -> float:
        return _wilson(scores, 1)

    return high


def score_record(spec: GameSpec, record: GameRecord) -> dict[str, float]:
    values = spec.score(record)
    totals = record.failure_totals()
    values.update({key: float(totals.get(kind, 0)) for kind, key in FAILURE_KEYS.items()})
    return values


def game_scorer(spec: GameSpec) -> Scorer:
    metrics: dict[str, list[Metric]] = {label: [mean(), stderr(), wilson_low(), wilson_high()] for label in spec.outcome_labels}
    for key in [*spec.mean_keys, *FAILURE_KEYS.values()]:
        metrics[key] = [mean(), stderr()]

    @scorer(metrics=[metrics], name=f"gameeval_{spec.name}")
    def game_outcome() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            record = GameRecord.from_dict(state.metadata[RECORD_KEY])
            details: dict[str, Any] = record.outcome["details"]
            return Score(
                value=score_record(spec, record),
                answer=record.label,
                explanation=f"{record.label}" + (f" (winner: {record.outcome['winner']})" if record.outcome["winner"] else "") + f"; {details}",
                metadata={"failures": record.failures, "usage": record.usage, "seed": record.seed,
                          "structured": record.structured},
            )

        return score

    return game_outcome()
