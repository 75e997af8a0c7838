"""Scorer and metrics: every outcome as a number (one-hot), the label in Score.answer, a short
readable explanation, and a headline metric for the log list (`headline_metric`)."""

from __future__ import annotations

import math
from typing import Callable

from inspect_ai._util.registry import RegistryInfo, registry_tag
from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.scorer._metric import metric_register
from inspect_ai.solver import TaskState

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import GameSpec
from pytest_gameeval.inspect_ext.solver import RECORD_KEY

FAILURE_KEYS = {"format": "format_errors", "rule": "rule_violations", "degenerate": "degenerate_moves",
                "chat": "chat_errors", "forfeit": "forfeits", "content_filter": "content_filtered"}


def _short_named_metric(name: str, doc: str):
    """Register a metric under a bare name. `@metric` prefixes the package ("pytest_gameeval/...")
    and inspect's tables cut names at about ten characters, which left the two interval bounds
    reading the same (`pytest_g…`); "low95" and "high95" survive any cut."""

    def register(factory: Callable[[], Metric]) -> Callable[[], Metric]:
        def create() -> Metric:
            instance = factory()
            registry_tag(factory, instance, RegistryInfo(type="metric", name=name))
            return instance

        create.__doc__ = doc
        return metric_register(create, name)

    return register


def _wilson(scores: list[SampleScore]) -> tuple[float, float]:
    """The 95% interval: Wilson for 0/1 values (a rate), Student t for other values (the headline
    `played_quality`); NaN values (undefined for a game) are left out."""
    import math

    from scipy import stats  # here, not at task load: scipy costs ~0.5 s of every eval's start-up

    from pytest_gameeval.metrics.stats import mean as t_interval

    values = [float(s.score.value) for s in scores]  # type: ignore[arg-type]
    values = [v for v in values if math.isfinite(v)]
    if not values:
        return float("nan"), float("nan")
    if any(v not in (0.0, 1.0) for v in values):
        low, high = t_interval(values)["ci"]
        return (float("nan"), float("nan")) if low is None else (float(low), float(high))
    ci = stats.binomtest(round(sum(values)), len(values)).proportion_ci(method="wilson")
    return float(ci.low), float(ci.high)


def _defined(scores: list[SampleScore]) -> list[float]:
    values = [float(s.score.value) for s in scores]  # type: ignore[arg-type]
    return [v for v in values if not math.isnan(v)]


# Some score keys are undefined (NaN) for some games by definition (Ask-Guess `rounds_st` only for
# ST games, SpyFall's spy keys only for games with a spy): inspect's mean() gives NaN as soon as one
# game lacks the key. These average over the games where it is defined and say how many they are;
# with none, the value stays NaN ("no value"), never a number.
@_short_named_metric("mean_def", "Mean over the games where the score key is defined (not NaN).")
def mean_def() -> Metric:
    def value(scores: list[SampleScore]) -> float:
        defined = _defined(scores)
        return sum(defined) / len(defined) if defined else float("nan")

    return value


@_short_named_metric("stderr_def", "Standard error of the mean over the games where the score key is defined.")
def stderr_def() -> Metric:
    def value(scores: list[SampleScore]) -> float:
        from scipy import stats

        defined = _defined(scores)
        return float(stats.sem(defined)) if len(defined) > 1 else float("nan")

    return value


@_short_named_metric("n_defined", "How many games the score key is defined (not NaN) for.")
def n_defined() -> Metric:
    def value(scores: list[SampleScore]) -> float:
        return float(len(_defined(scores)))

    return value


@_short_named_metric("low95", "Lower bound of the 95% interval (Wilson for a rate, Student t for the headline).")
def low95() -> Metric:
    def low(scores: list[SampleScore]) -> float:
        return _wilson(scores)[0]

    return low


@_short_named_metric("high95", "Upper bound of the 95% interval (Wilson for a rate, Student t for the headline).")
def high95() -> Metric:
    def high(scores: list[SampleScore]) -> float:
        return _wilson(scores)[1]

    return high


def score_record(spec: GameSpec, record: GameRecord) -> dict[str, float]:
    values = spec.score(record)
    totals = record.failure_totals()
    values.update({key: float(totals.get(kind, 0)) for kind, key in FAILURE_KEYS.items()})
    return {spec.headline: values[spec.headline], **values}  # the sample's score panel shows the headline first


def _metrics_of(key: str, rates: set[str], spec: GameSpec) -> list[Metric]:
    interval = [low95(), high95()] if key in rates or key == spec.headline else []
    if key in rates:
        return [mean(), stderr(), *interval]
    if key in spec.mean_keys:  # may be undefined for some games: see mean_def
        return [mean_def(), stderr_def(), n_defined(), *interval]
    return [mean(), stderr()]  # failure counts: defined for every game


def mean_metric_name(spec: GameSpec, key: str) -> str:
    """The name of the metric holding a score key's mean in an inspect log's results."""
    return "mean_def" if key in spec.mean_keys and key not in spec.rate_keys else "mean"


NOT_FINISHED = "not finished (sample limit)"
STOPPED = ("the game was stopped before its end by an inspect sample limit (--cost-limit, --token-limit, --time-limit, "
           "...): it has no outcome, and its scores are undefined, not 0")
COST_KEY = "cost_usd"  # the game's cost in USD as inspect priced it (--model-cost-config)


def sample_cost() -> float:
    """The game's cost as inspect priced its calls (`--model-cost-config`): NaN when a model that is
    not one of ours has no price, never 0 for it (our scripted and embedded players make no API call)."""
    from inspect_ai.model._model import sample_model_usage

    total = 0.0
    for model, usage in sample_model_usage().items():
        if usage.total_cost is not None:
            total += usage.total_cost
        elif not model.startswith(("gameeval/scripted", "gameeval/local")):
            return float("nan")
    return total


def game_scorer(spec: GameSpec) -> Scorer:
    rates = set(spec.rate_keys)
    # the headline first: inspect's summary and the sample's score panel list keys in this order
    keys = [
        spec.headline,
        *(k for k in [*spec.outcome_labels, *spec.mean_keys, *FAILURE_KEYS.values()] if k != spec.headline),
    ]
    metrics = {key: _metrics_of(key, rates, spec) for key in keys}
    metrics[COST_KEY] = [mean_def(), n_defined()]  # a game's cost; undefined without prices

    @scorer(metrics=[metrics], name=f"gameeval_{spec.name}")
    def game_outcome() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            if RECORD_KEY not in state.metadata:  # a sample limit (--cost-limit, ...) stopped the game mid-way
                return Score(value={**dict.fromkeys(keys, float("nan")), COST_KEY: sample_cost()},
                             answer=NOT_FINISHED, explanation=STOPPED)
            record = GameRecord.from_dict(state.metadata[RECORD_KEY])
            return Score(
                value={**score_record(spec, record), COST_KEY: sample_cost()},
                answer=spec.answer(record),
                explanation=spec.explain(record),
                metadata={"failures": record.failures, "usage": record.usage, "seed": str(record.seed),
                          "structured": record.structured},
            )

        return score

    return game_outcome()


def headline_metric(spec: GameSpec) -> HeadlineMetric:
    """The log list's SCORE column: the mean of the game's headline score key."""
    return HeadlineMetric(
        scorer=f"gameeval_{spec.name}", score=spec.headline, metric=mean_metric_name(spec, spec.headline)
    )


def score_tag(spec: GameSpec) -> str:
    """The log list's name for its SCORE column (a task tag): which score key, averaged."""
    return f"score: {mean_metric_name(spec, spec.headline)} {spec.headline}"
