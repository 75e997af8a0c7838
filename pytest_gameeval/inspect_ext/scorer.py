"""Scorer and metrics: every outcome as a number (one-hot), the label in Score.answer, a short
readable explanation, and a headline metric for the log list (`headline_metric`)."""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

from inspect_ai._util.registry import RegistryInfo, registry_add, registry_info, registry_tag
from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    mean_score,
    score_reducer,
    scorer,
    value_to_float,
)
from inspect_ai.scorer._metric import metric_register
from inspect_ai.solver import TaskState

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import GameSpec
from pytest_gameeval.inspect_ext.epochs import undefined_value  # also registers its inspect hook
from pytest_gameeval.inspect_ext.solver import NOT_STARTED_KEY, RECORD_KEY

_TO_FLOAT = value_to_float()
FAILURE_KEYS = {"format": "format_errors", "rule": "rule_violations", "degenerate": "degenerate_moves",
                "chat": "chat_errors", "forfeit": "forfeits", "content_filter": "content_filtered"}


def _short_named_metric(name: str, doc: str, log_name: str | None = None):
    """Register a metric under a bare name. `@metric` prefixes the package ("pytest_gameeval/...")
    and inspect's tables cut names at about ten characters, which left the two interval bounds
    reading the same (`pytest_g…`); "low95" and "high95" survive any cut. `log_name`: the name the
    log gives the metric's values when it differs from the registered one (below)."""

    def register(factory: Callable[[], Metric]) -> Callable[[], Metric]:
        def create() -> Metric:
            instance = factory()
            registry_tag(factory, instance, RegistryInfo(type="metric", name=log_name or name))
            return instance

        create.__doc__ = doc
        return metric_register(create, name)

    return register


def _wilson(scores: list[SampleScore]) -> tuple[float, float]:
    """The 95% interval: Wilson for 0/1 values (a rate), Student t for other values (the headline
    `played_quality`); NaN values (undefined for a game) are left out."""

    from scipy import stats  # here, not at task load: scipy costs ~0.5 s of every eval's start-up

    from pytest_gameeval.metrics.stats import mean as t_interval

    values = _defined(scores)
    if not values:
        return float("nan"), float("nan")
    if any(v not in (0.0, 1.0) for v in values):
        low, high = t_interval(values)["ci"]
        if low is None:
            return float("nan"), float("nan")
        if all(0.0 <= v <= 1.0 for v in values):  # a rate reduced over --epochs (0.5): its mean lies in [0, 1]
            return max(0.0, float(low)), min(1.0, float(high))
        return float(low), float(high)
    ci = stats.binomtest(round(sum(values)), len(values)).proportion_ci(method="wilson")
    return float(ci.low), float(ci.high)


def _defined(scores: list[SampleScore]) -> list[float]:
    values = [s.score.value for s in scores]
    return [float(v) for v in values if v is not None and not math.isnan(float(v))]  # type: ignore[arg-type]


# Some score keys are undefined for some games by definition (Ask-Guess `rounds_st` only for ST
# games, SpyFall's spy keys only for games with a spy): such a key's value is null (JSON has no NaN,
# and inspect's logs and samples_df must stay valid JSON), which inspect's own mean and stderr would
# read as 0. These average over the games where a key is defined (n_defined says how many); with
# none, no value. The log names them "mean" and "stderr", the names evals_df and readers of inspect
# logs look for (where every game defines a key they equal inspect's own); they are registered as
# gameeval/mean and gameeval/stderr so that inspect's own metrics are never replaced.
@_short_named_metric("gameeval/mean", "Mean over the games where the score key is defined (not null).", "mean")
def mean_def() -> Metric:
    def value(scores: list[SampleScore]) -> float:
        defined = _defined(scores)
        return sum(defined) / len(defined) if defined else float("nan")

    return value


@_short_named_metric("gameeval/stderr", "Standard error of the mean over the games where the score key is defined.",
                     "stderr")
