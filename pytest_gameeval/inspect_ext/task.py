"""Build an inspect Task for any registered game (the tasks/*.py files are thin wrappers)."""

from __future__ import annotations

from typing import Any

from inspect_ai import Task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.inspect_ext.scorer import game_scorer, headline_metric
from pytest_gameeval.inspect_ext.solver import play_game


def game_task(game: str, **task_args: Any) -> Task:
    try:
        spec = get_spec(game)
        options = spec.parse_options({k: v for k, v in task_args.items() if v is not None})
        rows = spec.select_rows(options)
    except GameEvalError as e:
        raise PrerequisiteError(f"gameeval: {e}") from None  # inspect prints it as one line
    samples = [
        Sample(
            id=spec.case_key(row, options),
            input=f"{spec.title}: {spec.case_key(row, options)}",
            metadata={"row_id": row.id, "row": row.data},
        )
        for row in rows
    ]
    return Task(
        name=game,
        dataset=MemoryDataset(samples, name=game),
        solver=play_game(game, options),
        scorer=game_scorer(spec),
        headline_metric=headline_metric(spec),
        metadata={"gameeval_game": game, "gameeval_options": options},
    )
