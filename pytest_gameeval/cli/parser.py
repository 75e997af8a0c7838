"""The argument parser every `gameeval` command uses: an option it does not know is named as such,
by the command that was given it, with the nearest known option.

argparse alone reads `gameeval report diff --formt json a b` as the positionals `json a` and an extra
`b`, and its error then comes from the parent parser with the parent's usage; and a mistyped
option before the command (`gameeval --verison report`) becomes "COMMAND is required".
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence
from typing import Any

_NUMBER = re.compile(r"^-\d|^-\.\d")


class CommandParser(argparse.ArgumentParser):
    """argparse.ArgumentParser that names an unknown option first (its subparsers are of this class too)."""

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        if args is not None:
            unknown = unknown_option(self, list(args))
            if unknown:
                self.error(unknown)
        return super().parse_known_args(args, namespace)


def _has_subcommands(parser: argparse.ArgumentParser) -> bool:
    return any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)


def _known(token: str, options: list[str]) -> bool:
    name = token.split("=", 1)[0]
    if name.startswith("--"):
        return any(o.startswith(name) for o in options if o.startswith("--"))  # argparse takes unique prefixes
    return any(token.startswith(o) for o in options if not o.startswith("--"))  # -n2, -Tkey=value


def unknown_option(parser: argparse.ArgumentParser, args: list[str]) -> str | None:
    """'unknown option --formt (did you mean --format?)' for the first option `parser` does not know,
    or None. A parser with subcommands checks only the tokens before its subcommand."""
    options = list(parser._option_string_actions)
    nested = _has_subcommands(parser)
    for token in args:
        if token == "--":
            return None
        if not token.startswith("-") or token == "-" or _NUMBER.match(token):
            if nested:  # the subcommand: its own parser checks the rest
                return None
            continue
        if not _known(token, options):
            name = token.split("=", 1)[0]
            close = difflib.get_close_matches(name, options, n=1)
            return f"unknown option {name}" + (f" (did you mean {close[0]}?)" if close else "")
    return None
