"""Game options: each game declares them once, as a frozen keyword-only dataclass.

A field's type annotation is its type; `option(...)` gives its default, help, choices and bounds
(open_spiel's `parameter_specification`, game_arena's frozen dataclasses). The front ends (inspect
`-T`, pytest `--gameeval-option`, the paper protocol, `gameeval compare -T`) hand strings or values
to `GameSpec.parse_options`, which builds the game's options object with `build_options`; the rules
read typed attributes (`options.max_rounds`). Records store `as_dict()`: plain JSON, as before.

One face: code reads attributes (`ctx.options.cot`), never keys; an option another game may not
declare is read with `getattr(options, "max_rounds", None)`. `as_dict()` is the one way to plain JSON.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.replies import STRUCTURED_CHOICES
from pytest_gameeval.engine.views import PROMPT_STYLES

PROTOCOLS = ("default", "paper")
OPPONENT_CHOICES = ("reference", "self")


@dataclass(frozen=True)
class Option:
    """What a reader and a parser know of one option (the `option(...)` of a field, typed)."""

    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    kind: type | None = None  # int, float, bool, str, list; from the field's annotation
    min: int | float | None = None
    max: int | float | None = None


def option(default: Any, help: str, choices: tuple[Any, ...] | None = None, *,
           min: int | float | None = None, max: int | float | None = None) -> Any:
    """A declared option field: `max_rounds: int = option(30, "rounds before RLE", min=1)`."""
    meta = {"help": help, "choices": choices, "min": min, "max": max}
    if isinstance(default, list):  # a list default is copied per object (a dataclass rule)
        return dataclasses.field(default_factory=lambda: list(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def _kind(annotation: Any) -> type:
    """int, float, bool, str or list, from a field annotation such as `list[str] | None`."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    return typing.get_origin(annotation) or annotation


@dataclass(frozen=True, kw_only=True)
class GameOptions:
    """The options every game takes; a game subclasses it (or `DataGameOptions`) with its own."""

    protocol: str = option(
        "default", "default: our rules, data and metrics; paper: the paper's setting (docs/fidelity.md)", PROTOCOLS
    )
    seed: int = option(0, "base seed; each game's seed derives from (game, row, epoch, seed)")
    style: str = option("chat", "prompt style: role-based chat messages or one flat text prompt", PROMPT_STYLES)
    limit: int = option(0, "play only the first N rows (0: all)")
    shuffle: bool = option(False, "shuffle rows with the seed before limiting")
    opponents: str = option(
        "reference",
        "who plays a seat whose model role is not bound: reference (the game's fixed reference policy, its "
        "scripted strength 'reference', where the game has a faithful one; else the evaluated model) or self "
        "(the evaluated model: self-play)",
        OPPONENT_CHOICES,
    )
    structured: str = option(
        "auto",
        "constrained decoding to each turn's JSON schema: auto (on for the embedded local model, off for other "
        "providers), on or off",
        STRUCTURED_CHOICES,
    )

    _declared: ClassVar[dict[type, dict[str, Option]]] = {}

    @classmethod
    def declared(cls) -> dict[str, Option]:
        """Every option of this class in declaration order (common ones first), typed."""
        if cls not in GameOptions._declared:
            hints = typing.get_type_hints(cls)
            GameOptions._declared[cls] = {
                f.name: Option(f.default_factory() if f.default is dataclasses.MISSING else f.default,
                               f.metadata["help"], f.metadata["choices"], _kind(hints[f.name]),
                               f.metadata["min"], f.metadata["max"])
                for f in dataclasses.fields(cls)}
        return GameOptions._declared[cls]

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON values, as records, journals and reports store options."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, kw_only=True)
class DataGameOptions(GameOptions):
    """The options of a game that ships a data file: it also takes `data=FILE`."""

    data: str | None = option(
        None, "your own data file (JSON Lines, in the format of the game's shipped file) instead of ours"
    )


def coerce(name: str, value: Any, opt: Option) -> Any:
    """`value` (a string from a command line, or a value) as the option's type, within its
    choices and bounds; anything else is one error line naming the option."""
    kind = opt.kind or type(opt.default)
    if value is None:
        return None
    try:
        if kind is bool:
            if isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError
                value = value.lower() in ("true", "1", "yes")
            value = bool(value)
        elif kind is list:
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            value = list(value)
        elif kind is str and isinstance(value, bool) and opt.choices and {"on", "off"} <= set(opt.choices):
            value = "on" if value else "off"  # inspect's -T reads on/off as YAML booleans
        elif kind in (int, float, str):
            value = kind(value)
    except (TypeError, ValueError):
        raise GameEvalError(f"task argument {name}={value!r} must be of type {kind.__name__}") from None
    if opt.choices is not None and value not in opt.choices:
        raise GameEvalError(f"task argument {name}={value!r}: choose from {', '.join(map(str, opt.choices))}")
    low, high = opt.min, opt.max
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"between {low} and {high}" if low is not None and high is not None else (
            f"at least {low}" if low is not None else f"at most {high}")
        raise GameEvalError(f"task argument {name}={value!r} must be {bounds}")
    return value


def build_options(cls: type[GameOptions], game: str, given: Mapping[str, Any],
                  presets: Mapping[str, Any] | None = None) -> GameOptions:
    """The options object of `cls` from `given` values (strings or values), with `presets`
    (the paper protocol's values) for the options not given. An unknown name, a bad type, choice
    or bound is one error line."""
    known = cls.declared()
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise GameEvalError(
            f"unknown task argument(s) {', '.join(unknown)} for {game}; known: {', '.join(sorted(known))}"
        )
    values = {k: coerce(k, v, known[k]) for k, v in given.items()}
    values.update({k: coerce(k, v, known[k]) for k, v in (presets or {}).items() if k not in given})
    return cls(**values)
