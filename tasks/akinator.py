"""Akinator (GameArena): `inspect eval tasks/akinator.py --model gameeval/local --limit 5`.

Task arguments: -T max_questions=20, objects=dog,cat, retrospective=true, variant=-1 (drawn),
seed=0, style=chat|flat, limit=N, shuffle=false. The user seat is `--model-role user=...`;
unbound, the evaluated model plays it (a note in the log says so). See pytest_gameeval/games/akinator/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.task import game_task


@task
def akinator(**task_args) -> Task:
    return game_task("akinator", **task_args)
