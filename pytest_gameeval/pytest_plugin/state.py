"""What the plugin keeps for one pytest process (GameEvalState, in the config's stash)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.progress import Ticker
from pytest_gameeval.pytest_plugin.options import option_value
from pytest_gameeval.run.settings import Settings

NO_MODEL_REASON = (
    "gameeval: no model to evaluate (give --gameeval-model=PROVIDER/MODEL or set gameeval_model in the ini file)"
)


class GameEvalState:
    """Everything the plugin keeps for one pytest process."""

    def __init__(self, config: pytest.Config, settings: Settings):
        self.config = config
        self.settings = settings
        self.plans: dict[str, Any] = {}  # game -> runner.GamePlan
        self.broken: dict[str, str] = {}  # game -> why its cases cannot be made (its data): one line
        self.baseline: dict[str, Any] | None = None
        self.baseline_path: Path | None = None
        self.gate_metrics: dict[str, list[Any]] = {}  # game -> its gate.GateMetric list (runner.gate_metrics), at start
        self._runner: Any = None
        self.ran: dict[str, Any] = {}  # cases whose items ran in this process
        self.timed_out: str | None = None  # which game item ran past pytest-timeout's --timeout (timeouts.py)
        self.gate_items_ran: set[str] = set()  # games whose gate item ran in this process (gate_items)
        self.merged: list[dict[str, Any]] = []  # from xdist workers: {"cases", "records", "gates"}
        self.shards: dict[str, str] | None = None
        self.report: dict[str, Any] | None = None
        self.report_path: Path | None = None
        self.gate_summary: dict[str, Any] | None = None
        self.started = time.time()
        self.ticker: Ticker | None = None
        self.lock: Any = None  # report_lock.ReportLock, held by the process that owns the session
        self.run_token = ""  # this run's token (the controller's under xdist): see journal.py
        self.crashed: set[str] = set()  # node ids of game cases on an xdist worker that crashed
        self.not_reused: dict[str, int] = {}  # journalled games not reused, by reason (every process's)
        self.notes: list[str] = []  # lines for the header (a stale lock taken over)
        self.in_selection = True  # the command line can select game items (selection.py)
        self.selected_cases: set[str] = set()  # case names whose items the final selection holds (items.py)
        self.gates_selected: set[str] = set()  # games whose gate item the final selection holds
        self.stopped = ""  # why pytest ended the session early (-x, --maxfail, --sw), its own words
        self.killed = False  # a real KeyboardInterrupt (Ctrl-C, SIGTERM), not pytest's own stop (session.py)

    @property
    def runner(self) -> Any:
        if self._runner is None:
            from pytest_gameeval.run.runner import Runner

            self._runner = Runner(self.settings, self.baseline)
        return self._runner

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    @property
    def is_controller(self) -> bool:
        opt = self.config.option
        return not self.is_worker and getattr(opt, "dist", "no") != "no" and bool(getattr(opt, "tx", None))

    def make_plans(self) -> None:
        from pytest_gameeval.games.registry import check_scripted_model
        from pytest_gameeval.run.plan import plan_game, selected_specs

        settings = self.settings
        for spec in selected_specs(settings):
            try:
                # a scripted strength other games have but this one lacks: one line, before any play
                bound = [
                    m
                    for role, models in settings.roles.items()
                    if role in spec.bindable_roles()
                    for m in models.split(",")
                ]
                for model in filter(None, [settings.model, *bound]):
                    check_scripted_model(model.strip(), spec)
                self.plans[spec.name] = plan_game(spec, settings)
            except GameEvalError as e:  # a data or strength problem fails this game's item, not the session
                self.broken[spec.name] = str(e)
        if settings.slice is not None:
            from pytest_gameeval.run.plan import slice_plans

            slice_plans(list(self.plans.values()), *settings.slice)

    def gated_games(self) -> set[str]:
        """Games of the baseline this run plays that have metrics to gate."""
        if self.baseline is None:
            return set()
        return {name for name in self.plans if name in self.baseline["games"] and self.gate_metrics.get(name)}

    def deselected_cases(self, game: str) -> int:
        """The game's cases the selection left out (-k, --deselect, node ids): its gate judged the rest."""
        plan = self.plans.get(game)
        if plan is None or not self.selected_cases:  # its gate item selected alone plays every case
            return 0
        return sum(c.name not in self.selected_cases for c in plan.cases)

    def gate_item_games(self) -> list[str]:
        """The games that get a gate item (gate_items.py): those the gate judges, and those missing
        from the baseline."""
        if self.baseline is None:
            return []
        return sorted(g for g in self.plans if g in self.gated_games() or g not in self.baseline["games"])


STATE = pytest.StashKey[GameEvalState]()


def report_path_of(state: GameEvalState) -> Path:
    path = Path(str(option_value(state.config, "gameeval_report")))
    return path if path.is_absolute() else state.config.rootpath / path


def plays_nothing(config: pytest.Config) -> bool:
    """`--co` and `--help` check every input as a run would, but play no game: no runner is made
    (its module imports inspect), no journal is read, no progress lines start, nothing is reported."""
    return bool(config.option.collectonly or config.option.help)
