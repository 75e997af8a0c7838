"""SpyGame / Who-is-Spy (Liang et al. 2023): `inspect eval tasks/spygame.py --model gameeval/local --limit 2`.

Task arguments: -T guest=spy|villager (spy), players=4, end_players=2, max_words=10,
word_guessing=true, reasoning=true (ablations: false), tom=true, probe=false (content-free bias
probe), voting=secret|public, revote=true, naming=1|2|3, shuffle_seats/shuffle_order/
shuffle_options=true, both_orientations=true, pairs=..., domains=food,animals, seed=0,
style=chat|flat, limit=N, shuffle=false. Hosts are `--model-role host=...`; unbound, the
game's reference hosts play them (`gameeval/scripted/reference`: they describe their word and vote
by overlap; opponents=reference, the default); opponents=self has the evaluated model play them.
Bias report: `gameeval bias-report LOG`. See pytest_gameeval/games/spygame/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.scorer import scorer_of
from pytest_gameeval.inspect_ext.task import game_task

# the scorer registered when this file loads: `inspect score LOG` finds it by its name
gameeval_spygame = scorer_of("spygame")


@task
def spygame(**task_args) -> Task:
    return game_task("spygame", **task_args)
