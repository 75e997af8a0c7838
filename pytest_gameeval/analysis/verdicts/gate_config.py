"""The regression gate's settings: a plain dataclass, cheap to import (the pytest plugin reads
them from its options in every run; the gate itself needs scipy and is loaded only to decide)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class GateConfig:
    alpha: float = 0.05  # P(fail | nothing regressed beyond tolerance), per game
    beta: float = 0.1  # P(stop early as "not regressed" | regressed beyond tolerance), per metric bound
    tolerance: float = 0.1  # default tolerance of every gated metric (absolute, in the metric's units)
    looks: int = 4  # interim analyses per game
    allow_missing: bool = False  # a game missing from the baseline is reported, not failed
    allow_version_change: bool = False  # gate against a baseline of another game version (said on the verdict line)