def stderr_def() -> Metric:
    def value(scores: list[SampleScore]) -> float:
        from scipy import stats

        defined = _defined(scores)
        return float(stats.sem(defined)) if len(defined) > 1 else float("nan")

    return value


def _none_as_nan(value: Any) -> float:
    return float("nan") if value is None else _TO_FLOAT(value)


def null_for_undefined(values: dict[str, Any], undefined: float | None = None) -> dict[str, Any]:
    """A score dict as a log holds it: an undefined value (NaN) is null, or `undefined`
    (epochs.undefined_value: NaN when the eval reduces epochs with one of inspect's reducers)."""
    return {k: undefined if isinstance(v, float) and math.isnan(v) else v for k, v in values.items()}


@score_reducer(name="mean_defined")
def mean_defined() -> ScoreReducer:
    """Trials (--epochs) of a case averaged key by key over the trials that define the key; null when
    none does (inspect's mean would read null as 0)."""
    base = mean_score(value_to_float=_none_as_nan)

    def reduce(scores: list[Score]) -> Score:
        reduced = base(scores)
        if isinstance(reduced.value, dict):
            reduced = reduced.model_copy(update={"value": null_for_undefined(dict(reduced.value))})
        return reduced

    return reduce


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
    if key in spec.mean_keys and key not in rates:  # may be undefined for some games: see mean_def
        return [mean_def(), stderr_def(), n_defined(), *interval]
    return [mean_def(), stderr_def(), *interval]  # defined for every finished game


def mean_metric_name(spec: GameSpec, key: str) -> str:
    """The name of the metric holding a score key's mean in an inspect log's results."""
    return "mean"


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


@functools.cache
def scorer_of(game: str) -> Callable[[], Scorer]:
    """The game's scorer, registered in inspect's registry as `gameeval_GAME` when first asked for.
    Each tasks/GAME.py asks for it when it loads, so `inspect score LOG` (which looks the scorer up
    by name, then loads the log's task file) finds it; a scorer registered only when the task
    function runs could not be found."""
    from pytest_gameeval.games.registry import get_spec

    spec = get_spec(game)
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
            undefined = undefined_value()
            if RECORD_KEY not in state.metadata:  # a sample limit (--cost-limit, ...) or a budget stopped the game
                return Score(value=null_for_undefined({**dict.fromkeys(keys, float("nan")), COST_KEY: sample_cost()},
                                                      undefined),
                             answer=NOT_FINISHED, explanation=state.metadata.get(NOT_STARTED_KEY, STOPPED))
            record = GameRecord.from_dict(state.metadata[RECORD_KEY])
            return Score(
                value=null_for_undefined({**score_record(spec, record), COST_KEY: sample_cost()}, undefined),
                answer=spec.answer(record),
                explanation=spec.explain(record),
                metadata={"failures": record.failures, "usage": record.usage, "seed": str(record.seed),
                          "structured": record.structured},
            )

        return score

    _also_as(game_outcome, f"gameeval_{spec.name}")
    return game_outcome


def _also_as(factory: Callable[[], Scorer], name: str) -> None:
    """Installed as a package, inspect registers the scorer as `pytest_gameeval/NAME` while the log
    records `NAME`, the name `inspect score` looks up: register it under that name too."""
    info = registry_info(factory)
    if info.name == name:
        return

    def same(*args: Any, **kwargs: Any) -> Scorer:
        return factory(*args, **kwargs)

    registry_add(same, RegistryInfo(type="scorer", name=name, metadata=info.metadata))


def game_scorer(spec: GameSpec) -> Scorer:
    return scorer_of(spec.name)()


def headline_metric(spec: GameSpec) -> HeadlineMetric:
    """The log list's SCORE column: the mean of the game's headline score key."""
    return HeadlineMetric(
        scorer=f"gameeval_{spec.name}", score=spec.headline, metric=mean_metric_name(spec, spec.headline)
    )


def score_tag(spec: GameSpec) -> str:
    """The log list's name for its SCORE column (a task tag): which score key, averaged."""
    return f"score: {mean_metric_name(spec, spec.headline)} {spec.headline}"
