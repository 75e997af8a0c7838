"""Node ids of game items given on the command line, as pytest printed them
(`pytest "gameeval::askguess[hard-apple-t0]"`, `gameeval::askguess[all-cases]`,
`gameeval::askguess[gate]`, `gameeval::askguess` for a game's items, `gameeval` for all).

The game items have no file behind them, and pytest reads every positional argument as a path
("file or directory not found"). So the plugin claims those arguments before collection (they
leave `config.args`) and keeps only the game items they name; the others are deselected, never
played. Every process does the same from its own command line (xdist workers get the same one)."""

from __future__ import annotations

import pytest

from pytest_gameeval.run.settings import NODE_PREFIX

ROOT = NODE_PREFIX.removesuffix("::")  # "gameeval": every game item
CLAIMED = pytest.StashKey[list[str]]()


def _is_game_id(arg: str, config: pytest.Config) -> bool:
    if arg == ROOT:  # the user's own folder `gameeval/` is theirs: `pytest gameeval` runs its tests
        return not (config.invocation_params.dir / ROOT).exists()
    return arg.startswith(NODE_PREFIX)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    claimed = [a for a in config.args if _is_game_id(a, config)]
    if claimed:
        config.args[:] = [a for a in config.args if not _is_game_id(a, config)]
    config.stash[CLAIMED] = claimed


def _named(nodeid: str, claimed: list[str]) -> bool:
    return any(nodeid == c or c == ROOT or (nodeid.startswith(c + "[") and "[" not in c) for c in claimed)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    claimed = config.stash.get(CLAIMED, [])
    if not claimed:
        return
    game_items = [i for i in items if i.nodeid.startswith(NODE_PREFIX)]
    dropped = [i for i in game_items if not _named(i.nodeid, claimed)]
    unknown = [c for c in claimed if not any(_named(i.nodeid, [c]) for i in game_items)]
    if unknown:
        raise pytest.UsageError(
            f"gameeval: no game item {', '.join(unknown)} in this run (see them with --collect-only -q)")
    if dropped:
        keep = set(map(id, dropped))
        items[:] = [i for i in items if id(i) not in keep]
        config.hook.pytest_deselected(items=dropped)
