"""`gameeval merge-logs OUT LOG...`: the joined log written atomically (inspect_ext/merge_logs.py joins them)."""

from __future__ import annotations

from pathlib import Path

from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.inspect_ext import merge_logs as merging


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="gameeval merge-logs", description=merging.__doc__.splitlines()[0])
    parser.add_argument("output", help="the joined log to write (.eval or .json)")
    parser.add_argument("logs", nargs="+", help="the logs of the parts")
    args = parser.parse_args(argv)
    from inspect_ai.log import write_eval_log

    if Path(args.output).exists():
        raise GameEvalError(f"{args.output} exists; give a new file name")
    if Path(args.output).suffix not in (".eval", ".json"):
        raise GameEvalError(f"{args.output}: the output must end in .eval or .json")
    merged = merging.merge_logs(args.logs)
    output = Path(args.output)
    partial = output.with_name(f".{output.stem}.partial{output.suffix}")
    write_eval_log(merged, str(partial))
    partial.replace(output)  # nothing half-written under the name asked for
    print(f"{args.output}: {len(merged.samples or [])} samples from {len(args.logs)} logs, status {merged.status}")
    return 0
