"""How an undefined score value (rounds_st when no game was won) is written in a sample's score,
by the eval's epochs reducer.

With the task's own reducer (mean_defined, scorer.py) an undefined value is null: the sample's
scores stay valid JSON for samples_df and any reader (issue 53). inspect's own reducers
(`--epochs-reducer mean`, median, max, ...) read null as 0, so an eval that asks for one of them
gets inspect's own way instead: NaN in the sample, which every inspect reducer leaves out (a key
undefined in every trial stays undefined). This inspect hook notes, at each gameeval task's start,
whether its eval asked for a reducer that is not ours; the scorer asks `undefined_value()`.
Registered when a gameeval task is built (task.py imports this module)."""

from __future__ import annotations

from inspect_ai.hooks import Hooks, TaskStart, hooks
from inspect_ai.log._samples import sample_active

OURS = ("mean_defined",)  # the reducers that read null as undefined (scorer.py)
_NAN_TASKS: set[str] = set()  # task names whose eval reduces epochs with a reducer of inspect's


@hooks(name="gameeval_epochs", description="gameeval: undefined scores as the eval's epochs reducer reads them")
class EpochsReducer(Hooks):
    async def on_task_start(self, data: TaskStart) -> None:
        if not (data.spec.metadata or {}).get("gameeval_game"):
            return
        names = data.spec.config.epochs_reducer or list(OURS)
        if any(name.rsplit("/", 1)[-1] not in OURS for name in names):
            _NAN_TASKS.add(data.spec.task)
        else:
            _NAN_TASKS.discard(data.spec.task)


def undefined_value() -> float | None:
    """None (null in the log) under our reducer; NaN (inspect's own way) under one of inspect's."""
    active = sample_active()
    return float("nan") if active is not None and active.task in _NAN_TASKS else None
