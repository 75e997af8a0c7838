"""Build an inspect Task for any registered game (the tasks/*.py files are thin wrappers)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import model_roles
from inspect_ai.model._model import active_model

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.given_options import check_given
from pytest_gameeval.engine.progress import progress_seconds
from pytest_gameeval.engine.user_data import check_no_blank_words
from pytest_gameeval.fresh.resolve import is_fresh, resolve_data
from pytest_gameeval.games.registry import check_scripted_model, get_spec
from pytest_gameeval.inspect_ext import ci_progress, end_screen  # noqa: F401  (ci_progress registers its hooks)
from pytest_gameeval.inspect_ext.cli_errors import one_line_error
from pytest_gameeval.inspect_ext.scorer import game_scorer, headline_metric, mean_defined, score_tag
from pytest_gameeval.inspect_ext.solver import play_game
from pytest_gameeval.transport.provider import retry_config

end_screen.install()  # the end-of-run box answers first (end_screen.py); the log keeps every score


def _user_path(given: str) -> str:
    """A data file named on the command line, as an absolute path. inspect runs a task file in
    that file's directory, so a relative path not found there is taken from the user's shell
    directory ($PWD)."""
    path = Path(given).expanduser()
    shell_dir = os.environ.get("PWD")
    if not path.is_absolute() and not path.exists() and shell_dir and (Path(shell_dir) / path).exists():
        path = Path(shell_dir) / path
    return str(path.absolute())


def game_task(game: str, **task_args: Any) -> Task:
    try:
        if is_fresh(task_args.get("data")):  # fresh:SEED -> the fresh set's file (docs/fresh-cases.md)
            task_args["data"] = resolve_data(game, task_args["data"])
        elif task_args.get("data"):
            task_args["data"] = _user_path(str(task_args["data"]))
        spec = get_spec(game)
        given = {k: v for k, v in task_args.items() if v is not None}
        check_given(spec.options_class.declared(), given)  # -T max_rounds=1.5, limit=-1: one line, as the plugin
        options = spec.parse_options(given)
        if task_args.get("data"):
            check_no_blank_words(task_args["data"])
        rows = spec.select_rows(options)
        progress_seconds()  # a bad GAMEEVAL_PROGRESS_SECONDS: one line now, not in a hook mid-run
        for model in _models_of_this_eval():  # e.g. a scripted strength the game lacks: one line, before play
            check_scripted_model(model, spec)
    except GameEvalError as e:
        raise one_line_error(f"gameeval: {e}") from None
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
        # trials (--epochs N) averaged over the trials that define each key (an undefined one is null)
        epochs=Epochs(1, reducer=mean_defined()),
        headline_metric=headline_metric(spec),
        # inspect view's log list heads its score column only "SCORE": the tag beside it names it
        tags=[score_tag(spec)],
        version=spec.version,  # the game's version (docs/versions.md): inspect's task_version
        # bounded retries by default (inspect retries forever): --max-retries, --timeout and
        # --attempt-timeout on the command line override them (docs/live-apis.md)
        config=retry_config(),
        metadata={"gameeval_game": game, "gameeval_options": options.as_dict(),
                  "gameeval_version": spec.version, "gameeval_fingerprint": spec.fingerprint},
    )


def _models_of_this_eval() -> list[str]:
    """The evaluated model and the role models of the eval that builds this task (none when the
    task is built outside an eval, e.g. by the tournament, which checks its models itself)."""
    evaluated = active_model()
    return [str(m) for m in ([evaluated] if evaluated else []) + list(model_roles().values())]
