"""Playing game cases many at once, without pytest in sight (the plugin's items ask for them).

A *case* is one (game, dataset row, trial). Cases are grouped into *shards*; a process plays a
whole shard concurrently (bounded by `concurrency` games in flight; each model's own
max_connections bounds its calls) the first time one of its cases is asked for, and then every
case's item just reports its result. API-bound games are chains of dependent calls, so many
games must be in flight per process to keep a remote model busy.

A game under the regression gate is one shard, played in looks (batches); after each look the
sequential test (gate.GameGate) decides whether more games are needed.
"""

from __future__ import annotations

import asyncio
import json
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model

from pytest_gameeval.analysis.report.file import cases_of
from pytest_gameeval.analysis.verdicts.gate import GameGate, GateMetric
from pytest_gameeval.engine.errors import GameEvalError, ProviderError
from pytest_gameeval.engine.game import Seat
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Player
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.safe_io import OutputError
from pytest_gameeval.engine.seating import REFERENCE, SELF_PLAY, Seating, played_as
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.games.registry import REFERENCE_MODEL, get_spec
from pytest_gameeval.inspect_ext.cli_errors import plain_error
from pytest_gameeval.inspect_ext.decoding import model_player
from pytest_gameeval.run.plan import Case
from pytest_gameeval.run.provider_stop import ProviderStop
from pytest_gameeval.run.settings import Settings
from pytest_gameeval.transport import heap, preload
from pytest_gameeval.transport.provider import RETRY_MODEL_ARGS, retry_config

RESUMED_REASON = "resumed: finished by an earlier, interrupted run (journal)"
NOT_KEPT = "not played: the run stopped: a finished game could not be kept: "  # report_writer reads it back
HANDED_OVER_REASON = "handed over: finished by an xdist worker of this run that then crashed (journal)"
NO_MODEL_FOR_ROLE = "gameeval: no model to play model role '{role}' (give --gameeval-model=PROVIDER/MODEL)"


class NoModelError(GameEvalError):
    """A seat has no model: the case is not played (the fixture skips), it is not a harness error."""


# -- models -------------------------------------------------------------------------------------


class _CachedModel:
    """A Model whose every generate() goes through inspect's cache, keyed also by the case
    (so trials with identical prompts are still separate calls)."""

    def __init__(self, model: Model, case: str):
        self._model = model
        self._policy = CachePolicy(expiry=None, per_epoch=False, scopes={"gameeval_case": case})

    async def generate(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cache", self._policy)
        return await self._model.generate(*args, **kwargs)

    def __str__(self) -> str:
        return str(self._model)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)


