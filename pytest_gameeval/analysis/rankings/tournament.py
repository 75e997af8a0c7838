"""Tournaments: every ordered model pair (SpyFall) or camp permutation (TofuKingdom), run
through inspect's eval_set (resumable: re-running with the same log dir completes only what is
missing), then read back from the logs into matrices, points and Bradley–Terry ratings,
written as JSON and a heatmap PNG.

`gameeval tournament spyfall --models A,B,C` / `gameeval tournament tofukingdom --models A,B,C`
(the command: cli/tournament.py). Each game's pairings and analysis are its own
(games/spyfall/tournament.py, games/tofukingdom/tournament.py); this runs them through inspect
and draws the result.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Sequence

from pytest_gameeval.backends.local_weights import canonical_model_name
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.safe_io import save_figure, write_text
from pytest_gameeval.fresh.resolve import with_fresh_data
from pytest_gameeval.games.registry import check_scripted_model, get_spec
from pytest_gameeval.games.spyfall import tournament as spyfall_tournament
from pytest_gameeval.games.tofukingdom import tournament as tofukingdom_tournament
from pytest_gameeval.metrics.ratings import ranking_text
from pytest_gameeval.metrics.tournament import SeatedGame

TOURNAMENTS: dict[str, ModuleType] = {"spyfall": spyfall_tournament, "tofukingdom": tofukingdom_tournament}
GAMES = tuple(TOURNAMENTS)
RECORD_KEY = "gameeval_record"  # as written by inspect_ext/solver.py


@dataclass(frozen=True)
class Matchup:
    """One inspect task: the evaluated model, its side, and the other sides' model roles."""

    game: str
    seats: tuple[tuple[str, str], ...]  # (side, model) for every side, e.g. (("spy", A), ("villager", B))

    @property
    def sides(self) -> dict[str, str]:
        return dict(self.seats)

    @property
    def evaluated_side(self) -> str:
        return self.seats[0][0]

    @property
    def model(self) -> str:
        return self.seats[0][1]

    @property
    def model_roles(self) -> dict[str, str]:
        return {side: model for side, model in self.seats[1:]}

    def title(self, labels: dict[str, str]) -> str:
        """The task's name in logs and `inspect view`: the game and every side's model, so the
        matchups' logs tell apart at a glance (inspect's model column shows only the evaluated)."""
        return f"{self.game} " + " vs ".join(f"{side}={labels.get(model, model)}" for side, model in self.seats)


def short_labels(models: Sequence[str]) -> dict[str, str]:
    """Each model's shortest trailing part of its name ("strong" for gameeval/scripted/strong)
    that no other model of the tournament shares; without '/', which a log's file name drops."""
    out = {}
    for model in models:
        parts = model.split("/")
        for k in range(1, len(parts) + 1):
            label = "-".join(parts[-k:])
            if sum(1 for other in models if "-".join(other.split("/")[-k:]) == label) == 1:
                break
        out[model] = label
    return out


def parse_models(text: str | Sequence[str]) -> list[str]:
    # a local GGUF by its identity (gameeval/local/<file>@<sha>): two local models are two
    # players, and the same file named twice (gameeval/local, gameeval/local/smollm2-135m) is one
    models = [
        canonical_model_name(m.strip()) for m in (text.split(",") if isinstance(text, str) else text) if m.strip()
    ]
    if len(models) < 2:
        raise GameEvalError("a tournament needs at least two models (--models A,B[,C...])")
    dupes = sorted({m for m in models if models.count(m) > 1})
    if dupes:
        raise GameEvalError(f"model(s) listed twice: {', '.join(dupes)}")
    return models


def matchups(game: str, models: Sequence[str], self_play: bool = False) -> list[Matchup]:
    """Every seating of the models the game's tournament plays (its `pairings`)."""
    if game not in TOURNAMENTS:
        raise GameEvalError(f"no tournament for {game!r}; choose from {', '.join(GAMES)}")
    return [Matchup(game, seats) for seats in TOURNAMENTS[game].pairings(models, self_play)]


def check_task_args(game: str, task_args: dict[str, Any]) -> None:
    if "evaluated" in task_args:
        raise GameEvalError("the tournament sets -T evaluated itself (it binds every side); drop it")
    spec = get_spec(game)
    # unknown/ill-typed arguments, bad data: one clear error
    spec.select_rows(spec.parse_options(with_fresh_data(spec.name, task_args)))


def check_models(game: str, models: Sequence[str]) -> None:
    """Errors every game would hit the same way (a scripted strength the game lacks), before play."""
    for model in models:
        check_scripted_model(model, get_spec(game))


