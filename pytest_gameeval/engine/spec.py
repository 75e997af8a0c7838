"""GameSpec: what a front end needs to know about a game, and nothing about models.

A front end (inspect task, pytest item) asks a spec for its rows, builds a game for one
row and epoch, binds each seat to a model role, plays it, and scores the record.
"""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from pytest_gameeval.engine.data import data_path
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.game import ABORTED, Game
from pytest_gameeval.engine.options import GameOptions, Option, build_options
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.rng import game_rng
from pytest_gameeval.engine.roles import role_names

EVALUATED = "evaluated"  # the model role of the model under evaluation
# failure counts of a record (GameRecord.failure_totals) as a reader says them
FAILURE_NAMES = {"format": "format errors", "rule": "rule violations",
                 "degenerate": "degenerate moves (rule violations: well-formed, no content)",
                 "chat": "failed calls (chat errors)", "forfeit": "turns forfeited",
                 "content_filter": "replies withheld by the provider's content filter"}


@dataclass
class Row:
    id: str
    data: dict[str, Any]


def only_rows(rows: list[Row], wanted: list[str] | None, game: str, what: str) -> list[Row]:
    """The rows whose ids are `wanted` (all rows if none is); an unknown id is one clear error."""
    if not wanted:
        return rows
    wanted = [w.strip() for w in wanted]
    unknown = sorted(set(wanted) - {r.id for r in rows})
    if unknown:
        raise GameEvalError(f"{game}: unknown {what}(s) {', '.join(unknown)}")
    return [r for r in rows if r.id in wanted]


HEADLINE = "played_quality"  # the score key every game's headline is scored under (metrics/headline.py)
# the evaluated seat's share of turns with a legal move at the first attempt (metrics/headline.py)
FIRST_TRY = "legal_first_try"


