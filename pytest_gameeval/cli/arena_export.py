"""`gameeval arena export --db URL OUT.eval [--report OUT.json] [--model M]`: the finished arena
sessions as inspect logs and a report (arena/export.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_gameeval.arena import export
from pytest_gameeval.arena.export import eval_log, finished_by_game, report
from pytest_gameeval.arena.store import Store
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import get_spec


def main(argv: list[str]) -> int:
    parser = CommandParser(
        prog="gameeval arena export", description=export.__doc__.splitlines()[0].split(": ", 1)[1]
    )
    parser.add_argument(
        "output", help="the inspect log to write (.eval or .json); with several games, OUT-GAME.eval each"
    )
    parser.add_argument("--db", required=True, help="the arena's store: a SQLite file or a postgresql:// URL")
    parser.add_argument("--model", help="the model whose games to export (needed when the store holds several)")
    parser.add_argument("--report", help="also write the report JSON (the pytest plugin's schema) here")
    args = parser.parse_args(argv)
    from inspect_ai.log import write_eval_log

    from pytest_gameeval.analysis.report.file import write_json_atomic

    output = Path(args.output)
    if output.suffix not in (".eval", ".json"):
        raise GameEvalError(f"{output}: the output must end in .eval or .json")
    if not output.parent.is_dir():
        raise GameEvalError(f"{output}: directory {output.parent} does not exist")
    store = Store(args.db)
    try:
        model, by_game = finished_by_game(store, args.model)
    finally:
        store.close()
    targets = {
        g: output if len(by_game) == 1 else output.with_name(f"{output.stem}-{g}{output.suffix}") for g in by_game
    }
    for path in [*targets.values(), *([Path(args.report)] if args.report else [])]:
        if path.exists():
            raise GameEvalError(f"{path} exists; give a new file name")
    for game, sessions in sorted(by_game.items()):
        log = eval_log(get_spec(game), model, sessions)
        partial = targets[game].with_name(f".{targets[game].stem}.partial{targets[game].suffix}")
        write_eval_log(log, str(partial))
        partial.replace(targets[game])  # nothing half-written under the name asked for
        print(f"{targets[game]}: {len(sessions)} {game} games against {model}")
    if args.report:
        write_json_atomic(args.report, report(by_game, model))
        print(f"{args.report}: report of {sum(map(len, by_game.values()))} games")
    return 0
