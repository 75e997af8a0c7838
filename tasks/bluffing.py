"""Bluffing (GameArena): `inspect eval tasks/bluffing.py --model gameeval/local --limit 5`.

Task arguments: -T max_questions=5, statements=ID,ID, retrospective=true, variant=-1 (drawn),
seed=0, style=chat|flat, limit=N, shuffle=false. The user seat is `--model-role user=...`;
unbound, the game's reference user plays it (`gameeval/scripted/reference`: defends the statement with
its persona facts; opponents=reference, the default); opponents=self has the evaluated model play it
too. A note in the log says who played the seat. See pytest_gameeval/games/bluffing/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.scorer import scorer_of
from pytest_gameeval.inspect_ext.task import game_task

# the scorer registered when this file loads: `inspect score LOG` finds it by its name
gameeval_bluffing = scorer_of("bluffing")


@task
def bluffing(**task_args) -> Task:
    return game_task("bluffing", **task_args)
