"""`gameeval versions`: each game's version and whether the installed code is that version;
`--check` for CI; `--bump GAME... --note TEXT` gives changed games a new version (a source checkout)."""

from __future__ import annotations

from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError


def version_lines() -> list[str]:
    """`gameeval --version`: the package and every game's version (N+dev.<fingerprint>: changed code)."""
    from pytest_gameeval import __version__
    from pytest_gameeval.games.registry import all_specs

    specs = all_specs()
    width = max(len(s.name) for s in specs)
    return [f"gameeval (pytest-gameeval) {__version__}", "games:"] + [
        f"  {s.name:<{width}}  version {s.version}" for s in specs]


def main(argv: list[str]) -> int:
    parser = CommandParser(
        prog="gameeval versions",
        description="Each game's version and its fingerprint (docs/versions.md). After changing a game's rules, "
                    "prompts, "
        "reply formats, move checks, metrics or data, give it a new version with --bump.",
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 with one line per game whose code is not the code of its version"
    )
    parser.add_argument(
        "--bump",
        nargs="+",
        metavar="GAME",
        default=[],
        help="give these games a new version, record their fingerprints, "
        "raise the package's minor version and add --note to their README changelogs (a source checkout)",
    )
    parser.add_argument("--note", default="", help="with --bump: what changed and which metrics move")
    parser.add_argument("--amend", action="store_true", help="with --bump: keep the version this branch already bumped "
                        "(not yet released) and record the code again")
    args = parser.parse_args(argv)
    from pytest_gameeval.games import version_table

    if args.bump:
        table = version_table.bump(args.bump, args.note, amend=args.amend)
        for game in args.bump:
            print(
                f"{game}: version {table['games'][game]['version']} (fingerprint "
                f"{table['games'][game]['fingerprint'][:12]})"
            )
        print(
            f"pytest-gameeval {table['package']}; wrote {version_table.TABLE}, the package version and the changelogs"
        )
        return 0
    if args.note or args.amend:
        raise GameEvalError("--note and --amend go with --bump GAME")
    found = version_table.problems()
    from pytest_gameeval.engine.versions import installed_fingerprint
    from pytest_gameeval.games.registry import all_specs

    for spec in all_specs():
        print(f"{spec.name:<12} version {spec.version:<16} fingerprint {installed_fingerprint(spec.package)[:12]}")
    for line in found:
        print(f"gameeval: {line}")
    return 1 if found and args.check else 0
