"""`gameeval tournament GAME --models A,B[,C...]`: every model pairing of SpyFall or TofuKingdom
through inspect (resumable), then matrices, points and Bradley–Terry ratings as JSON and PNG
(analysis/rankings/tournament.py; each game's pairings and analysis in games/GAME/tournament.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_gameeval.analysis.rankings.tournament import (
    GAMES,
    analyze,
    check_task_args,
    collect,
    parse_models,
    ranking_line,
    run,
    write_heatmap,
    write_json,
)
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.key_values import key_value_pairs


def main(argv: list[str]) -> int:
    parser = CommandParser(
        prog="gameeval tournament",
        description="Run every model pairing of a game through inspect, then rate the models.",
    )
    parser.add_argument("game", choices=GAMES, help="the game to play: " + " or ".join(GAMES))
    parser.add_argument(
        "--models", required=True, help="comma-separated inspect models, e.g. openai/gpt-4o-mini,gameeval/local"
    )
    parser.add_argument("--log-dir", default=None, help="eval-set log dir (resumable; default logs/tournament-GAME)")
    parser.add_argument("--out", default=None, help="directory for tournament-GAME.json/.png (default: the log dir)")
    parser.add_argument(
        "-T", dest="task_args", action="append", default=[], metavar="KEY=VALUE", help="task argument for every matchup"
    )
    parser.add_argument("--limit", type=int, default=None, help="samples per matchup")
    parser.add_argument(
        "--epochs",
        type=int,
        default=None,
        help="times each sample is played per matchup (inspect's --epochs; default 1)",
    )
    parser.add_argument("--self-play", action="store_true", help="also play each model against itself")
    parser.add_argument("--max-tasks", type=int, default=None, help="matchups run at once (inspect's --max-tasks)")
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for the rating CIs")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    parser.add_argument("--display", default=None, help="inspect display (full, rich, plain, none)")
    parser.add_argument(
        "--analyze-only", action="store_true", help="do not run; only read the logs already in the log dir"
    )
    args = parser.parse_args(argv)
    models = parse_models(args.models)
    task_args = dict(key_value_pairs(args.task_args, "-T", allow_empty_value=True))
    check_task_args(args.game, task_args)
    log_dir = Path(args.log_dir or f"logs/tournament-{args.game}")
    out_dir = Path(args.out) if args.out else log_dir
    if not args.analyze_only:
        ok, _ = run(args.game, models, log_dir, task_args=task_args, limit=args.limit, epochs=args.epochs,
                    self_play=args.self_play, max_tasks=args.max_tasks, display=args.display)
        if not ok:
            raise GameEvalError(
                f"some matchups did not complete; re-run the same command to resume (logs in {log_dir})"
            )
    result = analyze(args.game, collect(args.game, log_dir), models, n_resamples=args.bootstrap, seed=args.seed)
    if result["games"] == 0:
        raise GameEvalError(f"no completed {args.game} games for these models in {log_dir}")
    json_path, png_path = out_dir / f"tournament-{args.game}.json", out_dir / f"tournament-{args.game}.png"
    write_json(result, json_path)
    write_heatmap(result, png_path)
    points = ", ".join(f"{m}: {p['points']}/{p['games']}" for m, p in result["points"].items())
    undecided = result.get("games_without_a_winner")
    undecided_note = f" ({undecided} without a winner, counted for no one)" if undecided else ""
    print(f"{args.game}: {result['games']} games{undecided_note}; points {points}")
    print(ranking_line(result["bradley_terry"]))
    print(f"wrote {json_path} and {png_path}")
    return 0
