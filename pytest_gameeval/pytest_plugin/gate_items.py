"""The gate as a test: with a baseline, each game the gate judges gets one item of its own,
`gameeval::GAME[gate]`, which fails with the verdict line and the gate's table when the game is
worse, missing or too thin, and passes otherwise. pytest's outcome line, JUnit, `--lf`, `-x` and
test-report dashboards then see a failed gate as they see any failed test.

The item comes right after its game's cases and, under xdist, travels in their shard, so it judges the
games its own process played. Selected alone (a pasted node id, `--lf` after a failed gate) it
plays its game's cases itself: the verdict needs them.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_gameeval.pytest_plugin.items import GameCaseItem, GameEvalCollector, state_result
from pytest_gameeval.pytest_plugin.state import STATE, GameEvalState

GATE = "gate"  # the item's parameter: gameeval::GAME[gate]


class GateFailed(Exception):
    """The game's verdict fails the gate; the message is its verdict line and table."""


class GameGateItem(pytest.Item):
    def __init__(self, *, game: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.game = game

    def runtest(self) -> None:
        state = self.config.stash[STATE]
        state.gate_items_ran.add(self.game)
        entry = game_gate_entry(state, self.game, self.session)
        summary = one_game_summary(state, self.game, entry)
        _as_the_session_judges(state, self.game, summary)
        from pytest_gameeval.analysis.verdicts.game import gate_failures  # light: no scipy
        from pytest_gameeval.analysis.verdicts.table import gate_lines

        lines = [line for line, _ in gate_lines(summary, str(state.settings.model))]
        text = "\n".join(lines[-1:] + lines[:-1])  # the verdict line first: pytest's short summary shows it
        self.user_properties.append(("gameeval_gate", "fail" if gate_failures(summary) else "pass"))
        if entry is not None:
            self.user_properties.append(("gameeval_gate_result", entry["result"]))
        if gate_failures(summary):
            raise GateFailed(text)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, GateFailed):
            return str(excinfo.value)
        if type(excinfo.value).__name__ == "WorkerGameTimeout":  # timeouts.py: one line, no stack
            return f"gameeval: timed out: {excinfo.value}; its game's unfinished games were cut (not played)"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, 0, f"{self.game} regression gate"


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> Any:
    """After items.py's game cases (its wrapper is tryfirst), before -k/-m, --sw and every plain hook:
    each gate item right after its game's last case, so `-x` stops at the first game that fails
    instead of playing every other game's cases first."""
    state = config.stash.get(STATE, None)
    if state is not None and state.settings.model:
        parent = GameEvalCollector.from_parent(session, name="gameeval", nodeid="gameeval")
        gates: list[Any] = []
        add_gate_items(state, parent, gates)
        for gate in gates:
            last = max((n for n, i in enumerate(items) if i.nodeid.startswith(f"gameeval::{gate.game}[")),
                       default=len(items) - 1)
            items.insert(last + 1, gate)
        if gates:
            config.hook.pytest_collectreport(report=pytest.CollectReport(parent.nodeid, "passed", None, gates))
    return (yield)


def add_gate_items(state: GameEvalState, parent: pytest.Collector, items: list[pytest.Item]) -> None:
    for game in state.gate_item_games():
        item = GameGateItem.from_parent(parent, name=f"{game}[{GATE}]", nodeid=f"gameeval::{game}[{GATE}]", game=game)
        item.add_marker(pytest.mark.gameeval)
        items.append(item)


def game_gate_entry(state: GameEvalState, game: str, session: pytest.Session) -> dict[str, Any] | None:
    """The game's entry of the gate once its selected cases are played (None: not in the baseline)."""
    assert state.baseline is not None
    if game not in state.baseline["games"]:
        return None
    case_items = [i for i in session.items if isinstance(i, GameCaseItem) and i.case is not None
                  and i.case.game == game]
    if case_items:
        for item in case_items:  # each plays its shard once; the gate's looks live in the runner
            state_result(state, item)
    else:  # the gate alone was selected: its verdict needs the game's cases
        plan = state.plans[game]
        state.runner.play_shard(plan.cases, state.gate_metrics[game])
        for case in plan.cases:
            state.ran.setdefault(case.name, state.runner.results[case.name])
    if game in state.runner.gates:
        return {**state.runner.gates[game].to_dict(), "cases_deselected": state.deselected_cases(game)}
    from pytest_gameeval.analysis.verdicts.game import no_played_game
    from pytest_gameeval.analysis.verdicts.gate import missing_game  # lazy: scipy

    played = [state.runner.results[i.case.name].entry() for i in case_items if i.case.name in state.runner.results]
    why = no_played_game(played) or "no played game"
    return missing_game(game, len(case_items) or len(state.plans[game].cases), state.settings.gate, why)


def one_game_summary(state: GameEvalState, game: str, entry: dict[str, Any] | None) -> dict[str, Any]:
    """The gate's summary (the report's `gate` form) restricted to one game, for its item's message."""
    settings, baseline = state.settings, state.baseline
    assert baseline is not None
    return {
        "baseline": str(state.baseline_path), "baseline_models": baseline.get("models"),
        "missing_from_baseline": [] if entry is not None else [game],
        "allow_missing": settings.gate.allow_missing,
        "tolerance": settings.gate.tolerance, "alpha": settings.gate.alpha, "beta": settings.gate.beta,
        "looks": settings.gate.looks,
        "games": {game: entry} if entry is not None else {},
        "not_gated": [], "data_errors": [], "opponents_differ": [],
    }


def _as_the_session_judges(state: GameEvalState, game: str, summary: dict[str, Any]) -> None:
    """What else fails this game in the session's gate (report_writer._gate_summary and
    spend.budget_verdicts), so the item never passes a game the session's verdict fails: other
    opponents than the baseline's, and an undecided game whose cases the budget did not start."""
    from pytest_gameeval.analysis.report.file import incomparable
    from pytest_gameeval.pytest_plugin.report_writer import local_game_entry
    from pytest_gameeval.pytest_plugin.spend import SPEND, budget_verdicts

    if state.baseline is None or game not in state.baseline["games"]:
        return
    ordered, games = local_game_entry(state, game)
    if not ordered:
        return
    summary["opponents_differ"] = [r for r in incomparable(state.baseline, {"games": games}, games=[game])
                                   if "different opponents" in r]
    if state.config.stash.get(SPEND, None) is not None and summary["games"]:
        budget_verdicts({"gate": summary, "cases": ordered})
