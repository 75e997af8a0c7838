"""`gameeval merge-logs OUT LOG...`: one inspect log from one evaluation spread over processes.

inspect runs one evaluation in one Python process, which uses one core. To use several, run the
same `inspect eval` command in several processes, each on its own part of the dataset
(`--limit 1-50`, `--limit 51-100`, or `--sample-id`), into one log directory. Each process writes
an ordinary log. This command joins them into one log: every sample once, scored again by the
game's own scorer, so the metrics cover every game. The sample selection is recorded as the list
of sample ids, so `inspect eval-retry` on the joined log plays only games that are missing or
failed. Read the joined log with `inspect view`, `inspect log dump` or `read_eval_log`.
"""

from __future__ import annotations

from pytest_gameeval.engine.errors import GameEvalError

# What must be equal for logs to be parts of one evaluation.
_SAME = ("task", "task_version", "task_file", "task_args", "metadata", "model", "model_args", "model_roles", "solver",
         "solver_args")


def _game_of(log) -> str:
    game = (log.eval.metadata or {}).get("gameeval_game")
    if game is None:
        raise GameEvalError(f"{log.location}: not a gameeval task log (no gameeval_game in its metadata)")
    return game


def merge_logs(paths: list[str]):
    """The joined EvalLog (not written). Errors are GameEvalError with one line."""
    from inspect_ai import score
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import get_model

    from pytest_gameeval.games.registry import get_spec
    from pytest_gameeval.inspect_ext.scorer import game_scorer

    if len(paths) < 2:
        raise GameEvalError("merge-logs needs at least two logs")
    try:
        logs = [read_eval_log(p) for p in paths]
    except Exception as e:  # unreadable or not a log: the user's input
        raise GameEvalError(f"cannot read log: {type(e).__name__}: {e}".splitlines()[0]) from None
    first = logs[0]
    game = _game_of(first)
    for log in logs[1:]:
        _game_of(log)
        for field in _SAME:
            if getattr(log.eval, field) != getattr(first.eval, field):
                what = "game options" if field == "metadata" else field  # the task's metadata holds the game's options
                raise GameEvalError(f"{log.location}: its {what} differ from {first.location}'s: "
                                    "not parts of one evaluation")
    samples = [s for log in logs for s in (log.samples or [])]
    seen: set[tuple[object, int]] = set()
    for sample in samples:
        key = (sample.id, sample.epoch)
        if key in seen:
            raise GameEvalError(f"sample {sample.id} (epoch {sample.epoch}) is in more than one log: the parts overlap")
        seen.add(key)
    ids = sorted({s.id for s in samples}, key=str)

    merged = first.model_copy(deep=True)
    merged.samples = sorted(samples, key=lambda s: (s.epoch, str(s.id)))
    merged.eval.config.limit = None
    merged.eval.config.sample_id = ids  # what eval-retry re-selects
    merged.eval.dataset.samples = len(ids)
    merged.eval.dataset.sample_ids = ids
    statuses = [log.status for log in logs]
    merged.status = next((s for s in ("error", "cancelled", "started") if s in statuses), "success")
    merged.error = next((log.error for log in logs if log.error is not None), None)
    merged.stats.started_at = min(log.stats.started_at for log in logs)
    merged.stats.completed_at = max(log.stats.completed_at for log in logs)
    usage = {}
    for log in logs:
        for model, u in log.stats.model_usage.items():
            usage[model] = usage[model] + u if model in usage else u
    merged.stats.model_usage = usage
    # metrics over every game: the game's scorer again (it reads the record in each sample). It calls
    # no model, so inspect gets a keyless stand-in instead of rebuilding the log's model clients
    # (and its roles'), which would need their API keys and base URLs on the joining machine.
    roles, merged.eval.model_roles = merged.eval.model_roles, None
    try:
        scored = score(merged, game_scorer(get_spec(game)), model=get_model("mockllm/model"),
                       action="overwrite", display="none", copy=False)
    finally:
        merged.eval.model_roles = roles
    scored.eval.model_roles = roles
    return scored
