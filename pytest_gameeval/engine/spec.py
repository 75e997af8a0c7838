"""GameSpec: what a front end needs to know about a game, and nothing about models.

A front end (inspect task, pytest item) asks a spec for its rows, builds a game for one
row and epoch, binds each seat to a model role, plays it, and scores the record.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pytest_gameeval.engine.data import data_path
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.game import Game
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.replies import STRUCTURED_CHOICES
from pytest_gameeval.engine.rng import game_rng
from pytest_gameeval.engine.views import PROMPT_STYLES
from pytest_gameeval.engine.roles import role_names

EVALUATED = "evaluated"  # the model role of the model under evaluation
# failure counts of a record (GameRecord.failure_totals) as a reader says them
FAILURE_NAMES = {"format": "format errors", "rule": "rule violations",
                 "degenerate": "degenerate moves (rule violations: well-formed, no content)",
                 "chat": "failed calls (chat errors)", "forfeit": "turns forfeited"}


@dataclass(frozen=True)
class Option:
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    kind: type | None = None  # int, float, bool, str, list; inferred from default if None


@dataclass
class Row:
    id: str
    data: dict[str, Any]


def _coerce(name: str, value: Any, opt: Option) -> Any:
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
    return value


def only_rows(rows: list[Row], wanted: list[str] | None, game: str, what: str) -> list[Row]:
    """The rows whose ids are `wanted` (all rows if none is); an unknown id is one clear error."""
    if not wanted:
        return rows
    wanted = [w.strip() for w in wanted]
    unknown = sorted(set(wanted) - {r.id for r in rows})
    if unknown:
        raise GameEvalError(f"{game}: unknown {what}(s) {', '.join(unknown)}")
    return [r for r in rows if r.id in wanted]


PROTOCOLS = ("default", "paper")
OPPONENT_CHOICES = ("reference", "self")
REFERENCE_STRENGTH = "reference"  # the scripted strength that plays a game's reference opponents
HEADLINE = "played_quality"  # the score key every game's headline is scored under (metrics/headline.py)

COMMON_OPTIONS = {
    "protocol": Option("default", "default: our rules, data and metrics; paper: the paper's setting (docs/fidelity.md)", PROTOCOLS),
    "seed": Option(0, "base seed; each game's seed derives from (game, row, epoch, seed)"),
    "style": Option("chat", "prompt style: role-based chat messages or one flat text prompt", PROMPT_STYLES),
    "limit": Option(0, "play only the first N rows (0: all)"),
    "shuffle": Option(False, "shuffle rows with the seed before limiting"),
    "opponents": Option("reference", "who plays a seat whose model role is not bound: reference (the game's fixed reference policy, gameeval/scripted/reference, where the game has a faithful one; else the evaluated model) or self (the evaluated model: self-play)", OPPONENT_CHOICES),
    "structured": Option("auto", "constrained decoding to each turn's JSON schema: auto (on for gameeval/local, off for other providers), on or off", STRUCTURED_CHOICES),
}


SCRIPTED_MODEL = "gameeval/scripted"


def scripted_strength(model: str) -> str | None:
    """The strength a model name asks of the scripted provider ("random" by default), or None."""
    if model == SCRIPTED_MODEL:
        return "random"
    prefix = SCRIPTED_MODEL + "/"
    return model[len(prefix):] if model.startswith(prefix) else None


class GameSpec:
    """Subclass per game: set the class attributes and implement the methods."""

    name: str = ""
    title: str = ""
    options: dict[str, Option] = {}
    # the shipped data file in the data/ folder beside the game's SPEC ("pairs.jsonl"); a game
    # that has one also takes `data=FILE` (the user's own rows in the same format)
    data_file: str = ""
    # model role bound to each game role; EVALUATED is the model under evaluation
    model_roles: dict[str, str] = {}
    outcome_labels: tuple[str, ...] = ()  # one-hot rates in every score
    mean_keys: tuple[str, ...] = ()  # other numeric score keys (NaN where undefined)
    # mean keys that are 0/1 per game (whether the evaluated side won): rates like the outcome
    # labels, with a Wilson interval in inspect's scores and a rate test in diffs and the gate
    binary_keys: tuple[str, ...] = ()
    # the direction of improvement of each gated metric (score key -> True if higher is better)
    higher_is_better: dict[str, bool] = {}
    # model roles with a faithful fixed reference policy (the scripted strength "reference"): an
    # unbound one is played by it unless opponents=self (docs/fidelity.md says why per game)
    reference_roles: tuple[str, ...] = ()
    # option values protocol=paper sets unless the user gives them (docs/fidelity.md says why each)
    paper_protocol: dict[str, Any] = {}
    # what each outcome label means, for readers (label -> a few words); the label if missing
    outcome_names: dict[str, str] = {}

    @property
    def headline(self) -> str:
        """The score key that best summarises a run and that the gate, `report diff`, `gameeval
        compare` and the leaderboard test: `played_quality` (metrics/headline.py) where the game
        scores it, else the first higher-is-better score key."""
        keys = (*self.outcome_labels, *self.mean_keys)
        if HEADLINE in keys:
            return HEADLINE
        best = [k for k, up in self.higher_is_better.items() if up and k in keys]
        return best[0] if best else self.outcome_labels[0]

    # games with sides (SpyFall, SpyGame, TofuKingdom): the 0/1 score key saying whether the
    # evaluated seat's side won, so a reader is told "won"/"lost" rather than which side won
    win_key: str | None = None

    @property
    def rate_keys(self) -> tuple[str, ...]:
        """Score keys that are 0/1 per game: the outcome labels, then the binary keys."""
        return (*self.outcome_labels, *self.binary_keys)

    @property
    def other_mean_keys(self) -> tuple[str, ...]:
        """The mean keys that are not rates."""
        return tuple(k for k in self.mean_keys if k not in self.binary_keys)

    def outcome_name(self, label: str) -> str:
        return self.outcome_names.get(label, label)

    def evaluated_side(self, record: GameRecord) -> str | None:
        """The side the evaluated model played in this game (games with sides), else None."""
        return None

    def answer(self, record: GameRecord) -> str:
        """The outcome from the evaluated seat's side, in a few words (inspect's ANSWER): "lost
        as the spy: the spy was voted out" rather than `villager_win`."""
        if self.win_key is None:
            return record.label
        won = self.score(record).get(self.win_key)
        side = self.evaluated_side(record)
        return f"{'won' if won else 'lost'}{f' as the {side}' if side else ''}: {self.outcome_name(record.label)} ({record.label})"

    def key_facts(self, record: GameRecord) -> list[str]:
        """A few readable facts about how one game went (who, what, when), for its explanation."""
        return []

    def explain(self, record: GameRecord) -> str:
        """One short markdown paragraph: the outcome, why, and the counts that qualify it
        (a win after 50 format errors, or by drawn lots, must not read as a plain win)."""
        head = (f"**{self.answer(record)}**" if self.win_key else f"**{self.outcome_name(record.label)}** (`{record.label}`)")
        if record.outcome["winner"]:
            head += f"; winner: {record.outcome['winner']}"
        facts = [f if f.endswith(".") else f + "." for f in self.key_facts(record)]
        totals = record.failure_totals()
        failures = [f"{totals[k]} {name}" for k, name in FAILURE_NAMES.items() if totals.get(k)]
        tally = ("Failures: " + ", ".join(failures) + ".") if failures else "No format errors, rule violations or failed calls."
        return "\n\n".join([head + ".", *([" ".join(facts)] if facts else []), tally])

    # -- options -----------------------------------------------------------------
    def all_options(self) -> dict[str, Option]:
        data = {"data": Option(None, f"your own data file (JSON Lines, the format of {self.name}/data/{self.data_file}) instead of ours", kind=str)}
        return {**COMMON_OPTIONS, **self.options, **(data if self.data_file else {})}

    @property
    def package(self) -> str:
        """The game's package (its folder): where its SPEC's class is defined, or that module's package."""
        module = sys.modules[type(self).__module__]
        return module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]

    def data_path(self, options: dict[str, Any]) -> Path:
        return data_path(options, self.package, self.data_file)

    def parse_options(self, given: dict[str, Any] | None = None) -> dict[str, Any]:
        known = self.all_options()
        given = dict(given or {})
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise GameEvalError(f"unknown task argument(s) {', '.join(unknown)} for {self.name}; known: {', '.join(sorted(known))}")
        options = {k: _coerce(k, given[k], o) if k in given else o.default for k, o in known.items()}
        if options["protocol"] == "paper":
            options.update({k: v for k, v in self.paper_protocol.items() if k not in given})
        return options

    # -- data and games --------------------------------------------------------------
    def rows(self, options: dict[str, Any]) -> list[Row]:
        raise NotImplementedError

    def select_rows(self, options: dict[str, Any]) -> list[Row]:
        rows = self.rows(options)
        if options.get("shuffle"):
            random.Random(options["seed"]).shuffle(rows)
        if options.get("limit"):
            rows = rows[: options["limit"]]
        return rows

    def new_game(self, row: Row, rng: random.Random, options: dict[str, Any]) -> Game:
        raise NotImplementedError

    def setup(self, row: Row, epoch: int, options: dict[str, Any]) -> tuple[Game, int]:
        seed, rng = game_rng(self.name, row.id, epoch, options["seed"])
        return self.new_game(row, rng, options), seed

    def seat_model_roles(self, game: Game) -> dict[str, str]:
        """Seat name -> model role ("evaluated", "answerer", ...)."""
        return {name: self.model_roles.get(seat.role, EVALUATED) for name, seat in game.seats.items()}

    def reference_model(self, role: str, options: dict[str, Any]) -> str | None:
        """The model string of the reference policy that plays an unbound `role`, or None where
        the evaluated model plays it (opponents=self, or the game has no faithful reference)."""
        if options.get("opponents", "reference") != "reference" or role not in self.reference_roles:
            return None
        return f"{SCRIPTED_MODEL}/{REFERENCE_STRENGTH}"

    def bindable_roles(self) -> set[str]:
        """Every model role name a user may bind for this game (for checking typos)."""
        return {name for role in self.model_roles.values() for name in role_names(role)} - {EVALUATED}

    def case_key(self, row: Row, options: dict[str, Any]) -> str:
        """A readable id of a case without its trial, e.g. "hard-apple"."""
        return row.id

    def case_id(self, row: Row, options: dict[str, Any], epoch: int) -> str:
        return f"{self.case_key(row, options)}-t{epoch}"

    # -- scripted players ---------------------------------------------------------------
    scripted: dict[str, Callable[..., Any]] = {}  # strength name -> factory(seat, seed)

    def check_scripted_model(self, model: str) -> None:
        """A `gameeval/scripted[/STRENGTH]` model must name a strength this game has: checked
        before play, so a typo is one line naming the game's strengths, not an error per game."""
        strength = scripted_strength(model)
        if strength is not None and strength not in self.scripted:
            raise GameEvalError(f"{model}: {self.name} has no scripted strength {strength!r}; "
                                f"its strengths: {', '.join(sorted(self.scripted))}")

    # -- metrics --------------------------------------------------------------------
    def score(self, record: GameRecord) -> dict[str, float]:
        """Numeric per-game values (one-hot outcomes etc.) for inspect's scorer."""
        raise NotImplementedError

    def summarize(self, records: list[GameRecord]) -> dict[str, Any]:
        """Metrics over many records, every one with a confidence interval."""
        raise NotImplementedError
