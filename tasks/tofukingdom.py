"""TofuKingdom (GameEval §3.3): `inspect eval tasks/tofukingdom.py --model gameeval/local --limit 5`.

Task arguments: -T evaluated=prince|queen|spy (prince): the camp the evaluated model plays,
every role of it; games=20, seed=0, style=chat|flat, limit=N, shuffle=false.
The other camps are `--model-role prince=...`, `--model-role queen=...`, `--model-role spy=...`;
an unbound camp is played by the evaluated model (noted in the log). See pytest_gameeval/games/tofukingdom/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.scorer import scorer_of
from pytest_gameeval.inspect_ext.task import game_task

# the scorer registered when this file loads: `inspect score LOG` finds it by its name
gameeval_tofukingdom = scorer_of("tofukingdom")


@task
def tofukingdom(**task_args) -> Task:
    return game_task("tofukingdom", **task_args)
