"""Tournaments: every ordered model pair (SpyFall) or camp permutation (TofuKingdom), run
through inspect's eval_set (resumable: re-running with the same log dir completes only what is
missing), then read back from the logs into matrices, points and Bradley–Terry ratings,
written as JSON and a heatmap PNG.

`gameeval tournament spyfall --models A,B,C` / `gameeval tournament tofukingdom --models A,B,C`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.files import save_figure, write_text
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.backends.local_weights import canonical_model_name
from pytest_gameeval.metrics.ratings import bradley_terry, ranking_text
from pytest_gameeval.metrics.stats import mean, rate

GAMES = ("spyfall", "tofukingdom")
TOFU_CAMPS = ("prince", "queen", "spy")
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
    models = [canonical_model_name(m.strip()) for m in (text.split(",") if isinstance(text, str) else text) if m.strip()]
    if len(models) < 2:
        raise GameEvalError("a tournament needs at least two models (--models A,B[,C...])")
    dupes = sorted({m for m in models if models.count(m) > 1})
    if dupes:
        raise GameEvalError(f"model(s) listed twice: {', '.join(dupes)}")
    return models


def matchups(game: str, models: Sequence[str], self_play: bool = False) -> list[Matchup]:
    """SpyFall: every ordered pair (M_a spy, M_b villagers). TofuKingdom: with three or more
    models every ordered choice of three distinct models for (Prince, Queen, Spy) camps — the
    six permutations for three models; with two models, the six assignments using both."""
    if game == "spyfall":
        pairs = itertools.product(models, repeat=2) if self_play else itertools.permutations(models, 2)
        return [Matchup(game, (("spy", a), ("villager", b))) for a, b in pairs]
    if game == "tofukingdom":
        if len(models) >= 3:
            triples = list(itertools.permutations(models, 3))
        else:
            triples = [t for t in itertools.product(models, repeat=3) if len(set(t)) == len(models)]
        if self_play:
            triples += [(m, m, m) for m in models]
        return [Matchup(game, tuple(zip(TOFU_CAMPS, t))) for t in triples]
    raise GameEvalError(f"no tournament for {game!r}; choose from {', '.join(GAMES)}")


def check_task_args(game: str, task_args: dict[str, Any]) -> None:
    if "evaluated" in task_args:
        raise GameEvalError("the tournament sets -T evaluated itself (it binds every side); drop it")
    spec = get_spec(game)
    spec.select_rows(spec.parse_options(task_args))  # unknown/ill-typed arguments, bad data: one clear error


def check_models(game: str, models: Sequence[str]) -> None:
    """Errors every game would hit the same way (a scripted strength the game lacks), before play."""
    for model in models:
        get_spec(game).check_scripted_model(model)


def build_tasks(matches: list[Matchup], task_args: dict[str, Any]) -> list[Any]:
    import gameeval.tasks as registered  # the registered @task functions (gameeval/<game>)
    from inspect_ai import task_with

    tasks = []
    labels = short_labels(sorted({model for m in matches for _, model in m.seats}))
    for m in matches:
        task = getattr(registered, m.game)(evaluated=m.evaluated_side, **task_args)
        metadata = {**(task.metadata or {}), "gameeval_matchup": dict(m.seats)}
        tasks.append(task_with(task, name=m.title(labels), model=_model(m.model),
                               model_roles={side: _model(name) for side, name in m.model_roles.items()}, metadata=metadata))
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
    kwargs: dict[str, Any] = {"log_dir": str(log_dir), "limit": limit, "epochs": epochs, "max_tasks": max_tasks or len(tasks)}
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
            raise GameEvalError(f"a matchup failed with a harness error, which re-running will not fix: {deterministic[0]}")
        if attempt < RETRY_ATTEMPTS:
            time.sleep(RETRY_WAIT)
    return ok, logs


RETRY_ATTEMPTS, RETRY_WAIT = 10, 30.0  # as eval_set's own defaults
_HARNESS_ERRORS = ("EngineError", "GameEvalError")


def harness_errors(logs: list[Any]) -> list[str]:
    """One line per failed log whose error is ours (EngineError, GameEvalError), not the model's."""
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
class Game:
    sides: dict[str, str]  # side -> model name as given on the command line
    record: GameRecord


@dataclass
class Collected:
    games: list[Game] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)


def sides_of_log(game: str, eval_spec: Any) -> dict[str, str]:
    """side -> model for one log, from its evaluated model, -T evaluated and model roles."""
    evaluated = (eval_spec.task_args or {}).get("evaluated") or ("spy" if game == "spyfall" else "prince")
    roles = {k: v.model for k, v in (eval_spec.model_roles or {}).items()}
    all_sides = ("spy", "villager") if game == "spyfall" else TOFU_CAMPS
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
                out.games.append(Game(sides, GameRecord.from_dict(sample.metadata[RECORD_KEY])))
    return out


