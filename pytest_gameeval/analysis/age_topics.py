"""AGE experiment §4.2 as a command: each model against a fixed adversary across the topic lists.

`gameeval age-topics --models A,B --adversary C --limit 10 --out DIR` plays, for every model,
the AGE task on each topic list with the model in seat 1 and the adversary in every other seat
(`--model-role players=C,C,C`), then writes DIR/age_topics.json (the per-model x per-topic
mean AGE of the evaluated seat, with intervals, the macro average over topics, and Welch tests
between models) and DIR/age_topics.png (a heatmap). `--from-logs DIR` rebuilds both from
earlier inspect logs without playing.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.files import save_figure, write_text
from pytest_gameeval.games.age import SPEC, TOPICS, expand_lists
from pytest_gameeval.games.age import metrics
from pytest_gameeval.metrics.stats import mean

RECORD_KEY = "gameeval_record"


# -- playing ------------------------------------------------------------------------------------
def play_topics(models: list[str], adversary: str, lists: list[str], *, limit: int, epochs: int,
                players: int, max_rounds: int, seed: int, log_dir: str) -> list[str]:
    """Run the AGE task once per list for every model; return the log paths."""
    from inspect_ai import eval as inspect_eval

    from pytest_gameeval.inspect_ext.task import game_task

    args = {"players": players, "max_rounds": max_rounds, "seed": seed, "limit": limit}
    SPEC.parse_options(args)  # bad values fail here, before any model is called
    tasks = [game_task("age", lists=name, **args) for name in lists]
    logs = inspect_eval(
        tasks, model=models, model_roles={"players": [adversary] * (players - 1)},
        epochs=epochs, log_dir=log_dir, display="plain", score_display=False,
    )
    bad = [f"{log.eval.task} ({log.eval.model}): {log.status}" for log in logs if log.status != "success"]
    if bad:
        raise GameEvalError("age-topics: evaluations did not succeed: " + "; ".join(bad))
    return [log.location for log in logs]


# -- reading ----------------------------------------------------------------------------------------
def records_from_logs(paths: list[str]) -> list[GameRecord]:
    """Every AGE game record in the given inspect logs (files, or directories of logs)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    files: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            files += [info.name for info in list_eval_logs(p)]
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise GameEvalError(f"age-topics: no log file or directory {p!r}")
    records = []
    for f in files:
        log = read_eval_log(f)
        if (log.eval.task_args or {}).get("gameeval_game") == "age" or log.eval.task.split("/")[-1] == "age":
            for sample in log.samples or []:
                if RECORD_KEY in (sample.metadata or {}):
                    records.append(GameRecord.from_dict(sample.metadata[RECORD_KEY]))
    if not records:
        raise GameEvalError(f"age-topics: no AGE game records in {', '.join(paths)}")
    return records


# -- the table ----------------------------------------------------------------------------------------
def topic_table(records: list[GameRecord]) -> dict[str, Any]:
    """Mean AGE of the evaluated seat (slot 1) per model and list, and the macro over lists."""
    cells: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    adversaries: set[str] = set()
    for rec in records:
        adversaries.update(s["model"] for s in rec.seats if s["private"].get("slot") != metrics.EVALUATED_SLOT)
        for row in metrics.player_scores(rec):
            if row["slot"] == metrics.EVALUATED_SLOT:
                cells[row["model"]][row["list"]].append(row["age"])
    models = sorted(cells)
    topics = [t for t in TOPICS if any(t in cells[m] for m in models)]
    topics += sorted({t for m in models for t in cells[m]} - set(topics))
    table = {m: {t: mean(cells[m].get(t, [])) for t in topics} for m in models}
    macro = {m: mean([c["value"] for c in table[m].values() if c["value"] is not None]) for m in models}
    pooled = {m: [x for xs in cells[m].values() for x in xs] for m in models}
    return {
        "metric": "AGE score of the evaluated seat (slot 1); cell = mean over games of that list, "
                  "macro = unweighted mean of the list means; Student-t 95% intervals",
        "models": models, "adversary": sorted(adversaries), "topics": topics, "table": table, "macro": macro,
        "welch_age": metrics.welch_tests(pooled),
        "games": len(records), "chat_error_games": sum(r.label == "CE" for r in records),
    }


