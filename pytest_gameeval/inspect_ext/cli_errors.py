"""One error line for bad input under inspect's CLI, whatever its display.

inspect's CLI prints a PrerequisiteError as one line without a traceback, but through rich's
console, which `--display none` silences: then the user saw nothing and a bare exit status 1.
So under that display we print the line to stderr ourselves.
"""

from __future__ import annotations

import sys

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.util import display_type
from rich.errors import MarkupError
from rich.text import Text


def one_line_error(message: str) -> PrerequisiteError:
    """The exception to raise for a user's bad input (task argument, model name, data file)."""
    if display_type() == "none":
        print(message, file=sys.stderr, flush=True)
    return PrerequisiteError(Text(message))  # Text: brackets in paths are not rich markup


def plain_error(error: BaseException) -> str:
    """An inspect error (e.g. a missing API key) as one plain line for our own messages: its rich
    markup (`[bold][blue]OPENAI_API_KEY[/blue][/bold]`), 'ERROR:' prefixes and line breaks dropped."""
    text = str(error)
    try:
        text = Text.from_markup(text).plain
    except MarkupError:  # brackets that are not markup: keep the text as it is
        pass
    parts = [line.strip().removeprefix("ERROR:").strip() for line in text.splitlines()]
    return ": ".join(p for p in parts if p)


_said: set[str] = set()


def say_provider_failure(error: BaseException) -> None:
    """A sample lost to the provider (a wrong key, a dead server): inspect shows the exception in a
    traceback wrapped to the terminal's width; CI logs get the cause once, on one line of stderr."""
    line = f"gameeval: provider failure: {getattr(error, 'cause', error)}"
    if line not in _said:
        _said.add(line)
        print(line, file=sys.stderr, flush=True)
