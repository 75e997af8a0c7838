"""Tasks registered under the package name: `inspect eval gameeval/askguess`."""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.task import game_task


@task
def askguess(**task_args) -> Task:
    """Ask-Guess (GameEval): -T mode=easy|hard, max_rounds=30, words=apple,bear, seed=0, style=chat|flat, cot=false."""
    return game_task("askguess", **task_args)