def build_tasks(matches: list[Matchup], task_args: dict[str, Any]) -> list[Any]:
    from inspect_ai import task_with

    import gameeval.tasks as registered  # the registered @task functions (gameeval/<game>)

    tasks = []
    labels = short_labels(sorted({model for m in matches for _, model in m.seats}))
    for m in matches:
        task = getattr(registered, m.game)(evaluated=m.evaluated_side, **task_args)
        metadata = {**(task.metadata or {}), "gameeval_matchup": dict(m.seats)}
        tasks.append(
            task_with(
                task,
                name=m.title(labels),
                model=_model(m.model),
                model_roles={side: _model(name) for side, name in m.model_roles.items()},
                metadata=metadata,
            )
        )
    return tasks


def _model(name: str) -> Any:
    """inspect's Model for `name`; a provider that cannot start (a missing API key) is one line."""
    from inspect_ai._util.error import PrerequisiteError
    from inspect_ai.model import get_model

    from pytest_gameeval.inspect_ext.cli_errors import plain_error

    try:
        return get_model(name)
    except PrerequisiteError as e:
        raise GameEvalError(f"{name}: {plain_error(e)}") from None


def run(
    game: str, models: Sequence[str], log_dir: str | Path, *, task_args: dict[str, Any] | None = None,
    limit: int | None = None, epochs: int | None = None, self_play: bool = False,
    max_tasks: int | None = None, display: str | None = None,
) -> tuple[bool, list[Any]]:
    """Run (or resume) every matchup as one eval set in `log_dir`."""
    from inspect_ai import eval_set

    task_args = dict(task_args or {})
    check_task_args(game, task_args)
    check_models(game, models)
    tasks = build_tasks(matchups(game, models, self_play), task_args)
    # every matchup may run at once by default (inspect still bounds connections per model)
    kwargs: dict[str, Any] = {
        "log_dir": str(log_dir),
        "limit": limit,
        "epochs": epochs,
        "max_tasks": max_tasks or len(tasks),
    }
    if display:
        kwargs["display"] = display
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    # eval_set would retry a failed task 10 times; a harness error (a bug, or input every game
    # rejects the same way) fails identically each time, so we retry only failures that may pass.
    for attempt in range(RETRY_ATTEMPTS + 1):
        ok, logs = eval_set(tasks, retry_attempts=0, **kwargs)
        if ok:
            return ok, logs
        deterministic = harness_errors(logs)
        if deterministic:
            raise GameEvalError(
                f"a matchup failed with a harness error, which re-running will not fix: {deterministic[0]}"
            )
        if attempt < RETRY_ATTEMPTS:
            time.sleep(RETRY_WAIT)
    return ok, logs


RETRY_ATTEMPTS, RETRY_WAIT = 10, 30.0  # as eval_set's own defaults
_HARNESS_ERRORS = ("EngineError", "GameEvalError", "ProviderError")


def harness_errors(logs: list[Any]) -> list[str]:
    """One line per failed log whose error is ours (EngineError, GameEvalError) or the provider's
    (ProviderError: a wrong key, a dead server), not the model's."""
    found = []
    for log in logs:
        error = getattr(log, "error", None)
        if log.status == "error" and error is not None:
            last = (error.traceback or "").strip().splitlines()[-1:] or [""]
            if last[0].split(":", 1)[0].split(".")[-1] in _HARNESS_ERRORS:
                found.append(last[0][:300])
    return found


# -- reading the logs back ----------------------------------------------------------------
@dataclass
class Collected:
    games: list[SeatedGame] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)


def sides_of_log(game: str, eval_spec: Any) -> dict[str, str]:
    """side -> model for one log, from its evaluated model, -T evaluated and model roles."""
    all_sides = TOURNAMENTS[game].SIDES
    evaluated = (eval_spec.task_args or {}).get("evaluated") or all_sides[0]
    roles = {k: v.model for k, v in (eval_spec.model_roles or {}).items()}
    return {side: (eval_spec.model if side == evaluated else roles.get(side, eval_spec.model)) for side in all_sides}


