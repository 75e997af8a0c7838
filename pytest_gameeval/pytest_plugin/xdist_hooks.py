"""pytest-xdist hooks: workers' results merged on the controller, a shard kept on one worker."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from pytest_gameeval.run.settings import game_of_nodeid, shard_map

if TYPE_CHECKING:
    from pytest_gameeval.pytest_plugin.state import GameEvalState


class XdistHooks:
    """Registered only when pytest-xdist is installed (its hooks do not exist otherwise)."""

    def __init__(self, state: GameEvalState):
        self.state = state
        self.scheduler: Any = None
        self.watch: Any = None  # xdist_stall.StallWatch, on the controller

    @pytest.hookimpl(optionalhook=True)
    def pytest_sessionfinish(self) -> None:
        if self.watch is not None:
            self.watch.stop()

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", None) or {}
        if "gameeval" in output:
            self.state.merged.append(json.loads(output["gameeval"]))

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Workers carry the run's token: a worker replacing a crashed one reuses the games its
        predecessor journalled in this run (journal.py)."""
        node.workerinput["gameeval_run"] = self.state.run_token
        from pytest_gameeval.pytest_plugin.selection import WORKER_KEY

        node.workerinput[WORKER_KEY] = self.state.in_selection  # the workers collect what the controller does

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Keep each shard of game cases on one worker (it plays the shard concurrently);
        every other test is scheduled as with --dist load (or loadgroup, when asked for)."""
        if config.getvalue("dist") not in ("load", "loadgroup") or not self.state.settings.model:
            return None
        from xdist.scheduler import LoadGroupScheduling

        state = self.state

        class GameEvalScheduling(LoadGroupScheduling):
            _shards: dict[str, str] | None = None

            def _split_scope(self, nodeid: str) -> str:
                if game_of_nodeid(nodeid) is None:
                    return super()._split_scope(nodeid)
                if self._shards is None:
                    self._shards = shard_map(
                        list(self.collection or []), state.settings.cases_per_shard, state.gated_games()
                    )
                return self._shards.get(nodeid, nodeid)

            def remove_node(self, node: Any) -> str | None:
                """A crashed worker's finished shards are not handed out again. xdist (3.8) puts
                every unit the worker held back in the queue, finished ones too; the replacement
                worker is then sent a finished unit (no items), never reports, is never given more,
                and the run waits for ever (a worker killed once its first shard was done)."""
                workload = self.assigned_work.get(node) or {}
                for scope in [s for s, unit in workload.items() if all(unit.values())]:
                    del workload[scope]
                return super().remove_node(node)

        scheduler = GameEvalScheduling(config, log)
        self.scheduler = scheduler
        from pytest_gameeval.pytest_plugin.xdist_stall import StallWatch

        def on_stall(cause: str) -> None:
            state.timed_out = cause  # the interrupted run's last line says why (report_writer)

        self.watch = StallWatch(scheduler, on_stall).start()
        return scheduler

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        """A worker died while running `crashitem`: every game case of that item's shard that no
        process reports and no journal holds was in flight, and is named as not played."""
        nodeids = list(getattr(sched, "collection", None) or [])
        shards = shard_map(nodeids, self.state.settings.cases_per_shard, self.state.gated_games())
        shard = shards.get(crashitem, crashitem)
        self.state.crashed.update(n for n, s in shards.items() if s == shard)
        self.state.crashed.add(crashitem)