class ModelPool:
    """inspect Models by model string, created once per process and event loop."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.models: dict[str, Model] = {}

    def get(self, model: str) -> Model:
        if model not in self.models:
            try:
                args = dict(self.settings.model_args)
                config = self._config(args)
                if model in self.settings.local_paths:  # the identity keeps only the file's name
                    args["model_path"] = self.settings.local_paths[model]
                self.models[model] = get_model(model, config=config, **args)
            except PrerequisiteError as e:  # ours and inspect's errors (a missing API key): one plain line
                raise GameEvalError(f"{model}: {plain_error(e).removeprefix('gameeval: ')}") from None
            except Exception as e:  # an unknown provider or bad argument: the user's input
                raise GameEvalError(f"cannot load model {model!r}: {type(e).__name__}: {e}".splitlines()[0]) from None
        return self.models[model]

    def _config(self, args: dict[str, Any]) -> GenerateConfig:
        """Each model's GenerateConfig: max_connections and inspect's retry settings (bounded by
        default, transport/retry_defaults.py); a retry setting given as a model argument (`timeout=5`,
        as a user of the SDK would write it) is taken out of `args` and set here instead."""
        settings = self.settings
        retry = {"max_retries": settings.max_retries, "timeout": settings.timeout,
                 "attempt_timeout": settings.attempt_timeout}
        for arg, setting in RETRY_MODEL_ARGS.items():
            if arg in args:
                retry[setting] = int(args.pop(arg))
        config = retry_config(**retry)
        if settings.max_connections:
            config = config.merge(GenerateConfig(max_connections=settings.max_connections))
        return config

    def check(self) -> None:
        """Load every configured model now, so a bad model string is one clear error up front."""
        bound = [model for models in self.settings.roles.values() for model in models.split(",")]  # a list role: each
        for model in [self.settings.model, *bound]:
            if model:
                self.get(model)

    def binder(
        self, case: Case, notes: list[str], overrides: dict[str, Any] | None = None
    ) -> Callable[[Seat, str], Player]:
        """bind(seat, model_role) as engine/seating.py decides it for both front ends: explicit
        overrides (a Player or model string per role, from a user's test), then --gameeval-role, else
        the game's reference policy, else the evaluated model with a note (self-play)."""
        settings = self.settings
        overrides = overrides or {}
        given = overrides.get(EVALUATED)
        # a list role (`players=A,B,C`) binds its seats in order: "players[0]", "players[1]", ...
        bound = {name: (model.split(",") if "," in model else model) for name, model in settings.roles.items()}
        bound.update(overrides)
        # self-play is --gameeval-model (else a model string the test gave for the evaluated seat),
        # never a test's own Player for another seat
        seats = Seating(get_spec(case.game), case.options, evaluated=settings.model if given is None else given,
                        bound=bound, reference=REFERENCE_MODEL, notes=notes, flag="--gameeval-role",
                        self_play=settings.model or (given if isinstance(given, str) else None))

        def bind(seat: Seat, role: str) -> Player:
            choice = seats.choose(role)
            if choice.plays is None:
                raise NoModelError(NO_MODEL_FOR_ROLE.format(role=role))
            if not isinstance(choice.plays, str):
                return choice.plays  # a Player object given by a user's test
            model = self.get(choice.plays)
            reference = choice.played_as == REFERENCE
            cached = settings.cache and not reference  # a reference policy is no model call worth caching
            return model_player(_CachedModel(model, case.name) if cached else model,  # type: ignore[arg-type]
                                case.options.structured, reference=reference,
                                self_play=choice.played_as == SELF_PLAY)

        return bind


# -- playing --------------------------------------------------------------------------------------


@dataclass
class CaseResult:
    case: Case
    status: str  # "played" | "error" | "not played"
    record: GameRecord | None = None
    scores: dict[str, float] | None = None
    error: str | None = None
    seconds: float = 0.0
    reason: str | None = None  # why a case was not played
    provider: dict[str, Any] | None = None  # a harness error caused by the provider: its cause (ProviderError)
    # the record as a dict, made once as the game ends (its journal line), not again for the report
    record_dict: dict[str, Any] | None = None

    def record_as_dict(self) -> dict[str, Any] | None:
        if self.record_dict is None and self.record is not None:
            self.record_dict = self.record.to_dict()
        return self.record_dict

    def entry(self) -> dict[str, Any]:
        """This case's line in the report."""
        c = self.case
        e: dict[str, Any] = {"id": c.name, "game": c.game, "case": c.case_id, "row": c.row.id, "trial": c.trial,
                             "index": c.index, "status": self.status, "seconds": round(self.seconds, 3)}
        if self.record is not None:
            r = self.record
            e.update(seed=r.seed, outcome=r.label, winner=r.outcome.get("winner"), scores=self.scores,
                     failures=r.failures, usage=r.usage,
                     structured=r.structured,
                     seats={s["name"]: {"role": s["role"], "model": s["model"], "structured": bool(s.get("structured")),
                                        "played_as": played_as(s)} for s in r.seats})
        if self.error:
            e["error"] = self.error
        if self.reason:
            e["reason"] = self.reason
        if self.provider:
            e["provider"] = self.provider
        return e


def _quiet_interrupt(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """An interrupted run (Ctrl-C, SIGTERM, --timeout) already said so in one line: the task the
    interrupt hit is not logged again with its traceback when it is collected."""
    if not isinstance(context.get("exception"), KeyboardInterrupt):
        loop.default_exception_handler(context)


class WorkerGameTimeout(BaseException):
    """Under xdist: a game item ran past --timeout on a worker. The item fails with the timeout
    named (pytest-timeout's own way under xdist), the games of its shard not finished are cut
    (not played, runner.Runner.cut) and the worker goes on: the report holds the finished ones.
    Not an Exception: raised wherever the game stands (a model call), it must pass the handlers
    that turn a call's Exception into a provider failure; not a KeyboardInterrupt, which would
    take the worker down."""


class Runner:
    """Plays shards on one long-lived event loop (models keep their clients across shards)."""

    def __init__(self, settings: Settings, baseline: dict[str, Any] | None = None):
        self.settings = settings
        self.baseline = baseline
        self.pool = ModelPool(settings)
        self.results: dict[str, CaseResult] = {}  # case name -> result
        self.gates: dict[str, GameGate] = {}
        self._loop: asyncio.Runner | None = None
        self.journal: Any = None  # journal.Journal: finished games are appended as they end
        self.storage_failed: str | None = None  # the journal could not be written (a full disk): the run stops
        self.resumed: dict[str, list[dict[str, Any]]] = {}  # case name -> journal entries (journal.load_journal)
        self.reused: list[str] = []  # cases taken from the journal instead of played
        self.not_reused: dict[str, int] = {}  # why journalled games were not reused -> how many cases
        self.identities: dict[str, dict[str, Any]] = {}  # game -> journal.game_identity of this run
        self.run_token = ""  # this run's token (the controller's, under xdist): journal entries carry it
        self.resume_any = False  # --gameeval-resume: entries of earlier runs are reused too
        self.progress: dict[str, Any] = {}  # game -> engine.progress.Tally, when progress lines are wanted
        self.provider_stop = ProviderStop()  # stops the run on the provider's failures
        self.spend: Any = None  # budget.Spend, with a price table: asked before a game starts, told when it ends

    def run(self, coro: Any) -> Any:
        if self._loop is None:
            self._loop = asyncio.Runner()
            self._loop.get_loop().set_exception_handler(_quiet_interrupt)
        return self._loop.run(coro)

    def close(self) -> None:
        preload.wait()
        if self._loop is not None:
            try:
                self._loop.close()
            except KeyboardInterrupt:  # a task an interrupt (Ctrl-C, SIGTERM, --timeout) hit re-raises it as
                pass  # it is cancelled; the session has ended as interrupted already (exit 2)
            self._loop = None

    def _resumed(self, case: Case) -> CaseResult | None:
        """The journalled game of this case, when it is the same game (journal.mismatch); else
        None, and why it was not reused is counted (the summary's resume line says it)."""
        from pytest_gameeval.run.journal import mismatch

        entries = self.resumed.get(case.name)
        if not entries:
            return None
        options = json.loads(json.dumps(case.options.as_dict()))
        identity = self.identities.get(case.game, {})
        reasons = []
        for entry in entries:
            if not self.resume_any and entry.get("run") != self.run_token:
                continue  # not resuming: only a crashed worker of this same run hands games over
            why = mismatch(entry, identity, options)
            if why is None:
                self.reused.append(case.name)
                same_run = entry.get("run") == self.run_token
                return CaseResult(case, "played", GameRecord.from_dict(entry["record"]), entry["scores"],
                                  reason=HANDED_OVER_REASON if same_run else RESUMED_REASON)
            reasons.append(why)
        if reasons:
            self.not_reused[reasons[0]] = self.not_reused.get(reasons[0], 0) + 1
        return None

    def _journalled(self, case: Case, record: dict[str, Any] | None, scores: dict[str, Any]) -> bool:
        """The finished game (its record as a dict, made once: CaseResult.record_as_dict) appended to the
        journal; False on a full disk, which stops the run (no game more is started, report_writer ends
        it in one line)."""
        try:
            self.journal.append(case.name, case.options.as_dict(), record, scores,
                                self.identities.get(case.game))
        except OutputError as e:
            self.storage_failed = self.storage_failed or str(e)
            return False
        return True

    def not_kept(self) -> str:
        return f"{NOT_KEPT}{self.storage_failed}"

    async def _play_one(
        self, case: Case, sem: asyncio.Semaphore, overrides: dict[str, Any] | None = None
    ) -> CaseResult:
        tally = None if overrides else self.progress.get(case.game)
        if not overrides and (resumed := self._resumed(case)) is not None:
            if tally is not None:
                tally.game_started()
                tally.game_finished(resumed.record.label, resumed.scores)  # type: ignore[union-attr]
            if self.spend is not None:  # a resumed budget run counts what the journalled games cost
                self.spend.reused(case, resumed.record)
            return resumed
        async with sem:
            if self.storage_failed is not None:  # nothing more is played once a finished game could not be kept
                return CaseResult(case, "not played", reason=self.not_kept())
            if self.provider_stop.cause is not None:  # no more games spent on a provider that cannot answer
                return CaseResult(case, "not played", reason=self.provider_stop.not_played())
            if self.spend is not None and not overrides and (refused := await self.spend.refuse(case)) is not None:
                stopped = self.provider_stop.cause is not None  # the provider stopped the run while this game waited
                return CaseResult(case, "not played", reason=self.provider_stop.not_played() if stopped else refused)
            notes: list[str] = []
            start = time.perf_counter()
            if tally is not None:
                tally.game_started()
            try:
                spec = get_spec(case.game)
                preload.start()  # the report's statistics load while games wait on replies: transport/preload.py
                with heap.playing():  # full garbage collections rare while games are in play: transport/heap.py
                    record = await play_case(
                        spec, case.row, case.trial, case.options, self.pool.binder(case, notes, overrides), notes=notes
                    )
                scores = spec.score(record)
            except NoModelError as e:
                if tally is not None:
                    tally.started -= 1
                return CaseResult(case, "not played", reason=str(e))
            except ProviderError as e:  # not a game played: a harness error with the provider's cause
                self.provider_stop.failed(e)
                if tally is not None:
                    tally.game_finished(None, None)
                if self.spend is not None and not overrides:
                    self.spend.settle(case, None)  # what it spent is unknown: its reservation stands
                return CaseResult(case, "error", error=f"provider failure: {e.cause}", provider=e.to_dict(),
                                  seconds=time.perf_counter() - start)
            except Exception:  # a harness or rules bug: the case fails with the traceback
                if tally is not None:
                    tally.game_finished(None, None)
                if self.spend is not None and not overrides:
                    self.spend.settle(case, None)  # what it spent is unknown: its reservation stands
                return CaseResult(case, "error", error=traceback.format_exc(), seconds=time.perf_counter() - start)
            self.provider_stop.played(record.seats)
            if tally is not None:
                tally.game_finished(record.label, scores)
            played = CaseResult(case, "played", record, scores)
            journal = self.journal is not None and not overrides
            if journal and not self._journalled(case, played.record_as_dict(), scores):
                return CaseResult(case, "not played", reason=self.not_kept())
            if self.spend is not None and not overrides:
                self.spend.settle(case, record)
            played.seconds = time.perf_counter() - start
            return played

    async def _play_many(self, cases: list[Case]) -> list[CaseResult]:
        sem = asyncio.Semaphore(max(1, self.settings.concurrency))

        async def one(case: Case) -> CaseResult:
            result = self.results[case.name] = await self._play_one(case, sem)  # kept as it ends: see cut()
            return result

        return await asyncio.gather(*(one(c) for c in cases))

    def play_shard(self, cases: list[Case], gated: Sequence[GateMetric] = ()) -> None:
        """Play a shard's cases; with `gated` metrics (its game is gated) as one GameGate's looks."""
        todo = [c for c in cases if c.name not in self.results]
        if not todo:
            return
        try:
            if not gated:
                for result in self.run(self._play_many(todo)):
                    self.results[result.case.name] = result
                return
            self.run(self._play_gated(todo, gated))
        except WorkerGameTimeout as e:
            self.cut(todo, f"cut by --timeout: {e}")
            raise

    def cut(self, cases: list[Case], reason: str) -> None:
        """The shard was stopped mid-play (--timeout under xdist): the games in flight are cancelled
        and every case not finished is not played, with the reason; the finished ones stand."""
        assert self._loop is not None
        loop = self._loop.get_loop()
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        for case in cases:
            if case.name not in self.results:
                self.results[case.name] = CaseResult(case, "not played", reason=reason)

    async def _play_gated(self, cases: list[Case], metrics: Sequence[GateMetric]) -> None:
        """Play in looks until the sequential test has its verdict; the rest are not played. The
        game's gate is built here, once, from the baseline and these cases (self.gates keeps it)."""
        assert self.baseline is not None
        game = cases[0].game
        base_cases = cases_of(self.baseline, game)
        gate = self.gates[game] = GameGate.against(game, metrics, self.settings.gate, base_cases, len(cases))
        played: list[CaseResult] = []
        start = 0
        for end in gate.ends:
            batch = await self._play_many(cases[start:end])
            start = end
            played.extend(batch)
            for r in batch:
                self.results[r.case.name] = r
            entries = [r.entry() for r in played]
            gate.look(
                base_cases,
                entries,
                len(played),
                last=end >= len(cases),
                games_played=sum(r.status == "played" for r in played),
            )
            if gate.stopped or self.provider_stop.cause is not None:
                break
        reason = (self.provider_stop.not_played() if self.provider_stop.cause is not None else
                  f"the sequential gate reached its verdict on {gate.game} after {gate.games_used} of "
                  f"{len(cases)} games")
        for c in cases[start:]:
            self.results[c.name] = CaseResult(c, "not played", reason=reason)

    def play_now(self, case: Case, overrides: dict[str, Any] | None = None) -> CaseResult:
        """One case, now, outside any shard (the user-facing fixture)."""
        return self.run(self._play_one(case, asyncio.Semaphore(1), overrides))
