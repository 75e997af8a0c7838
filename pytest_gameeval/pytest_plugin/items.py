"""Collection: one pytest item per game case (`gameeval::askguess[hard-apple-t0]`, marker
`gameeval`); the first item of a shard plays the whole shard, each item reports its own case."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import GAMES
from pytest_gameeval.pytest_plugin.options import option_value
from pytest_gameeval.pytest_plugin.state import NO_MODEL_REASON, STATE, GameEvalState
from pytest_gameeval.run.settings import shard_map


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """--gameeval-only: no test files at all, only the game cases."""
    if option_value(config, "gameeval_only") and collection_path != config.rootpath:
        return True
    return None


class GameEvalCollector(pytest.Collector):
    """The parent of every game case (node id "gameeval")."""

    def collect(self) -> list[Any]:
        return []


class GameCaseError(Exception):
    """A harness error while playing a case (the traceback, or the provider's cause, is the message)."""

    def __init__(self, message: str | None, *, provider: bool = False):
        super().__init__(message)
        self.provider = provider  # the provider failed (transport/provider.py): its one-line cause


class GameCaseItem(pytest.Item):
    def __init__(self, *, case: Any = None, placeholder: str | None = None, broken: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.case = case
        self.placeholder = placeholder
        self.broken = broken  # why this game's cases could not be made (e.g. its data file)

    def runtest(self) -> None:
        state = self.config.stash[STATE]
        if self.broken is not None:
            raise GameEvalError(self.broken)
        if self.case is None:
            pytest.skip(self.placeholder or NO_MODEL_REASON)
        from pytest_gameeval.run.runner import WorkerGameTimeout  # loaded: a model is given

        try:
            result = state_result(state, self)
        except WorkerGameTimeout:  # its shard was cut (runner.Runner.cut): this case is reported, the item fails
            state.ran[self.case.name] = state.runner.results[self.case.name]
            raise
        state.ran[self.case.name] = result
        self.user_properties.append(("gameeval_status", result.status))
        if result.record is not None:
            record = result.record
            self.user_properties.append(("gameeval_outcome", record.label))
            if record.outcome.get("winner") is not None:
                self.user_properties.append(("gameeval_winner", str(record.outcome["winner"])))
            for kind, n in record.failure_totals().items():
                self.user_properties.append((f"gameeval_{kind}", n))
            self.user_properties.append(("gameeval_seed", record.seed))
            for key, value in (result.scores or {}).items():  # the game's metrics, as --junitxml properties
                self.user_properties.append((f"gameeval_score_{key}", value))
        if result.status == "error":
            raise GameCaseError(result.error, provider=result.provider is not None)
        if result.status == "not played":
            pytest.skip(result.reason or "not played")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, GameCaseError):
            if excinfo.value.provider:  # the cause first: CI's summary line shows it
                return f"{excinfo.value} (harness error while playing {self.name})"
            return f"harness error while playing {self.name}:\n{excinfo.value}"
        if isinstance(excinfo.value, GameEvalError):
            return f"gameeval: {excinfo.value}"
        if type(excinfo.value).__name__ == "WorkerGameTimeout":  # timeouts.py: one line, no stack
            return f"gameeval: timed out: {excinfo.value}; its shard's unfinished games were cut (not played)"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, 0, self.name


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> Any:
    """The game items join the collection before any other plugin's hook sees it (a wrapper, run
    before every plain hook): pytest's stepwise (--sw), -k/-m and the gate items (gate_items.py)
    see them as collected items."""
    state = config.stash.get(STATE, None)
    if state is not None:
        parent = GameEvalCollector.from_parent(session, name="gameeval", nodeid="gameeval")
        added: list[pytest.Item] = []
        _add_items(state, parent, added)
        items.extend(added)
        # tell the terminal (and xdist) about them as if a collector had found them
        config.hook.pytest_collectreport(report=pytest.CollectReport(parent.nodeid, "passed", None, added))
    return (yield)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the final selection holds (after -k, -m, --deselect, --lf, --sw): the gate cuts a game's
    cases only when its gate item will run (state_result)."""
    state = session.config.stash.get(STATE, None)
    if state is None:
        return
    from pytest_gameeval.run.settings import game_of_nodeid

    state.selected_cases = {i.case.name for i in session.items if isinstance(i, GameCaseItem) and i.case is not None}
    state.gates_selected = {g for i in session.items if i.nodeid.endswith("[gate]")
                            and (g := game_of_nodeid(i.nodeid)) is not None}


def _add_items(state: GameEvalState, parent: GameEvalCollector, items: list[pytest.Item]) -> None:
    if not state.settings.model:
        if not _asked_for_games(state):
            return  # a quiet guest in the user's suite: no items, one header line (pytest_report_header)
        # Without a model nothing is played, so nothing is loaded: one skipped item per game
        # (listing every case would load every dataset and print hundreds of skips in every
        # run of the user's suite).
        names = [g for g in (state.settings.games or GAMES) if g in GAMES]
        for name in names:
            item = GameCaseItem.from_parent(parent, name=f"{name}[all-cases]", nodeid=f"gameeval::{name}[all-cases]",
                                            placeholder=NO_MODEL_REASON)
            item.add_marker(pytest.mark.gameeval)
            item.add_marker(pytest.mark.skip(reason=NO_MODEL_REASON))
            items.append(item)
        return
    for name, reason in state.broken.items():
        item = GameCaseItem.from_parent(parent, name=f"{name}[all-cases]", nodeid=f"gameeval::{name}[all-cases]",
                                        broken=reason)
        item.add_marker(pytest.mark.gameeval)
        items.append(item)
    for name, plan in state.plans.items():
        for case in plan.cases:
            # the node id given whole: pytest parses a stored id (--lf's cache) as path::name[params],
            # and an id built from the name alone would never compare equal to it
            item = GameCaseItem.from_parent(parent, name=case.name, nodeid=f"gameeval::{case.name}", case=case)
            item.add_marker(pytest.mark.gameeval)
            items.append(item)


def _asked_for_games(state: GameEvalState) -> bool:
    """Without a model, game items are listed (skipped) only when the run asks for games:
    --gameeval-only, or a game item's node id on the command line."""
    from pytest_gameeval.pytest_plugin.node_ids import CLAIMED

    return bool(option_value(state.config, "gameeval_only") or state.config.stash.get(CLAIMED, []))


def pytest_report_header(config: pytest.Config) -> str | None:
    state = config.stash.get(STATE, None)
    if state is None or state.settings.model or _asked_for_games(state):
        return None
    return "gameeval: no model given, no game cases collected (--gameeval-model=PROVIDER/MODEL plays them)"


def state_result(state: GameEvalState, item: GameCaseItem) -> Any:
    """This item's case result, playing its whole shard first if needed."""
    case = item.case
    assert case is not None
    if case.name not in state.runner.results:
        session_items = [i for i in item.session.items if isinstance(i, GameCaseItem) and i.case is not None]
        if state.shards is None:
            state.shards = shard_map(
                [i.nodeid for i in session_items], state.settings.cases_per_shard, state.gated_games()
            )
        key = state.shards.get(item.nodeid)
        # in the plan's order, not the session's: a plugin that reorders items (pytest-randomly) would
        # otherwise change which games the sequential gate's first looks see, and so its verdict
        planned = {c.name: n for n, c in enumerate(c for plan in state.plans.values() for c in plan.cases)}
        shard = sorted((i.case for i in session_items if state.shards.get(i.nodeid) == key),
                       key=lambda c: planned.get(c.name, len(planned)))
        # the sequential gate stops a game early only when its gate item will report the verdict:
        # a gate item deselected (-k "not gate", --deselect) leaves every selected case played
        gated = state.gate_metrics[case.game] if case.game in state.gated_games() & state.gates_selected else []
        state.runner.play_shard(shard, gated)  # a gated game: the runner builds its gate
    return state.runner.results[case.name]