# -- analysis -------------------------------------------------------------------------------
def _matrix(models: list[str], cell: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    return {
        "rows": models, "cols": models,
        "value": [[cell.get((a, b), {}).get("value") for b in models] for a in models],
        "ci": [[cell.get((a, b), {}).get("ci") for b in models] for a in models],
        "n": [[cell.get((a, b), {}).get("n", 0) for b in models] for a in models],
    }


def _points(models: list[str], won: dict[str, int], played: dict[str, int]) -> dict[str, Any]:
    out = {}
    for m in models:
        r = rate(won[m], played[m])
        ci = [None if x is None else x * played[m] for x in r["ci"]]
        out[m] = {"points": won[m], "games": played[m], "rate": r, "points_ci": ci}
    return out


def _clip(ci: list[float | None], low: float, high: float | None) -> list[float | None]:
    return [None if x is None else max(x, low) if high is None else min(max(x, low), high) for x in ci]


def analyze_spyfall(games: list[Game], models: list[str], *, n_resamples: int, seed: int) -> dict[str, Any]:
    from pytest_gameeval.games.spyfall.metrics import pair_metrics, spy_living_round

    by_pair: dict[tuple[str, str], list[GameRecord]] = defaultdict(list)
    won: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    comparisons = []
    for g in games:
        spy, villager = g.sides["spy"], g.sides["villager"]
        by_pair[(spy, villager)].append(g.record)
        spy_won = g.record.outcome["winner"] == "spy"
        winner = spy if spy_won else villager
        for m in {spy, villager}:
            played[m] += 1
        won[winner] += 1
        if spy != villager:
            comparisons.append([(winner, villager if spy_won else spy)])
    win_cells, round_cells, per_pair = {}, {}, {}
    for (a, b), records in by_pair.items():
        pm = pair_metrics(records)
        overall = rate(sum(r.outcome["winner"] == "spy" for r in records), len(records))
        w_avg, l_avg = pm["w_avg"], pm["l_avg"]
        if pm["pairs"] == 1:  # one word pair: its games are the only units, so the interval is over games
            w_avg = {**overall, "method": "wilson over the games of the one word pair"}
            l_avg = {**mean([float(spy_living_round(r)) for r in records]), "method": "t over the games of the one word pair"}
        # t-intervals over few word pairs can leave the possible range: clip them to it
        win_cells[(a, b)] = {**w_avg, "ci": _clip(w_avg["ci"], 0.0, 1.0), "n": len(records)}
        round_cells[(a, b)] = {**l_avg, "ci": _clip(l_avg["ci"], 0.0, None), "n": len(records)}
        per_pair[f"{a} (spy) vs {b} (villagers)"] = {
            "spy": a, "villagers": b, "games": len(records), "word_pairs": pm["pairs"],
            "spy_win_rate_avg_over_pairs": pm["w_avg"], "spy_living_round_avg_over_pairs": pm["l_avg"],
            "spy_win_rate_all_games": overall,
            "mean_spy_living_round_all_games": sum(spy_living_round(r) for r in records) / len(records),
        }
    return {
        "matrices": {
            "spy_win_rate": {"description": "row model plays the spy, column model every villager; average over word pairs",
                             "rows_title": "spy played by", "cols_title": "villagers played by", **_matrix(models, win_cells)},
            "spy_living_round": {"description": "rounds the spy survived; average over word pairs",
                                 "rows_title": "spy played by", "cols_title": "villagers played by", **_matrix(models, round_cells)},
        },
        "matchups": per_pair,
        "points": _points(models, won, played),
        "bradley_terry": bradley_terry(comparisons, models, n_resamples=n_resamples, seed=seed),
    }


def analyze_tofukingdom(games: list[Game], models: list[str], *, n_resamples: int, seed: int) -> dict[str, Any]:
    beat: dict[tuple[str, str], list[int]] = defaultdict(list)  # (a, b) -> 1 if a's camp won, per game
    camp_results: dict[tuple[str, str], list[int]] = defaultdict(list)  # (model, camp) -> wins
    won: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    comparisons = []
    per_perm: dict[str, dict[str, int]] = defaultdict(lambda: {c: 0 for c in TOFU_CAMPS})
    for g in games:
        winner_camp = g.record.outcome["winner"]
        winner = g.sides[winner_camp]
        per_perm[" / ".join(f"{c}={g.sides[c]}" for c in TOFU_CAMPS)][winner_camp] += 1
        for m in set(g.sides.values()):
            played[m] += 1
        won[winner] += 1
        for camp, m in g.sides.items():
            camp_results[(m, camp)].append(int(camp == winner_camp))
        for a, b in itertools.permutations(set(g.sides.values()), 2):
            beat[(a, b)].append(int(a == winner))
        comparisons.append([(winner, loser) for loser in sorted(set(g.sides.values()) - {winner})])
    pair_cells = {k: {**rate(sum(v), len(v)), "n": len(v)} for k, v in beat.items()}
    camp_cells = {k: {**rate(sum(v), len(v)), "n": len(v)} for k, v in camp_results.items()}
    camp_matrix = {
        "rows": models, "cols": list(TOFU_CAMPS),
        "value": [[camp_cells.get((m, c), {}).get("value") for c in TOFU_CAMPS] for m in models],
        "ci": [[camp_cells.get((m, c), {}).get("ci") for c in TOFU_CAMPS] for m in models],
        "n": [[camp_cells.get((m, c), {}).get("n", 0) for c in TOFU_CAMPS] for m in models],
    }
    return {
        "matrices": {
            "pairwise_win_rate": {"description": "share of games with both models seated that the row model's camp won (the column model's lost)",
                                  "rows_title": "model whose camp won", "cols_title": "against the model whose camp lost", **_matrix(models, pair_cells)},
            "camp_win_rate": {"description": "win rate of the row model when playing the column camp",
                              "rows_title": "model", "cols_title": "camp it played", **camp_matrix},
        },
        "matchups": dict(per_perm),
        "points": _points(models, won, played),
        "bradley_terry": bradley_terry(comparisons, models, n_resamples=n_resamples, seed=seed),
    }


def analyze(game: str, collected: Collected, models: list[str], *, n_resamples: int = 200, seed: int = 0) -> dict[str, Any]:
    wanted = set(models)
    games = [g for g in collected.games if set(g.sides.values()) <= wanted]
    analysis = (analyze_spyfall if game == "spyfall" else analyze_tofukingdom)(games, models, n_resamples=n_resamples, seed=seed)
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
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color="k" if np.isnan(values[i, j]) else ("w" if dark else "k"))
        ax.set_title(name.replace("_", " "), fontsize=10)
        fig.colorbar(im, ax=ax, fraction=0.046, label=("rate" if is_rate else "rounds"))
    ax = axes[-1]
    bt = result["bradley_terry"]
    names = bt.get("ranking", [])
    y = list(range(len(names)))[::-1]
    ratings = [bt["ratings"][n]["rating"] for n in names]
    lows = [bt["ratings"][n]["ci"][0] for n in names]
    highs = [bt["ratings"][n]["ci"][1] for n in names]
    err = [[r - lo if lo is not None else 0 for r, lo in zip(ratings, lows)], [hi - r if hi is not None else 0 for r, hi in zip(ratings, highs)]]
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


