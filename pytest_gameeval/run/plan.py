"""A run's plan: the cases of each game (one per dataset row and trial), sliced over processes,
and the metrics the regression gate judges for each game. No model is touched here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_gameeval.analysis.report.file import dataset_digest
from pytest_gameeval.analysis.verdicts.gate import MEAN, RATE, GateMetric
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.options import GameOptions
from pytest_gameeval.engine.replies import decoding_label
from pytest_gameeval.engine.spec import GameSpec, Row
from pytest_gameeval.engine.user_data import check_no_blank_words
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.run.settings import NODE_PREFIX, Settings

# -- cases and shards ---------------------------------------------------------------------------


@dataclass
class Case:
    game: str
    row: Row
    trial: int
    options: GameOptions
    case_id: str  # e.g. "hard-apple-t0"
    index: int  # position among the game's cases

    @property
    def name(self) -> str:
        return f"{self.game}[{self.case_id}]"

    @property
    def nodeid(self) -> str:
        return NODE_PREFIX + self.name


@dataclass
class GamePlan:
    spec: GameSpec
    options: GameOptions  # reports store options.as_dict()
    cases: list[Case]
    dataset: dict[str, Any]
    selected: int = 0  # cases the options select; more than len(cases) when this process plays one slice


def slice_plans(plans: list[GamePlan], index: int, count: int) -> None:
    """Keep in each plan only the cases of slice `index` (1-based) of `count`, balanced over every
    game's cases by expected cost (settings.slice_of); a case keeps its index among all."""
    from pytest_gameeval.run.settings import slice_of

    cases = [(plan, case) for plan in plans for case in plan.cases]
    slices = slice_of([plan.spec.expected_cost(case.options) for plan, case in cases], count)
    for plan in plans:
        plan.cases = [case for (owner, case), k in zip(cases, slices) if owner is plan and k == index - 1]


def plan_game(spec: GameSpec, settings: Settings) -> GamePlan:
    options = settings.game_options(spec)
    if getattr(options, "data", None):  # the user's own file: a blank word is a FILE:LINE error now
        check_no_blank_words(options.data)
    rows = spec.select_rows(options)
    cases = []
    for row in rows:
        for trial in range(settings.trials):
            cases.append(Case(spec.name, row, trial, options, spec.case_id(row, options, trial), len(cases)))
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise GameEvalError(
            f"{spec.name}: case ids are not unique ({', '.join(dupes[:3])}); the game's case_key must tell rows apart"
        )
    return GamePlan(spec, options, cases, dataset_digest(spec, options), len(cases))


def expected_decoding(spec: GameSpec, options: GameOptions, settings: Settings) -> str:
    """The structured decoding a game's seats will use ("on", "off", "mixed"), known before playing:
    from the `structured` option and the models bound to the game's roles."""
    # inspect loads here, not with the plan (--co plans every case and imports no inspect)
    from pytest_gameeval.inspect_ext.decoding import resolve_structured

    models = {settings.model or ""}
    for role, bound in settings.roles.items():
        if role in spec.bindable_roles() or role.split("[")[0] in spec.bindable_roles():
            models.update(bound.split(","))
    return decoding_label([resolve_structured(options.structured, m) for m in sorted(models)])


def selected_specs(settings: Settings) -> list[GameSpec]:
    names = settings.games or list(GAMES)
    return [get_spec(n) for n in names]


# -- gating -------------------------------------------------------------------------------------


def gate_metrics(spec: GameSpec, game_report_keys: tuple[list[str], list[str]], settings: Settings) -> list[GateMetric]:
    """The metrics to gate for a game: its headline and turn-level measure (`spec.default_gated`), then any
    metric --gameeval-gate-metric names; `GAME.METRIC=ignore` drops one (the headline included).
    Outcome shares are not gated one by one (analysis/verdicts/judge.py says why)."""
    rate_keys, mean_keys = game_report_keys
    wanted: dict[str, tuple[bool | None, float | None]] = {key: (True, None) for key in spec.default_gated}
    wanted.update(settings.gate_metrics.get(spec.name, {}))
    metrics = []
    for name, (higher, tol) in wanted.items():
        if name in rate_keys:
            kind = RATE
        elif name in mean_keys:
            kind = MEAN
        else:
            raise GameEvalError(f"gate metric {spec.name}.{name}: not a score of {spec.name} "
                                f"(rates: {', '.join(rate_keys)}; means: {', '.join(mean_keys)})")
        if higher is not None:
            metrics.append(GateMetric(name, kind, higher, settings.gate.tolerance if tol is None else tol))
    return metrics


def _directions(spec: GameSpec, settings: Settings) -> dict[str, tuple[bool | None, float | None]]:
    declared = getattr(spec, "higher_is_better", None) or {}
    directions: dict[str, tuple[bool | None, float | None]] = {k: (bool(v), None) for k, v in declared.items()}
    directions.update(settings.gate_metrics.get(spec.name, {}))
    return directions


def directions_of(spec: GameSpec, settings: Settings) -> dict[str, str]:
    """metric -> "higher"/"lower" (which way is better), as stored in the report."""
    return {k: ("higher" if h else "lower") for k, (h, _) in _directions(spec, settings).items() if h is not None}


def score_keys(spec: GameSpec) -> tuple[list[str], list[str]]:
    return list(spec.rate_keys), list(spec.other_mean_keys)
