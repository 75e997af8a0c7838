"""AGE, adversarial word guessing: `inspect eval tasks/age.py --model gameeval/local --limit 5`.

The evaluated model plays one seat; the other seats are bound with
`--model-role players=A,B,C` (seats 2, 3, 4 in binding order) or one role per seat
(`--model-role seat2=A`); unbound seats are played by the evaluated model. Speaking order and
groups are drawn at random per game. Task arguments: -T lists=list_a|topics|all|business,...,
pairs=ID,..., players=4, max_rounds=5, cot=false, seed=0, style=chat|flat, limit=N, shuffle=false.
See pytest_gameeval/games/age/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.scorer import scorer_of
from pytest_gameeval.inspect_ext.task import game_task

# the scorer registered when this file loads: `inspect score LOG` finds it by its name
gameeval_age = scorer_of("age")


@task
def age(**task_args) -> Task:
    return game_task("age", **task_args)
