"""SpyFall (GameEval §3.2): `inspect eval tasks/spyfall.py --model gameeval/local --limit 2`.

Task arguments: -T evaluated=spy|villager (spy), players=6, end_players=2, voting=secret|public,
revote=true, naming=1|2|3, shuffle_seats/shuffle_order/shuffle_options=true,
both_orientations=true, pairs=ipad-iphone,..., source=all|paper|ours, seed=0, style=chat|flat,
limit=N, shuffle=false. The other side is `--model-role villager=...` (or `spy=...` with
evaluated=villager); unbound, the evaluated model plays it. See pytest_gameeval/games/spyfall/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.scorer import scorer_of
from pytest_gameeval.inspect_ext.task import game_task

# the scorer registered when this file loads: `inspect score LOG` finds it by its name
gameeval_spyfall = scorer_of("spyfall")


@task
def spyfall(**task_args) -> Task:
    return game_task("spyfall", **task_args)
