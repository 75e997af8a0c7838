"""SpyGPT description judging (Liang et al. 2023): `inspect eval tasks/spygpt.py --model gameeval/local --limit 5`.

Task arguments: -T mode=both|aggressive|conservative (both), targets=apple,banana, seed=0,
style=chat|flat, limit=N, shuffle=false. The judge is `--model-role judge=...`; unbound, the
evaluated model judges its own descriptions (a warning note in the log). See pytest_gameeval/games/spygpt/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.scorer import scorer_of
from pytest_gameeval.inspect_ext.task import game_task

# the scorer registered when this file loads: `inspect score LOG` finds it by its name
gameeval_spygpt = scorer_of("spygpt")


@task
def spygpt(**task_args) -> Task:
    return game_task("spygpt", **task_args)
