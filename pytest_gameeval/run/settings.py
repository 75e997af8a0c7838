"""Settings of a pytest-gameeval run and the shard layout: cheap to import.

The plugin module is imported by every pytest run (entry point), so it and this module import
nothing heavy (no inspect, no scipy); playing lives in runner.py, loaded only with a model.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_gameeval.analysis.verdicts.gate_config import GateConfig, Relative
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.key_values import key_value_pairs
from pytest_gameeval.fresh.resolve import with_fresh_data
from pytest_gameeval.games.registry import GAMES
from pytest_gameeval.transport.retry_defaults import ATTEMPT_TIMEOUT, MAX_RETRIES, TIMEOUT

if TYPE_CHECKING:
    from pytest_gameeval.engine.spec import GameSpec

NODE_PREFIX = "gameeval::"


# -- settings -----------------------------------------------------------------------------------


def parse_scalar(value: str) -> Any:
    """Model argument values: JSON scalars (0.05, true, 3) where they parse, else the string."""
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        return value
    return parsed if isinstance(parsed, (int, float, bool, str)) or parsed is None else value


@dataclass
class Settings:
    model: str | None = None
    roles: dict[str, str] = field(default_factory=dict)
    model_args: dict[str, Any] = field(default_factory=dict)
    # a local GGUF's identity (gameeval/local/x.gguf@sha) -> its file: the identity alone cannot find it
    local_paths: dict[str, str] = field(default_factory=dict)
    games: list[str] = field(default_factory=list)
    trials: int = 1
    limit: int = 0
    seed: int = 0
    option_overrides: list[tuple[str, str]] = field(default_factory=list)  # ([GAME.]NAME, VALUE)
    concurrency: int = 32
    shard_size: int = 0  # 0: same as concurrency
    max_connections: int = 0  # inspect's max_connections per model; 0: the provider's default
    # inspect's retry settings for every model (transport/retry_defaults.py says why)
    max_retries: int = MAX_RETRIES
    timeout: int = TIMEOUT
    attempt_timeout: int = ATTEMPT_TIMEOUT
    cache: bool = False
    slice: tuple[int, int] | None = None  # --gameeval-shard K/N: play the K-th of N slices of the cases (1-based)
    gate: GateConfig = field(default_factory=GateConfig)
    gate_metrics: dict[str, dict[str, tuple[bool | None, float | None]]] = field(default_factory=dict)

    @property
    def cases_per_shard(self) -> int:
        return self.shard_size or self.concurrency

    def game_options(self, spec: GameSpec) -> dict[str, Any]:
        """The spec's parsed options for this run: --gameeval-limit/-seed, then --gameeval-option."""
        given: dict[str, Any] = {"limit": self.limit, "seed": self.seed}
        known = spec.all_options()
        for name, value in self.option_overrides:
            game, dot, option = name.rpartition(".")
            if dot and game != spec.name:
                continue
            if option in known:
                given[option] = value
        from pytest_gameeval.engine.given_options import check_given

        check_given(spec.options_class.declared(), given)  # limit=-1: one line, as inspect's -T
        # fresh:SEED -> the fresh set's file (docs/fresh-cases.md)
        return spec.parse_options(with_fresh_data(spec.name, given))

    def check_overrides(self, specs: list[GameSpec]) -> None:
        names = {s.name for s in specs}
        for name, _ in self.option_overrides:
            game, dot, option = name.rpartition(".")
            if dot and game not in GAMES:
                raise GameEvalError(
                    f"--gameeval-option {name}: unknown game {game!r}; known games: {', '.join(sorted(GAMES))}"
                )
            targets = [s for s in specs if s.name == game] if dot else specs
            if dot and game not in names:
                continue  # an option for a game not selected in this run: harmless
            if not any(option in s.all_options() for s in targets):
                known = sorted({o for s in targets for o in s.all_options()})
                raise GameEvalError(
                    f"--gameeval-option {name}: no selected game has an option {option!r}; known: {', '.join(known)}"
                )


def gate_metric_option(values: list[str]) -> dict[str, dict[str, tuple[bool | None, float | None]]]:
    """--gameeval-gate-metric GAME.METRIC=higher|lower[:TOLERANCE] or GAME.METRIC=ignore."""
    out: dict[str, dict[str, tuple[bool | None, float | None]]] = {}
    for name, value in key_value_pairs(values, "--gameeval-gate-metric"):
        game, dot, metric = name.partition(".")
        direction, _, tol = value.partition(":")
        if not dot or not metric or direction not in ("higher", "lower", "ignore") or (direction == "ignore" and tol):
            raise GameEvalError(
                f"--gameeval-gate-metric {name}={value}: expected GAME.METRIC=higher|lower[:TOLERANCE] or "
                "GAME.METRIC=ignore"
            )
        try:  # TOL% is relative to the baseline's value (gate_config.Relative)
            tolerance = (Relative(float(tol[:-1]) / 100) if tol.endswith("%") else float(tol)) if tol else None
        except ValueError:
            raise GameEvalError(f"--gameeval-gate-metric {name}={value}: tolerance {tol!r} is not a number "
                                "(absolute, or a percent of the baseline's value: 5%)") from None
        if tolerance is not None and not (math.isfinite(tolerance) and tolerance >= 0):
            raise GameEvalError(f"--gameeval-gate-metric {name}={value}: tolerance {tol!r} must be a finite number, "
                                "not negative")  # nan%/inf% are not negative: say what is wrong with them too
        out.setdefault(game, {})[metric] = (None if direction == "ignore" else direction == "higher", tolerance)
    return out


def parse_slice(value: str) -> tuple[int, int] | None:
    """--gameeval-shard K/N (1 <= K <= N); "" -> None."""
    if not value:
        return None
    k, slash, n = value.partition("/")
    try:
        index, count = int(k), int(n)
    except ValueError:
        index = count = 0
    if not slash or not 1 <= index <= count:
        raise GameEvalError(
            f"--gameeval-shard {value}: expected K/N with 1 <= K <= N (e.g. 2/3: the second of three slices)"
        )
    return index, count


def slice_of(costs: list[float], count: int) -> list[int]:
    """The slice (0-based) of each case, from each case's expected cost: the costliest first, each to
    the slice with the least cost so far (ties: the lower slice; equal costs: in case order), so
    every case is in exactly one slice, slices differ by at most one case's cost, and the split
    depends only on the cases in their order (no hashing): the same on every machine."""
    loads = [0.0] * count
    out = [0] * len(costs)
    for i in sorted(range(len(costs)), key=lambda i: (-costs[i], i)):
        k = min(range(count), key=lambda j: (loads[j], j))
        out[i] = k
        loads[k] += costs[i]
    return out


def game_of_nodeid(nodeid: str) -> str | None:
    if not nodeid.startswith(NODE_PREFIX):
        return None
    return nodeid[len(NODE_PREFIX):].split("[", 1)[0]


def shard_map(nodeids: list[str], cases_per_shard: int, gated_games: set[str]) -> dict[str, str]:
    """nodeid -> shard key for the game cases among `nodeids` (in run order).

    Computed the same way by the xdist controller (from the collected node ids) and by each
    process (from its session items), so both agree on which cases travel together."""
    counts: dict[str, int] = {}
    out: dict[str, str] = {}
    for nodeid in nodeids:
        game = game_of_nodeid(nodeid.split("@", 1)[0])
        if game is None:
            continue
        i = counts.get(game, 0)
        counts[game] = i + 1
        out[nodeid] = f"gameeval-{game}" if game in gated_games else f"gameeval-{game}-{i // max(1, cases_per_shard)}"
    return out


