"""Whether this run's command line can select game items at all.

A project whose ini names a model gets game items in a plain `pytest` run; but `pytest
tests/test_mine.py::test_one` (an id pasted from pytest) or `pytest tests/` asks for the user's own
tests only, and collecting every game case beside them would play them (paid calls). So game items
come only when the selection can include them: `--gameeval-only`, a game item's node id
(node_ids.py), no path on the command line (pytest's testpaths or the current directory), or a
path that holds the whole project (`pytest .` from the rootdir).

Under xdist the controller decides and its workers take its answer (xdist_hooks.py): a worker's
collection must be the controller's."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gameeval.pytest_plugin.options import option_value

WORKER_KEY = "gameeval_games_selected"  # in xdist's workerinput


def games_in_selection(config: pytest.Config) -> bool:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKER_KEY in workerinput:
        return bool(workerinput[WORKER_KEY])
    from pytest_gameeval.pytest_plugin.node_ids import CLAIMED

    if option_value(config, "gameeval_only") or config.stash.get(CLAIMED, []):
        return True
    if config.args_source != pytest.Config.ArgsSource.ARGS:  # no path given: testpaths or the current dir
        return True
    paths = [a.split("::", 1)[0] for a in config.args]
    return not paths or any(_holds_the_project(config, p) for p in paths)


def _holds_the_project(config: pytest.Config, arg: str) -> bool:
    path = Path(arg)
    path = (path if path.is_absolute() else config.invocation_params.dir / path).resolve()
    root = config.rootpath.resolve()
    return path.is_dir() and (path == root or path in root.parents)