def collect(game: str, log_dir: str | Path) -> Collected:
    """Every game record of `game` in the successful logs of `log_dir`."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    out = Collected()
    for info in list_eval_logs(str(log_dir)):
        header = read_eval_log(info, header_only=True)
        if (header.eval.metadata or {}).get("gameeval_game") != game:
            continue
        out.logs.append({"file": Path(info.name).name, "status": header.status, "model": header.eval.model})
        if header.status != "success":
            continue
        log = read_eval_log(info)
        sides = sides_of_log(game, log.eval)
        for sample in log.samples or []:
            if RECORD_KEY in (sample.metadata or {}):
                out.games.append(SeatedGame(sides, GameRecord.from_dict(sample.metadata[RECORD_KEY])))
    return out


# -- analysis -------------------------------------------------------------------------------
def analyze(
    game: str, collected: Collected, models: list[str], *, n_resamples: int = 200, seed: int = 0
) -> dict[str, Any]:
    wanted = set(models)
    games = [g for g in collected.games if set(g.sides.values()) <= wanted]
    analysis = TOURNAMENTS[game].analyze(games, models, n_resamples=n_resamples, seed=seed)
    return {
        "schema": 1, "game": game, "models": models, "games": len(games),
        "logs": collected.logs, **analysis,
    }


# -- outputs ----------------------------------------------------------------------------------
def write_json(result: dict[str, Any], path: Path) -> None:
    write_text(path, json.dumps(result, indent=2, default=str) + "\n")


def _cell_text(value: float | None, ci: list[float | None] | None, n: int) -> str:
    if value is None:
        return "not played"
    interval = "[no interval: n=1]" if not ci or ci[0] is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"
    return f"{value:.2f}\n{interval}\nn={n}"


def write_heatmap(result: dict[str, Any], path: Path) -> None:
    """One heatmap per matrix (value, 95% interval and games per cell, axis titles from the
    analysis) and the Bradley–Terry ratings with their bootstrap intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    mats = list(result["matrices"].items())
    size = max(len(result["models"]), 2)
    fig, axes = plt.subplots(1, len(mats) + 1, figsize=((2.0 + 1.3 * size) * (len(mats) + 1), 2.6 + 1.0 * size))
    for ax, (name, m) in zip(axes, mats):
        values = np.array([[np.nan if v is None else v for v in row] for row in m["value"]], dtype=float)
        is_rate = "rate" in name
        vmax = 1.0 if is_rate else max(1.0, float(np.nanmax(values)) if np.isfinite(values).any() else 1.0)
        im = ax.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0.0, vmax=vmax)
        ax.set_xticks(range(len(m["cols"])), [str(c) for c in m["cols"]], rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(m["rows"])), [str(r) for r in m["rows"]], fontsize=8)
        ax.set_xlabel(m.get("cols_title", "column"), fontsize=9)
        ax.set_ylabel(m.get("rows_title", "row"), fontsize=9)
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                ci = m.get("ci", [[None]])[i][j] if m.get("ci") else None
                text = _cell_text(None if np.isnan(values[i, j]) else float(values[i, j]), ci, m["n"][i][j])
                dark = np.isnan(values[i, j]) or values[i, j] < 0.6 * vmax
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="k" if np.isnan(values[i, j]) else ("w" if dark else "k"),
                )
        ax.set_title(name.replace("_", " "), fontsize=10)
        fig.colorbar(im, ax=ax, fraction=0.046, label=("rate" if is_rate else "rounds"))
    ax = axes[-1]
    bt = result["bradley_terry"]
    names = bt.get("ranking", [])
    y = list(range(len(names)))[::-1]
    ratings = [bt["ratings"][n]["rating"] for n in names]
    lows = [bt["ratings"][n]["ci"][0] for n in names]
    highs = [bt["ratings"][n]["ci"][1] for n in names]
    err = [
        [r - lo if lo is not None else 0 for r, lo in zip(ratings, lows)],
        [hi - r if hi is not None else 0 for r, hi in zip(ratings, highs)],
    ]
    ax.errorbar(ratings, y, xerr=err, fmt="o", capsize=4)
    ax.set_yticks(y, names, fontsize=8)
    ax.set_ylabel("model", fontsize=9)
    ax.set_xlabel("rating: log-odds of winning (mean 0)", fontsize=9)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_title("Bradley–Terry rating (95% bootstrap CI)\n" + ranking_line(bt), fontsize=8, wrap=True)
    fig.suptitle(f"{result['game']} tournament: {result['games']} games. Cells: value, 95% interval, games (n); "
                 "'not played': no games for that pairing (a model meets itself only with --self-play)", fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)


def ranking_line(bt: dict[str, Any]) -> str:
    """The ranking as far as the Bradley–Terry intervals allow: '>' between separated tiers,
    '=' within one (an all-tie says so in words)."""
    groups = bt.get("tiers") or [bt.get("ranking", [])]
    confidence = f"{bt.get('confidence', 0.95):.0%}"
    if len(groups) == 1:
        return f"ranking: all tied ({ranking_text(groups)}): the {confidence} Bradley–Terry intervals overlap"
    return f"ranking: {ranking_text(groups)} ('=': {confidence} Bradley–Terry intervals overlap)"
