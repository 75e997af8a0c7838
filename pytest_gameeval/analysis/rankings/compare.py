"""`gameeval compare A B`: two models on the same cases, seeds and opponents, one verdict per game.

For each game asked, the game's registered inspect task is built once with the task arguments
given (`-T`), and run for model A and for model B (opponent roles bound alike with `--role`, or
the game's declared defaults for both) in one inspect eval set, so inspect runs them concurrently
and the logs can be resumed and read in `inspect view`. Each sample's game record comes back
from the log; the game scores it (`spec.score`), and analysis/verdicts/judge.judge, the same function
the gate and `report diff` use, gives the paired difference B - A of the headline with its
interval and p, both outcome breakdowns and the verdict. Output: compare.json, compare.md
(printed) and compare.png (one row per game: the difference and its interval).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from pytest_gameeval.analysis.verdicts.game import decide, no_played_game
from pytest_gameeval.analysis.verdicts.gate_config import absolute_tolerance
from pytest_gameeval.analysis.verdicts.judge import judge
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.fresh.resolve import with_fresh_data
from pytest_gameeval.games.registry import GAMES, check_scripted_model, get_spec

SIDES = ("A", "B")
META = "gameeval_compare"  # the task metadata naming which side (A or B) a log played
RECORD_KEY = "gameeval_record"  # as inspect_ext/solver.py writes it


def build_tasks(
    games: Sequence[str], models: dict[str, str], task_args: dict[str, Any], roles: dict[str, str],
    solver_of: Callable[[Any, str, str], Any] | None = None, side_args: dict[str, dict[str, Any]] | None = None,
) -> list[Any]:
    """Each game's task for each side; `solver_of(task, game, side)`, when given, is the solver to
    play it with (the budget's, cli/compare_budget.py); `side_args[side]`, task arguments of one
    side only (the contamination probe's fresh side: analysis/rankings/contamination.py)."""
    from inspect_ai import task_with

    import gameeval.tasks as registered
    from pytest_gameeval.analysis.rankings.tournament import _model, short_labels

    distinct = list(dict.fromkeys(models.values()))
    labels = short_labels(distinct) if len(distinct) > 1 else {distinct[0]: distinct[0].split("/")[-1]}
    tasks = []
    for game in games:
        spec = get_spec(game)
        for side in SIDES:  # bad task arguments: one clear error before anything runs
            args = with_fresh_data(game, {**task_args, **(side_args or {}).get(side, {})})
            spec.select_rows(spec.parse_options(args))
        unknown = sorted(set(roles) - spec.bindable_roles())
        if unknown and len(games) == 1:
            raise GameEvalError(
                f"{game} has no model role {', '.join(unknown)}; its roles: "
                f"{', '.join(sorted(spec.bindable_roles())) or 'none'}"
            )
        game_roles = {r: m for r, m in roles.items() if r in spec.bindable_roles()}
        for side in SIDES:
            check_scripted_model(models[side], spec)
            task = getattr(registered, game)(**task_args, **(side_args or {}).get(side, {}))
            metadata = {**(task.metadata or {}), META: side}
            tasks.append(
                task_with(
                    task,
                    name=f"{game} {side}={labels.get(models[side], models[side])}",
                    model=_model(models[side]),
                    model_roles={r: _model(m) for r, m in game_roles.items()},
                    metadata=metadata,
                    **({"solver": solver_of(task, game, side)} if solver_of else {}),
                )
            )
    return tasks


def play(tasks: list[Any], log_dir: Path, *, limit: int | None, epochs: int | None, display: str | None,
         **retries: int | None) -> None:
    """Play the tasks with inspect's eval_set; `retries` (max_retries, timeout, attempt_timeout) override
    the tasks' bounded defaults where given."""
    from inspect_ai import eval_set

    from pytest_gameeval.analysis.rankings.tournament import harness_errors

    # a failed run is re-run by running the same command again (eval_set resumes), not retried here
    kwargs: dict[str, Any] = {
        "log_dir": str(log_dir),
        "max_tasks": len(tasks),
        "retry_attempts": 0,
        "retry_immediate": False,
    }
    given = {"limit": limit, "epochs": epochs, "display": display, **retries}
    kwargs.update({k: v for k, v in given.items() if v is not None})
    ok, logs = eval_set(tasks, **kwargs)
    if not ok:
        errors = harness_errors(logs)
        raise GameEvalError(
            f"a run failed{f': {errors[0]}' if errors else ''}; re-run the same command to resume (logs in {log_dir})"
        )


def cases_from_logs(log_dir: Path) -> tuple[dict[tuple[str, str], list[dict[str, Any]]], dict[tuple[str, str], str],
                                             dict[tuple[str, str], set[str]]]:
    """(game, side) -> case entries in the report's form, (game, side) -> the model that played,
    and (game, side) -> the game versions its logs name ("unknown version" before versions)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    from pytest_gameeval.analysis.report.file import UNKNOWN_VERSION
    from pytest_gameeval.engine.record import GameRecord
    from pytest_gameeval.inspect_ext.solver import NOT_STARTED_KEY

    cases: dict[tuple[str, str], list[dict[str, Any]]] = {}
    models: dict[tuple[str, str], str] = {}
    versions: dict[tuple[str, str], set[str]] = {}
    for info in list_eval_logs(str(log_dir)):
        header = read_eval_log(info, header_only=True)
        meta = header.eval.metadata or {}
        game, side = meta.get("gameeval_game"), meta.get(META)
        if game not in GAMES or side not in SIDES or header.status != "success":
            continue
        spec = get_spec(game)
        models[(game, side)] = header.eval.model
        versions.setdefault((game, side), set()).add(str(meta.get("gameeval_version") or UNKNOWN_VERSION))
        entries = cases.setdefault((game, side), [])
        for sample in read_eval_log(info).samples or []:
            case = f"{sample.id}#{sample.epoch}"
            data = (sample.metadata or {}).get(RECORD_KEY)
            refused = (sample.metadata or {}).get(NOT_STARTED_KEY)
            if data is None and refused:  # the budget did not start it, on either side (cli/compare_budget.py)
                entries.append({"id": case, "game": game, "case": case, "status": "not played", "reason": refused})
                continue
            if data is None:  # the sample failed before its game had a record: a harness error
                entries.append({"id": case, "game": game, "case": case, "status": "error"})
                continue
            record = GameRecord.from_dict(data)
            entries.append({"id": case, "game": game, "case": case, "seed": record.seed, "status": "played",
                            "outcome": record.label, "scores": spec.score(record),
                            "seats": {s["name"]: s["model"] for s in record.seats}, "usage": record.usage})
    return cases, models, versions


def check_versions(games: Sequence[str], versions: dict[tuple[str, str], set[str]], log_dir: Path, *,
                   allow: bool = False) -> dict[str, dict[str, str]]:
    """game -> {"A": version, "B": version} of the logs; a game whose logs (resumed from an earlier
    run) are of another version than each other or than the installed game is one error line,
    unless `allow` (then the verdict line says so)."""
    out: dict[str, dict[str, str]] = {}
    for game in games:
        installed = get_spec(game).version
        sides = {side: ", ".join(sorted(versions.get((game, side), {installed}))) for side in SIDES}
        out[game] = sides
        if not allow and any(v != installed for v in sides.values()):
            raise GameEvalError(
                f"{game}: incomparable game versions: the logs in {log_dir} are of version {sides['A']} (A) and "
                f"{sides['B']} (B), this pytest-gameeval plays version {installed}; re-make them with this version "
                f"(a new --out directory, or delete {log_dir}), or pass --allow-version-change to compare anyway")
    return out


def analyze(
    games: Sequence[str],
    cases: dict[tuple[str, str], list[dict[str, Any]]],
    names: dict[str, str],
    *,
    alpha: float,
    tolerance: float,
    metrics: dict[str, dict[str, tuple[bool | None, float | None]]],
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for game in games:
        a, b = cases.get((game, "A"), []), cases.get((game, "B"), [])
        missing = [f"{side}: {why}" for side, cs in (("A", a), ("B", b))
                   if (why := "no finished run" if not cs else no_played_game(cs))]
        if missing:
            results[game] = decide(game, missing="; ".join(missing)).as_dict()
            continue
        tested: dict[str, tuple[bool | None, float | None]] = {
            key: (True, None) for key in get_spec(game).default_gated
        }
        tested.update(metrics.get(game, {}))
        known = set(get_spec(game).rate_keys) | set(get_spec(game).mean_keys)
        for metric in tested:
            if metric not in known:
                raise GameEvalError(f"metric {game}.{metric}: not a score of {game}")
        # a relative tolerance (higher:5%) is a share of A's value (A is the baseline side)
        specs = [(m, h, absolute_tolerance(tolerance if t is None else t, m, a)) for m, (h, t) in tested.items()
                 if h is not None]
        result = judge(game, a, b, specs, alpha / 2, alpha / 2).as_dict()
        result["seats"] = {
            side: sorted({f"{seat}={model}" for c in cs for seat, model in (c.get("seats") or {}).items()})
            for side, cs in (("A", a), ("B", b))
        }
        results[game] = result
    return {"A": names["A"], "B": names["B"], "alpha": alpha, "tolerance": tolerance, "confidence": 1 - alpha,
            "games": results, "difference": "B - A (B is the 'new' side of every verdict)"}


def write_plot(result: dict[str, Any], path: Path) -> None:
    """One row per game: the headline's difference B - A and its interval, the tolerance band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pytest_gameeval.engine.safe_io import save_figure

    games = list(result["games"])
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.6 * len(games)))
    tol = result["tolerance"]
    ax.axvspan(-tol, tol, color="0.9")
    ax.axvline(0, color="grey", lw=0.8)
    for i, game in enumerate(games[::-1]):
        g = result["games"][game]
        headline = next(iter(g["metrics"].values()), None)
        if headline is None or headline.get("change") is None:
            ax.text(0, i, f"{g['result']}", ha="center", va="center", fontsize=8)
            continue
        low, high = headline["ci"]
        change = headline["change"]
        if low is not None:
            ax.errorbar([change], [i], xerr=[[change - low], [high - change]], fmt="o", capsize=4, color="C0")
        else:
            ax.plot([change], [i], "o", color="C0")
        ax.text(1.02, i, f"{g['result']}, p={headline['p']:.3g}" if headline.get("p") is not None else g["result"],
                transform=ax.get_yaxis_transform(), va="center", fontsize=8)
    ax.set_yticks(
        range(len(games)), [f"{g} ({next(iter(result['games'][g]['metrics']), '–')})" for g in games[::-1]], fontsize=8
    )
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel(
        f"difference of the headline, B − A ({round(100 * result['confidence'])}% interval; grey: same within ±{tol})",
        fontsize=9,
    )
    ax.set_ylim(-0.6, len(games) - 0.4)
    ax.set_title(f"A = {result['A']}\nB = {result['B']}", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
