"""Ask-Guess (GameEval §3.1): `inspect eval tasks/askguess.py --model gameeval/local --limit 5`.

Task arguments: -T mode=easy|hard (hard), max_rounds=30, words=apple,bear, seed=0,
style=chat|flat, cot=false, limit=N, shuffle=false. The answerer is
`--model-role answerer=...`; unbound, the game's reference answerer plays it (opponents=reference,
the default; opponents=self has the evaluated model answer too, as in the paper).
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.scorer import scorer_of
from pytest_gameeval.inspect_ext.task import game_task

# the scorer registered when this file loads: `inspect score LOG` finds it by its name
gameeval_askguess = scorer_of("askguess")


@task
def askguess(**task_args) -> Task:
    return game_task("askguess", **task_args)
