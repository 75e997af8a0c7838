"""SpyGame / Who-is-Spy (Liang et al. 2023): `inspect eval tasks/spygame.py --model gameeval/local --limit 2`.

Task arguments: -T guest=spy|villager (spy), players=4, end_players=2, max_words=10,
word_guessing=true, reasoning=true (ablations: false), tom=true, probe=false (content-free bias
probe), voting=secret|public, revote=true, naming=1|2|3, shuffle_seats/shuffle_order/
shuffle_options=true, both_orientations=true, pairs=..., domains=food,animals, seed=0,
style=chat|flat, limit=N, shuffle=false. Hosts are `--model-role host=...`; unbound, the
evaluated model plays them. Bias report: `gameeval bias-report LOG`. See pytest_gameeval/games/spygame/README.md.
"""

from inspect_ai import Task, task

from pytest_gameeval.inspect_ext.task import game_task


@task
def spygame(**task_args) -> Task:
    return game_task("spygame", **task_args)
