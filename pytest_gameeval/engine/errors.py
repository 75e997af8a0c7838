"""Errors raised by the engine. Each carries one line a user can act on."""


class GameEvalError(Exception):
    """Bad input from a user (task argument, data file, report): one clear line, no traceback."""


class EngineError(Exception):
    """A bug in a game's rules or the harness (never a model's fault)."""


class ParseError(ValueError):
    """A reply could not be read as the requested format (a *format error*)."""


class RuleViolation(ValueError):
    """A reply was read but breaks a rule of the game (a *rule violation*)."""


class ProviderError(Exception):
    """A model call failed for a reason outside the model (HTTP 4xx/5xx, a transport error, an
    unreadable response, a timeout after the retries): the game was not played, it is a harness
    error with this cause. `fatal`: retrying cannot fix it (a wrong key, an unknown model, a bad
    URL, an unreadable body), so the run stops before spending more games."""

    def __init__(self, cause: str, *, kind: str, fatal: bool, model: str, status: int | None = None):
        super().__init__(cause)
        self.cause, self.kind, self.fatal, self.model, self.status = cause, kind, fatal, model, status

    def to_dict(self) -> dict[str, object]:
        return {"cause": self.cause, "kind": self.kind, "fatal": self.fatal, "model": self.model,
                "status": self.status}