# -- the command ------------------------------------------------------------------------------
def _task_args(pairs: list[str]) -> dict[str, str]:
    out = {}
    for p in pairs:
        if "=" not in p:
            raise GameEvalError(f"task argument {p!r} must look like key=value")
        k, v = p.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gameeval tournament", description="Run every model pairing of a game through inspect, then rate the models.")
    parser.add_argument("game", choices=GAMES, help="the game to play: " + " or ".join(GAMES))
    parser.add_argument("--models", required=True, help="comma-separated inspect models, e.g. openai/gpt-4o-mini,gameeval/local")
    parser.add_argument("--log-dir", default=None, help="eval-set log dir (resumable; default logs/tournament-GAME)")
    parser.add_argument("--out", default=None, help="directory for tournament-GAME.json/.png (default: the log dir)")
    parser.add_argument("-T", dest="task_args", action="append", default=[], metavar="KEY=VALUE", help="task argument for every matchup")
    parser.add_argument("--limit", type=int, default=None, help="samples per matchup")
    parser.add_argument("--epochs", type=int, default=None, help="times each sample is played per matchup (inspect's --epochs; default 1)")
    parser.add_argument("--self-play", action="store_true", help="also play each model against itself")
    parser.add_argument("--max-tasks", type=int, default=None, help="matchups run at once (inspect's --max-tasks)")
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for the rating CIs")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    parser.add_argument("--display", default=None, help="inspect display (full, rich, plain, none)")
    parser.add_argument("--analyze-only", action="store_true", help="do not run; only read the logs already in the log dir")
    args = parser.parse_args(argv)
    models = parse_models(args.models)
    task_args = _task_args(args.task_args)
    check_task_args(args.game, task_args)
    log_dir = Path(args.log_dir or f"logs/tournament-{args.game}")
    out_dir = Path(args.out) if args.out else log_dir
    if not args.analyze_only:
        ok, _ = run(args.game, models, log_dir, task_args=task_args, limit=args.limit, epochs=args.epochs,
                    self_play=args.self_play, max_tasks=args.max_tasks, display=args.display)
        if not ok:
            raise GameEvalError(f"some matchups did not complete; re-run the same command to resume (logs in {log_dir})")
    result = analyze(args.game, collect(args.game, log_dir), models, n_resamples=args.bootstrap, seed=args.seed)
    if result["games"] == 0:
        raise GameEvalError(f"no completed {args.game} games for these models in {log_dir}")
    json_path, png_path = out_dir / f"tournament-{args.game}.json", out_dir / f"tournament-{args.game}.png"
    write_json(result, json_path)
    write_heatmap(result, png_path)
    points = ", ".join(f"{m}: {p['points']}/{p['games']}" for m, p in result["points"].items())
    print(f"{args.game}: {result['games']} games; points {points}")
    print(ranking_line(result["bradley_terry"]))
    print(f"wrote {json_path} and {png_path}")
    return 0
