"""The regression gate's settings: a plain dataclass, cheap to import (the pytest plugin reads
them from its options in every run; the gate itself needs scipy and is loaded only to decide)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class GateConfig:
    alpha: float = 0.05  # P(fail | nothing regressed beyond tolerance), per game
    beta: float = 0.1  # P(stop early as "not regressed" | regressed beyond tolerance), per metric bound
    tolerance: float = 0.1  # default tolerance of every gated metric (absolute, in the metric's units)
    looks: int = 4  # interim analyses per game
    allow_missing: bool = False  # a game missing from the baseline is reported, not failed
    allow_version_change: bool = False  # gate against a baseline of another game version (said on the verdict line)


class Relative(float):
    """A tolerance given in percent of the baseline's value (`GAME.METRIC=higher:5%` is Relative(0.05)).

    It enters the gate's tests as an absolute tolerance, fixed from the baseline alone before the
    first look (`absolute_tolerance`): the baseline's mean of the metric over its played games times
    the fraction. The tests, and so their error rates, are then exactly those of an absolute
    tolerance of that size; only the new run's data is random to them."""

    def __repr__(self) -> str:
        return f"{100 * float(self):g}%"


def absolute_tolerance(tolerance: float, metric: str, baseline_cases: Sequence[Mapping[str, Any]]) -> float:
    """`tolerance` in the metric's units: as given, or a Relative one of the baseline's mean value
    (0 when the baseline has no value of it: then no change can be shown to be "same")."""
    if not isinstance(tolerance, Relative):
        return float(tolerance)
    values = [float(c["scores"][metric]) for c in baseline_cases
              if c.get("status") == "played" and isinstance((c.get("scores") or {}).get(metric), (int, float))
              and not isinstance(c["scores"][metric], bool) and math.isfinite(c["scores"][metric])]
    return float(tolerance) * abs(sum(values) / len(values)) if values else 0.0
