"""The arena's app built from its settings in the process that serves it.

With one process the CLI builds it directly. With `--workers N` uvicorn starts N worker processes
that each import the app by name (`app_from_env`, a factory): the settings reach them as JSON in
an environment variable, and each worker opens its own models and its own pool on the shared
PostgreSQL store. Everything a request needs beyond that lives in the store (store.py): the
signing key, the moves, each session's turn claim.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError

SETTINGS_ENV = "GAMEEVAL_ARENA_SETTINGS"  # set by `gameeval arena --workers N` for its workers


@dataclass
class Settings:
    models: list[str]
    db: str
    hosts: list[str]
    model_args: dict[str, str] = field(default_factory=dict)
    task_args: dict[str, str] = field(default_factory=dict)
    model_timeout: float = 60.0
    abandon_after: float = 1800.0  # seconds


def open_models(settings: Settings) -> dict[str, Any]:
    """Each model by name through inspect (one line naming the model if inspect refuses it)."""
    from inspect_ai.model import get_model

    import pytest_gameeval.backends.registry  # noqa: F401  (registers gameeval/...)

    models = {}
    for name in dict.fromkeys(settings.models):
        try:
            models[name] = get_model(name, **settings.model_args)
        except Exception as e:  # inspect's own message names the unknown provider or missing key
            raise GameEvalError(f"--model {name}: {e}".splitlines()[0]) from None
    return models


def build(settings: Settings) -> tuple[Any, Any]:
    """(the ASGI app, its store) for these settings."""
    from pytest_gameeval.arena.store import Store
    from pytest_gameeval.arena.web import Arena, create_app

    models = open_models(settings)
    store = Store(settings.db)
    arena = Arena(store, models, task_args=settings.task_args, model_timeout=settings.model_timeout,
                  abandon_after=settings.abandon_after)
    return create_app(arena, tuple(settings.hosts)), store


def settings_to_env(settings: Settings) -> None:
    os.environ[SETTINGS_ENV] = json.dumps(asdict(settings))


def app_from_env() -> Any:
    """uvicorn's app factory in each worker process."""
    raw = os.environ.get(SETTINGS_ENV)
    if not raw:
        raise GameEvalError(f"{SETTINGS_ENV} is not set: start workers with `gameeval arena --workers N`")
    app, _store = build(Settings(**json.loads(raw)))
    return app
