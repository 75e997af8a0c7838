"""AGE experiment §4.2 as a command: each model against a fixed adversary across the topic lists.

`gameeval age-topics --models A,B --adversary C --limit 10 --out DIR` plays, for every model,
the AGE task on each topic list with the model in seat 1 and the adversary in every other seat
(`--model-role players=C,C,C`), then writes DIR/age_topics.json (the per-model x per-topic
mean AGE of the evaluated seat, with intervals, the macro average over topics, and Welch tests
between models) and DIR/age_topics.png (a heatmap). `--from-logs DIR` rebuilds both from
earlier inspect logs without playing. The table and heatmap: games/age/topics.py.
"""

from __future__ import annotations

import os
from pathlib import Path

from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.age import SPEC, expand_lists
from pytest_gameeval.games.age.topics import topic_table, write_outputs

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


# -- the command ----------------------------------------------------------------------------------
def main(argv: list[str]) -> int:
    p = CommandParser(prog="gameeval age-topics", description=__doc__.split("\n\n")[0])
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
        print(
            f"{m}: macro AGE {macro['value']:.3f} over {macro['n']} lists"
            if macro["value"] is not None
            else f"{m}: no games"
        )
    print(f"wrote {json_path} and {png_path}")
    return 0
