"""Errors raised by the engine. Each carries one line a user can act on."""


class GameEvalError(Exception):
    """Bad input from a user (task argument, data file, report): one clear line, no traceback."""


class EngineError(Exception):
    """A bug in a game's rules or the harness (never a model's fault)."""


class ParseError(ValueError):
    """A reply could not be read as the requested format (a *format error*)."""


class RuleViolation(ValueError):
    """A reply was read but breaks a rule of the game (a *rule violation*)."""
