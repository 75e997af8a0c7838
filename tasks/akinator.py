"""Akinator (GameArena): `inspect eval tasks/akinator.py --model gameeval/local --limit 5`.

Task arguments: -T max_questions=20, objects=dog,cat, retrospective=true, variant=-1 (drawn),
seed=0, style=chat|flat, limit=N, shuffle=false. The user seat is `--model-role user=...`;
unbound, the game's reference user plays it (`gameeval/scripted/reference`: answers from the object's
attribute table; opponents=reference, the default); opponents=self has the evaluated model play it
too. A note in the log says who played the seat. See pytest_gameeval/games/akinator/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.scorer import scorer_of
from pytest_gameeval.inspect_ext.task import game_task

# the scorer registered when this file loads: `inspect score LOG` finds it by its name
gameeval_akinator = scorer_of("akinator")


@task
def akinator(**task_args) -> Task:
    return game_task("akinator", **task_args)
