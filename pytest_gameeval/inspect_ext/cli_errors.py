"""One error line for bad input under inspect's CLI, whatever its display.

inspect's CLI prints a PrerequisiteError as one line without a traceback, but through rich's
console, which `--display none` silences: then the user saw nothing and a bare exit status 1.
So under that display we print the line to stderr ourselves.
"""

from __future__ import annotations

import sys

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.util import display_type
from rich.text import Text


def one_line_error(message: str) -> PrerequisiteError:
    """The exception to raise for a user's bad input (task argument, model name, data file)."""
    if display_type() == "none":
        print(message, file=sys.stderr, flush=True)
    return PrerequisiteError(Text(message))  # Text: brackets in paths are not rich markup