class GameSpec:
    """Subclass per game: set the class attributes and implement the methods."""

    name: str = ""
    title: str = ""
    # the game's options, declared once (engine/options.py); DataGameOptions where it has a data_file
    options_class: type[GameOptions] = GameOptions
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

    @property
    def default_gated(self) -> tuple[str, ...]:
        """The score keys the gate, `report diff` and `gameeval compare` judge unless told
        otherwise (all higher-is-better), one verdict per game over them: the headline and,
        where the game scores it, the turn-level measure, which has range where the headline
        sits at the floor (docs/headlines.md)."""
        return (self.headline, *((FIRST_TRY,) if FIRST_TRY in self.mean_keys and FIRST_TRY != self.headline else ()))

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
        if label == ABORTED and label not in self.outcome_names:
            return "ended at once: an evaluated seat forfeited a turn (its headline was settled at 0)"
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
        as_side = f" as the {side}" if side else ""
        return f"{'won' if won else 'lost'}{as_side}: {self.outcome_name(record.label)} ({record.label})"

    def key_facts(self, record: GameRecord) -> list[str]:
        """A few readable facts about how one game went (who, what, when), for its explanation."""
        return []

    def explain(self, record: GameRecord) -> str:
        """One short markdown paragraph: the outcome, why, and the counts that qualify it
        (a win after 50 format errors, or by drawn lots, must not read as a plain win)."""
        head = (
            f"**{self.answer(record)}**"
            if self.win_key
            else f"**{self.outcome_name(record.label)}** (`{record.label}`)"
        )
        if record.outcome["winner"]:
            head += f"; winner: {record.outcome['winner']}"
        facts = [f if f.endswith(".") else f + "." for f in self.key_facts(record)]
        totals = record.failure_totals()
        failures = [f"{totals[k]} {name}" for k, name in FAILURE_NAMES.items() if totals.get(k)]
        tally = (
            ("Failures: " + ", ".join(failures) + ".")
            if failures
            else "No format errors, rule violations or failed calls."
        )
        return "\n\n".join([head + ".", *([" ".join(facts)] if facts else []), tally])

    # -- options -----------------------------------------------------------------
    def all_options(self) -> dict[str, Option]:
        """Every option this game takes (name -> default, help, type, choices, bounds)."""
        declared = dict(self.options_class.declared())
        if "data" in declared:
            declared["data"] = replace(
                declared.pop("data"),
                help=f"your own data file (JSON Lines, the format of {self.name}/data/{self.data_file}) "
                "instead of ours",
            )
        return declared

    @property
    def package(self) -> str:
        """The game's package (its folder): where its SPEC's class is defined, or that module's package."""
        module = sys.modules[type(self).__module__]
        return module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]

    @property
    def version(self) -> str:
        """The game's version as reports, records and logs name it: the number in
        games/versions.json, or `N+dev.<fingerprint>` when the installed code is not that
        version's (engine/versions.py)."""
        from pytest_gameeval.engine.versions import game_version

        return game_version(self.name, self.package)

    @property
    def fingerprint(self) -> str:
        """sha256 of the code and data that define the game (engine/versions.py)."""
        from pytest_gameeval.engine.versions import installed_fingerprint

        return installed_fingerprint(self.package)

    def data_path(self, options: GameOptions) -> Path:
        return data_path(options, self.package, self.data_file)

    def parse_options(self, given: Mapping[str, Any] | None = None) -> GameOptions:
        """The game's typed options from the values a front end was given (strings or values);
        protocol=paper sets its values for the options not given. A bad one is one error line."""
        given = dict(given or {})
        options = build_options(self.options_class, self.name, given)
        if options.protocol == "paper":
            options = build_options(self.options_class, self.name, given, presets=self.paper_protocol)
        return options

    # -- data and games --------------------------------------------------------------
    def rows(self, options: GameOptions) -> list[Row]:
        raise NotImplementedError

    def select_rows(self, options: GameOptions) -> list[Row]:
        rows = self.rows(options)
        if options.shuffle:
            random.Random(options.seed).shuffle(rows)
        if options.limit:
            rows = rows[: options.limit]
        return rows

    def new_game(self, row: Row, rng: random.Random, options: GameOptions) -> Game:
        raise NotImplementedError

    def setup(self, row: Row, epoch: int, options: GameOptions) -> tuple[Game, int]:
        seed, rng = game_rng(self.name, row.id, epoch, options.seed)
        return self.new_game(row, rng, options), seed

    def seat_model_roles(self, game: Game) -> dict[str, str]:
        """Seat name -> model role ("evaluated", "answerer", ...)."""
        return {name: self.model_roles.get(seat.role, EVALUATED) for name, seat in game.seats.items()}

    def plays_reference(self, role: str, options: GameOptions) -> bool:
        """Whether an unbound `role` is played by the game's reference policy (its scripted
        strength "reference"); else the evaluated model plays it (opponents=self, or the
        game has no faithful reference). Which model name that is, the front ends know
        (games/registry.reference_model)."""
        return options.opponents == "reference" and role in self.reference_roles

    def bindable_roles(self) -> set[str]:
        """Every model role name a user may bind for this game (for checking typos)."""
        return {name for role in self.model_roles.values() for name in role_names(role)} - {EVALUATED}

    def expected_cost(self, options: GameOptions) -> float:
        """A rough relative cost of one game, to balance slices across machines (`--gameeval-shard`):
        its turn budget, rounds (or questions, or deals) x players where the options say them, else 1."""
        budget = next((getattr(options, k) for k in ("max_rounds", "max_questions", "games") if hasattr(options, k)), 1)
        return float(budget * getattr(options, "players", 1))

    def case_key(self, row: Row, options: GameOptions) -> str:
        """A readable id of a case without its trial, e.g. "hard-apple"."""
        return row.id

    def case_id(self, row: Row, options: GameOptions, epoch: int) -> str:
        return f"{self.case_key(row, options)}-t{epoch}"

    # -- scripted players ---------------------------------------------------------------
    # strength name -> {game role: policy}; a policy(ctx: TurnContext, rng: random.Random) returns the
    # reply text a model would give (players.scripted.Policy; the game's scripted.py POLICIES)
    scripted: dict[str, dict[str, Callable[..., str]]] = {}

    # -- metrics --------------------------------------------------------------------
    # Every game's metrics.py holds its pure functions over records (clemcore's GameScorer):
    # score(record), summarize(records) and HIGHER_IS_BETTER; a spec overrides these only to
    # score differently from its metrics module.
    @property
    def metrics(self) -> ModuleType:
        """The game's metrics module (`metrics.py` in its folder)."""
        return importlib.import_module(f"{self.package}.metrics")

    @property
    def higher_is_better(self) -> dict[str, bool]:
        """The direction of improvement of each gated score key (True if higher is better)."""
        return self.metrics.HIGHER_IS_BETTER

    def score(self, record: GameRecord) -> dict[str, float]:
        """Numeric per-game values (one-hot outcomes etc.) for inspect's scorer."""
        return self.metrics.score(record)

    def summarize(self, records: list[GameRecord]) -> dict[str, Any]:
        """Metrics over many records, every one with a confidence interval."""
        return self.metrics.summarize(records)
