"""Tasks registered under the package name (`inspect eval gameeval/askguess`), one per
registered game, so a new game needs no line here."""

from typing import Any, Callable

from inspect_ai import Task, task
from inspect_ai._util.package import get_installed_package_name
from inspect_ai._util.registry import RegistryInfo, registry_add

from pytest_gameeval.games.registry import GAMES


def _task_for(game: str) -> Callable[..., Task]:
    def make(**task_args: Any) -> Task:
        # imported when a task is made: every `inspect` command loads this entry point
        from pytest_gameeval.inspect_ext.task import game_task

        return game_task(game, **task_args)

    make.__name__ = make.__qualname__ = game
    make.__doc__ = f"The {game} game; task arguments as in tasks/{game}.py."
    # inspect prefixes the top-level package name, but not for an editable install
    # of a package whose name differs from the distribution's: then we add it.
    name = game if get_installed_package_name(make) == "gameeval" else f"gameeval/{game}"
    return task(name=name)(make)


def _register_scorer(game: str) -> None:
    """The game's scorer under the name its logs record (`gameeval_GAME`), so that `inspect score LOG`
    finds it for a log of `inspect eval gameeval/GAME` (no task file to load). Made when first used:
    building it reads the game's rules, too slow for every inspect command."""

    def make(**kwargs: Any) -> Any:
        from pytest_gameeval.inspect_ext.scorer import scorer_of

        return scorer_of(game)(**kwargs)

    registry_add(make, RegistryInfo(type="scorer", name=f"gameeval_{game}"))


for _game in GAMES:
    globals()[_game] = _task_for(_game)
    _register_scorer(_game)