def write_heatmap(result: dict[str, Any], path: Path) -> None:
    """Mean AGE per model (rows) and topic list (columns), with 95% interval and games per cell."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    models, topics = result["models"], result["topics"] + ["macro"]
    cells = [[result["table"][m].get(t) if t != "macro" else result["macro"][m] for t in topics] for m in models]
    values = np.array([[_value(c) for c in row] for row in cells], dtype=float)
    fig, ax = plt.subplots(figsize=(1.3 * len(topics) + 3.5, 0.9 * len(models) + 2.6))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(topics)), labels=topics, rotation=45, ha="right")
    ax.set_yticks(range(len(models)), labels=models)
    ax.set_xlabel("topic list (macro: unweighted mean of the lists)")
    ax.set_ylabel("evaluated model (seat 1)")
    for i in range(len(models)):
        for j in range(len(topics)):
            ax.text(j, i, _cell_text(cells[i][j], topics[j] == "macro"), ha="center", va="center", fontsize=7,
                    color="white" if np.isnan(values[i, j]) or values[i, j] < 0.6 else "black")
    ax.axvline(len(topics) - 1.5, color="white", linewidth=2)
    adversary = ", ".join(result.get("adversary", [])) or "unknown"
    ax.set_title(f"AGE score of the evaluated model per topic\nevery other seat played by: {adversary}", fontsize=10)
    fig.colorbar(image, ax=ax, label="mean AGE score")
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def _cell_text(cell: dict[str, Any] | None, macro: bool) -> str:
    if cell is None or cell["value"] is None:
        return "no games"
    lo, hi = cell["ci"]
    interval = "" if lo is None else f"\n[{lo:.2f}, {hi:.2f}]"
    return f"{cell['value']:.2f}{interval}\n{'lists' if macro else 'games'}={cell['n']}"


def _value(cell: dict[str, Any] | None) -> float:
    return float("nan") if cell is None or cell["value"] is None else float(cell["value"])


def write_outputs(result: dict[str, Any], out: Path) -> tuple[Path, Path]:
    json_path, png_path = out / "age_topics.json", out / "age_topics.png"
    write_text(json_path, json.dumps(result, indent=2) + "\n")
    write_heatmap(result, png_path)
    return json_path, png_path


# -- the command ----------------------------------------------------------------------------------
def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gameeval age-topics", description=__doc__.split("\n\n")[0])
    p.add_argument("--models", help="comma-separated models to evaluate (seat 1)")
    p.add_argument("--adversary", help="the fixed model in every other seat")
    p.add_argument("--lists", default="topics", help="lists to play (default: the ten topic lists)")
    p.add_argument("--limit", type=int, default=0, help="pairs per list (0: all)")
    p.add_argument("--epochs", type=int, default=1, help="times each pair is played (default 1)")
    p.add_argument("--players", type=int, default=4, help="seats per game, two groups (default 4)")
    p.add_argument("--max-rounds", type=int, default=5, help="rounds before an unsolved game ends (default 5)")
    p.add_argument("--seed", type=int, default=0, help="base seed of the games (default 0)")
    p.add_argument("--log-dir", default="logs/age-topics", help="where the inspect logs go (default logs/age-topics)")
    p.add_argument("--from-logs", nargs="+", metavar="LOG", help="skip playing; read these logs or log directories")
    p.add_argument("--out", required=True, help="directory for age_topics.json and age_topics.png")
    a = p.parse_args(argv)
    if a.from_logs:
        paths = a.from_logs
    else:
        models = [m.strip() for m in (a.models or "").split(",") if m.strip()]
        if not models or not a.adversary:
            raise GameEvalError("age-topics: give --models and --adversary (or --from-logs)")
        if a.limit < 0 or a.epochs < 1:
            raise GameEvalError("age-topics: --limit must be >= 0 and --epochs >= 1")
        lists = expand_lists(a.lists.split(","))
        paths = play_topics(models, a.adversary, lists, limit=a.limit, epochs=a.epochs, players=a.players,
                            max_rounds=a.max_rounds, seed=a.seed, log_dir=a.log_dir)
    result = topic_table(records_from_logs(paths))
    json_path, png_path = write_outputs(result, Path(a.out))
    for m in result["models"]:
        macro = result["macro"][m]
        print(f"{m}: macro AGE {macro['value']:.3f} over {macro['n']} lists" if macro["value"] is not None else f"{m}: no games")
    print(f"wrote {json_path} and {png_path}")
    return 0
