"""Fixtures for the user's own game tests: the run's settings and one game played now."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.pytest_plugin.items import GameCaseError
from pytest_gameeval.pytest_plugin.state import NO_MODEL_REASON, STATE
from pytest_gameeval.run.settings import Settings

EVALUATED = "evaluated"  # = engine.spec.EVALUATED, not imported to keep this module light


@pytest.fixture(scope="session")
def gameeval_settings(pytestconfig: pytest.Config) -> Settings:
    """The run's settings (model, roles, options, ...)."""
    return pytestconfig.stash[STATE].settings


@pytest.fixture
def gameeval_play(pytestconfig: pytest.Config) -> Any:
    """play(game, row=None, *, trial=0, options=None, roles=None) -> GameRecord.

    Plays one game now. `row`: a dataset row id (default: the first row); `options`: game
    options; `roles`: model role -> model string or Player (e.g. ReplayPlayer), overriding
    --gameeval-model/--gameeval-role. Skips the test when no model is given anywhere."""
    state = pytestconfig.stash[STATE]

    def play(game: str, row: str | None = None, *, trial: int = 0, options: dict[str, Any] | None = None,
             roles: dict[str, Any] | None = None) -> Any:
        from pytest_gameeval.games.registry import get_spec
        from pytest_gameeval.run.plan import Case

        roles = dict(roles or {})
        if EVALUATED not in roles and not state.settings.model:
            pytest.skip(NO_MODEL_REASON)
        try:  # bad arguments or data: one line, not a traceback into our code
            spec = get_spec(game)
            opts = spec.parse_options({"seed": state.settings.seed, **(options or {})})
            rows = spec.rows(opts)
            chosen = rows[0] if row is None else next((r for r in rows if r.id == row), None)
            if chosen is None:
                raise GameEvalError(f"{game}: no row {row!r}")
        except GameEvalError as e:
            pytest.fail(f"gameeval: {e}", pytrace=False)
        case = Case(game, chosen, trial, opts, spec.case_id(chosen, opts, trial), 0)
        result = state.runner.play_now(case, roles)
        if result.status == "not played":  # a seat has no model (no --gameeval-model)
            pytest.skip(result.reason or NO_MODEL_REASON)
        if result.status != "played" or result.record is None:
            raise GameCaseError(result.error)
        return result.record

    return play
