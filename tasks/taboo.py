"""Taboo (GameArena): `inspect eval tasks/taboo.py --model gameeval/local --limit 5`.

Task arguments: -T max_rounds=5, words=ID,ID, retrospective=true, variant=-1 (drawn),
seed=0, style=chat|flat, limit=N, shuffle=false. The user seat is `--model-role user=...`;
unbound, the evaluated model plays it (a note in the log says so). See pytest_gameeval/games/taboo/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.task import game_task


@task
def taboo(**task_args) -> Task:
    return game_task("taboo", **task_args)
