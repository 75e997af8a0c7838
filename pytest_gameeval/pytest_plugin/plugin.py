"""The pytest plugin (entry point `gameeval`): game cases as pytest items, report, gate.

Without --gameeval-model (or `gameeval_model` in the ini file) every game case is collected
and skipped with the reason, and nothing else changes in the user's run.

Flow: pytest_configure reads settings (and the baseline) -> collection adds one item per case
(`gameeval::askguess[hard-apple-t0]`, marker `gameeval`) -> the first item of a shard plays the
whole shard concurrently (runner.Runner) -> each item reports its own case -> the process
that owns the session (xdist controller, or the single process) merges the cases, writes the
report atomically and applies the gate.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.progress import Tally, Ticker, progress_seconds, without_terminal
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.backends.local_weights import canonical_model_name
from pytest_gameeval.pytest_plugin.settings import (
    NODE_PREFIX, GateConfig, Settings, game_of_nodeid, gate_metric_option, parse_pairs, parse_scalar, shard_map,
)

# Imported by every pytest run: nothing heavy here. inspect, scipy and the games' code load only
# when a model is given (runner, analysis.report, analysis.gate).
EVALUATED = "evaluated"  # = engine.spec.EVALUATED, not imported to keep this module light

DEFAULT_REPORT = "reports/gameeval-report.json"
NO_MODEL_REASON = "gameeval: no model to evaluate (give --gameeval-model=PROVIDER/MODEL or set gameeval_model in the ini file)"


# -- options ---------------------------------------------------------------------------------------

# (flag, ini name, ini type, default, help); the command line wins over the ini file
_OPTIONS: list[tuple[str, str, str | None, Any, str]] = [
    ("--gameeval-model", "gameeval_model", "string", None, "inspect model under evaluation, e.g. openai/gpt-4o-mini, gameeval/local"),
    ("--gameeval-role", "gameeval_roles", "linelist", [], "bind a model role: NAME=MODEL (repeatable); unbound roles are played by the evaluated model"),
    ("--gameeval-model-arg", "gameeval_model_args", "linelist", [], "NAME=VALUE passed to every model the plugin creates, like inspect's -M (repeatable)"),
    ("--gameeval-games", "gameeval_games", "string", "", "comma-separated subset of games (default: every registered game)"),
    ("--gameeval-trials", "gameeval_trials", "string", "1", "trials (epochs) per dataset row"),
    ("--gameeval-limit", "gameeval_limit", "string", "0", "play only the first N rows of each game (0: all)"),
    ("--gameeval-seed", "gameeval_seed", "string", "0", "base seed of every game"),
    ("--gameeval-protocol", "gameeval_protocol", "string", "", "default|paper: every game in the paper's setting and metric definitions (docs/fidelity.md); same as --gameeval-option protocol=paper"),
    ("--gameeval-option", "gameeval_options", "linelist", [], "game option [GAME.]NAME=VALUE, as the inspect task arguments (repeatable)"),
    ("--gameeval-data", "gameeval_data", "linelist", [], "GAME=FILE: your own data file for a game, like -T data=FILE (repeatable; relative to the current directory, in the ini file to the rootdir)"),
    ("--gameeval-report", "gameeval_report", "string", DEFAULT_REPORT, "report JSON path (relative to the rootdir); records go beside it"),
    ("--gameeval-baseline", "gameeval_baseline", "string", "", "baseline report: gate this run against it"),
    ("--gameeval-concurrency", "gameeval_concurrency", "string", "32", "games in flight per process"),
    ("--gameeval-max-connections", "gameeval_max_connections", "string", "0", "concurrent calls per model (inspect's max_connections; 0: the provider's default)"),
    ("--gameeval-shard-size", "gameeval_shard_size", "string", "0", "cases played together by one process (0: the concurrency)"),
    ("--gameeval-cache", "gameeval_cache", "bool", False, "cache model calls with inspect's cache"),
    ("--gameeval-only", "gameeval_only", "bool", False, "run only the game cases: collect no test files (e.g. for a CI gate)"),
    ("--gameeval-summary-md", "gameeval_summary_md", "string", "", "also write the summary as markdown to this file (a PR comment; appended to $GITHUB_STEP_SUMMARY when set)"),
    ("--gameeval-resume", "gameeval_resume", "bool", False, "reuse the games a killed run of the same cases finished (its journal beside the report)"),
    ("--gameeval-gate-alpha", "gameeval_gate_alpha", "string", "0.05", "gate: false-alarm rate per game"),
    ("--gameeval-gate-beta", "gameeval_gate_beta", "string", "0.1", "gate: error rate of calling a metric 'same' when it is worse beyond its tolerance"),
    ("--gameeval-gate-tolerance", "gameeval_gate_tolerance", "string", "0.1", "gate: a change within +-this is 'same' (metric units)"),
    ("--gameeval-gate-looks", "gameeval_gate_looks", "string", "4", "gate: looks (interim analyses) per game"),
    ("--gameeval-gate-allow-missing", "gameeval_gate_allow_missing", "bool", False, "gate: a game missing from the baseline does not fail the gate"),
    ("--gameeval-gate-metric", "gameeval_gate_metrics", "linelist", [], "gate: also gate GAME.METRIC=higher|lower[:TOLERANCE] beside the headline, or GAME.METRIC=ignore (repeatable)"),
]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gameeval", "pytest-gameeval: LLMs playing games")
    for flag, ini, ini_type, default, help_text in _OPTIONS:
        dest = ini
        if ini_type == "linelist":
            group.addoption(flag, action="append", dest=dest, default=None, metavar="NAME=VALUE", help=help_text)
        elif ini_type == "bool":
            group.addoption(flag, action="store_true", dest=dest, default=None, help=help_text)
            group.addoption(flag.replace("--gameeval-", "--gameeval-no-"), action="store_false", dest=dest, help=f"do not {help_text}")
        else:
            group.addoption(flag, dest=dest, default=None, help=help_text)
        parser.addini(ini, help_text, type=ini_type, default=default)  # type: ignore[arg-type]


def _value(config: pytest.Config, name: str) -> Any:
    given = config.getoption(name, None)
    return config.getini(name) if given is None else given


def _number(config: pytest.Config, name: str, kind: type, low: float) -> Any:
    raw = _value(config, name)
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise GameEvalError(f"{name.replace('_', '-')}={raw!r} must be a {kind.__name__}") from None
    if value < low:
        raise GameEvalError(f"{name.replace('_', '-')}={raw!r} must be at least {low}")
    return value


def _data_overrides(config: pytest.Config) -> list[tuple[str, str]]:
    """--gameeval-data GAME=FILE as the game option GAME.data=<absolute path>."""
    given = config.getoption("gameeval_data", None)
    base = config.invocation_params.dir if given is not None else config.rootpath
    out = []
    for game, file in parse_pairs(list(given if given is not None else config.getini("gameeval_data") or []), "--gameeval-data"):
        if game not in GAMES:
            raise GameEvalError(f"--gameeval-data {game}={file}: unknown game {game!r}; known games: {', '.join(sorted(GAMES))}")
        out.append((f"{game}.data", str(base / Path(file).expanduser())))
    return out


def _protocol(config: pytest.Config) -> list[tuple[str, str]]:
    """--gameeval-protocol as the option it stands for (a later --gameeval-option still wins)."""
    protocol = str(_value(config, "gameeval_protocol") or "").strip()
    return [("protocol", protocol)] if protocol else []


def settings_from_config(config: pytest.Config) -> Settings:
    games = [g.strip() for g in str(_value(config, "gameeval_games") or "").split(",") if g.strip()]
    alpha = _number(config, "gameeval_gate_alpha", float, 0.0)
    beta = _number(config, "gameeval_gate_beta", float, 0.0)
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise GameEvalError("--gameeval-gate-alpha and --gameeval-gate-beta must be between 0 and 0.5")
    model_args = {k: parse_scalar(v) for k, v in parse_pairs(list(_value(config, "gameeval_model_args") or []), "--gameeval-model-arg")}
    model = _value(config, "gameeval_model") or None
    roles = dict(parse_pairs(list(_value(config, "gameeval_roles") or []), "--gameeval-role"))
    settings = Settings(
        # a local GGUF is named by its identity (file name + short sha256) in records and reports
        model=canonical_model_name(model, model_args) if model else None,
        roles={role: ",".join(canonical_model_name(m.strip(), model_args) for m in bound.split(","))
               for role, bound in roles.items()},
        model_args=model_args,
        games=games,
        trials=_number(config, "gameeval_trials", int, 1),
        limit=_number(config, "gameeval_limit", int, 0),
        seed=_number(config, "gameeval_seed", int, 0),
        option_overrides=(_protocol(config) + parse_pairs(list(_value(config, "gameeval_options") or []), "--gameeval-option")
                          + _data_overrides(config)),
        concurrency=_number(config, "gameeval_concurrency", int, 1),
        shard_size=_number(config, "gameeval_shard_size", int, 0),
        max_connections=_number(config, "gameeval_max_connections", int, 0),
        cache=bool(_value(config, "gameeval_cache")),
        gate=GateConfig(alpha=alpha, beta=beta, tolerance=_number(config, "gameeval_gate_tolerance", float, 0.0),
                        looks=_number(config, "gameeval_gate_looks", int, 1),
                        allow_missing=bool(_value(config, "gameeval_gate_allow_missing"))),
        gate_metrics=gate_metric_option(list(_value(config, "gameeval_gate_metrics") or [])),
    )
    return settings


# -- session state ------------------------------------------------------------------------------------


class GameEvalState:
    """Everything the plugin keeps for one pytest process."""

    def __init__(self, config: pytest.Config, settings: Settings):
        self.config = config
        self.settings = settings
        self.plans: dict[str, Any] = {}  # game -> runner.GamePlan
        self.broken: dict[str, str] = {}  # game -> why its cases cannot be made (its data): one line
        self.baseline: dict[str, Any] | None = None
        self.baseline_path: Path | None = None
        self._runner: Any = None
        self.ran: dict[str, Any] = {}  # cases whose items ran in this process
        self.merged: list[dict[str, Any]] = []  # from xdist workers: {"cases", "records", "gates"}
        self.shards: dict[str, str] | None = None
        self.report: dict[str, Any] | None = None
        self.report_path: Path | None = None
        self.gate_summary: dict[str, Any] | None = None
        self.started = time.time()
        self.ticker: Ticker | None = None

    @property
    def runner(self) -> Any:
        if self._runner is None:
            from pytest_gameeval.pytest_plugin.runner import Runner

            self._runner = Runner(self.settings, self.baseline)
        return self._runner

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    @property
    def is_controller(self) -> bool:
        opt = self.config.option
        return not self.is_worker and getattr(opt, "dist", "no") != "no" and bool(getattr(opt, "tx", None))

    def make_plans(self) -> None:
        from pytest_gameeval.pytest_plugin.runner import plan_game, selected_specs

        settings = self.settings
        for spec in selected_specs(settings):
            try:
                # a scripted strength other games have but this one lacks: one line, before any play
                bound = [m for role, models in settings.roles.items() if role in spec.bindable_roles() for m in models.split(",")]
                for model in filter(None, [settings.model, *bound]):
                    spec.check_scripted_model(model.strip())
                self.plans[spec.name] = plan_game(spec, settings)
            except GameEvalError as e:  # a data or strength problem fails this game's item, not the session
                self.broken[spec.name] = str(e)

    def gated_games(self) -> set[str]:
        from pytest_gameeval.pytest_plugin.runner import make_gate

        if self.baseline is None:
            return set()
        return {name for name, plan in self.plans.items()
                if name in self.baseline["games"] and make_gate(plan.spec, self.settings, 1) is not None}


STATE = pytest.StashKey[GameEvalState]()


def _rootdir_moved(config: pytest.Config) -> str | None:
    """pytest picks its rootdir and ini file before plugins add their options, so the value of a
    two-word option ("--gameeval-baseline /abs/base.json") counts as a test path there: outside the
    project it moves the rootdir, and the project's ini settings are silently not read. Why, when
    that happened (the setup pytest would pick knowing our options differs from the one it took)."""
    from _pytest.config.findpaths import determine_setup

    args = [str(a) for a in config.invocation_params.args]
    flags = {flag for flag, _, kind, _, _ in _OPTIONS if kind != "bool"}
    split = [(a, args[i + 1]) for i, a in enumerate(args[:-1]) if a in flags]
    if not split:
        return None
    try:
        ns = config._parser.parse_known_args(args)
        rootpath, inipath, *_ = determine_setup(inifile=ns.inifilename, override_ini=ns.override_ini, args=ns.file_or_dir,
                                                rootdir_cmd_arg=ns.rootdir or None, invocation_dir=config.invocation_params.dir)
    except Exception:  # pytest internals changed: no check rather than a false alarm
        return None
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return None
    paths = [(f, v) for f, v in split if (config.invocation_params.dir / v).exists()]
    flag, value = (paths or split)[0]
    return (f"{flag} {value} (two words) made pytest take {value} for a test path: rootdir {config.rootpath} instead of "
            f"{rootpath}, so {inipath or 'the project ini file'} was not read; write {flag}={value}")


# inspect's retry policy hands tenacity a deprecated argument on every model call through its
# OpenAI-compatible providers: one warning per call in the user's summary, nothing they can act on.
INSPECT_RETRY_WARNING = "ignore:The 'initial' parameter is deprecated:DeprecationWarning:inspect_ai.model._retry"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gameeval: a game case played by pytest-gameeval (select with -m gameeval)")
    config.addinivalue_line("filterwarnings", INSPECT_RETRY_WARNING)
    moved = _rootdir_moved(config)
    if moved:
        raise pytest.UsageError(f"gameeval: {moved}")
    try:
        settings = settings_from_config(config)
        state = GameEvalState(config, settings)
        config.stash[STATE] = state
        _check_usage(state)
        if settings.model:
            _prepare(state)
    except GameEvalError as e:
        raise pytest.UsageError(f"gameeval: {e}") from None
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(state), "gameeval-xdist")


def _check_usage(state: GameEvalState) -> None:
    """With or without a model: a typo in a gameeval option (game, option name or value, role,
    scripted strength) is one usage error line at start. Game modules load only when gameeval
    options were given, so a plain run of the user's suite stays light."""
    from pytest_gameeval.games.registry import check_scripted_model, get_spec

    settings = state.settings
    unknown = [g for g in settings.games if g not in GAMES]
    if unknown:
        raise GameEvalError(f"--gameeval-games: unknown game(s) {', '.join(unknown)}; known games: {', '.join(sorted(GAMES))}")
    if not (settings.model or settings.option_overrides or settings.roles):
        return
    specs = [get_spec(name) for name in settings.games or GAMES]
    settings.check_overrides(specs)
    for spec in specs:
        settings.game_options(spec)  # option values: types and choices
    used_roles = set().union(*(s.bindable_roles() for s in specs))
    for role, model in settings.roles.items():
        if role not in used_roles:
            raise GameEvalError(f"--gameeval-role {role}: no selected game has this model role; roles: {', '.join(sorted(used_roles))}")
        for one in model.split(","):
            check_scripted_model(one.strip())
    if settings.model:
        check_scripted_model(settings.model)


def _prepare(state: GameEvalState) -> None:
    """With a model: every input checked now, so bad input is one line before anything runs;
    a game whose data cannot be read fails its own item instead (state.broken)."""
    from pytest_gameeval.pytest_plugin.runner import expected_decoding, make_gate
    from pytest_gameeval.analysis.report import incomparable, read_report

    settings = state.settings
    state.make_plans()
    for plan in state.plans.values():  # gate metrics must name real scores, baseline or not
        make_gate(plan.spec, settings, 1)
    baseline = _value(state.config, "gameeval_baseline")
    if baseline:
        path = Path(baseline)
        if not path.is_absolute():
            path = state.config.rootpath / path
        state.baseline_path = path
        state.baseline = read_report(path)
        preview = {"games": {name: {"options": p.options, "dataset": p.dataset,
                                    "structured": expected_decoding(p.spec, p.options, settings)}
                             for name, p in state.plans.items()}}
        in_both = [g for g in state.plans if g in state.baseline["games"]]
        reasons = incomparable(state.baseline, preview, games=in_both)
        if reasons:
            raise GameEvalError(f"baseline {baseline} does not match this run: " + "; ".join(reasons))
    _open_journal(state)
    if not state.is_controller:
        state.runner.pool.check()
        _start_progress(state)


# The real stdout and stderr, kept before pytest's capture takes fds 1 and 2 (a test's output is
# captured, and the game cases play inside a test): progress lines for CI logs go there. An xdist
# worker writes to the stderr it inherited (it has no terminal of its own).
_REAL_STREAMS: dict[int, Any] = {}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> Any:
    for fd in (1, 2):
        if fd not in _REAL_STREAMS:
            try:
                _REAL_STREAMS[fd] = os.fdopen(os.dup(fd), "w", buffering=1)
            except OSError:  # no such fd: no progress lines there
                pass
    return (yield)


def _start_progress(state: GameEvalState) -> None:
    """Without a terminal (CI), a line per game every GAMEEVAL_PROGRESS_SECONDS from each process
    that plays: games finished (of the session's total; an xdist worker counts its own share),
    the headline so far and the outcomes."""
    seconds = progress_seconds()
    worker = getattr(state.config, "workerinput", {}).get("workerid")
    stream = _REAL_STREAMS.get(2 if worker else 1)  # one process: beside pytest's own report (stdout)
    if seconds is None or stream is None or not without_terminal(stream):
        return
    for name, plan in state.plans.items():
        label = f"{name} ({worker}'s share of {len(plan.cases)})" if worker else name
        state.runner.progress[name] = Tally(label, None if worker else len(plan.cases), plan.spec.headline)
    broken_at = [0]

    def write(line: str) -> None:
        terminal = None if worker else state.config.pluginmanager.get_plugin("terminalreporter")
        width = terminal._tw.width_of_current_line if terminal is not None else 0
        if width and width != broken_at[0]:  # pytest is mid-line ("gameeval ...."): end it first
            stream.write("\n")
        broken_at[0] = width
        stream.write(line + "\n")
        stream.flush()

    state.ticker = Ticker(seconds, lambda: list(state.runner.progress.values()), write).start()


def report_path_of(state: GameEvalState) -> Path:
    path = Path(str(_value(state.config, "gameeval_report")))
    return path if path.is_absolute() else state.config.rootpath / path


def _open_journal(state: GameEvalState) -> None:
    """Every process that plays journals its finished games; --gameeval-resume reuses them.
    Without it the controller (or the single process) starts a fresh journal."""
    from pytest_gameeval.pytest_plugin.journal import Journal, clear_journal, load_journal

    report_path = report_path_of(state)
    try:  # an unwritable report path is bad input: say so before any game is played
        report_path.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(report_path.parent, os.W_OK) or report_path.is_dir():
            raise PermissionError("not writable")
    except OSError as e:
        raise GameEvalError(f"--gameeval-report {report_path}: unwritable (OS error: {e.strerror or e})") from None
    if _value(state.config, "gameeval_resume"):
        if not state.is_controller:
            state.runner.resumed = load_journal(report_path)
    elif not state.is_worker:
        clear_journal(report_path)
    if not state.is_controller:
        worker = getattr(state.config, "workerinput", {}).get("workerid", "main")  # not the env: subprocesses inherit it
        state.runner.journal = Journal(report_path, worker)


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is not None and state.ticker is not None:
        state.ticker.stop()
    if state is not None and state._runner is not None:
        state._runner.close()


# -- collection -------------------------------------------------------------------------------------


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """--gameeval-only: no test files at all, only the game cases."""
    if _value(config, "gameeval_only") and collection_path != config.rootpath:
        return True
    return None


class GameEvalCollector(pytest.Collector):
    """The parent of every game case (node id "gameeval")."""

    def collect(self) -> list[Any]:
        return []


class GameCaseError(Exception):
    """A harness error while playing a case (the traceback is the message)."""


class GameCaseItem(pytest.Item):
    def __init__(self, *, case: Any = None, placeholder: str | None = None, broken: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.case = case
        self.placeholder = placeholder
        self.broken = broken  # why this game's cases could not be made (e.g. its data file)

    def runtest(self) -> None:
        state = self.config.stash[STATE]
        if self.broken is not None:
            raise GameEvalError(self.broken)
        if self.case is None:
            pytest.skip(self.placeholder or NO_MODEL_REASON)
        result = state_result(state, self)
        state.ran[self.case.name] = result
        self.user_properties.append(("gameeval_status", result.status))
        if result.record is not None:
            record = result.record
            self.user_properties.append(("gameeval_outcome", record.label))
            if record.outcome.get("winner") is not None:
                self.user_properties.append(("gameeval_winner", str(record.outcome["winner"])))
            for kind, n in record.failure_totals().items():
                self.user_properties.append((f"gameeval_{kind}", n))
            self.user_properties.append(("gameeval_seed", record.seed))
            for key, value in (result.scores or {}).items():  # the game's metrics, as --junitxml properties
                self.user_properties.append((f"gameeval_score_{key}", value))
        if result.status == "error":
            raise GameCaseError(result.error)
        if result.status == "not played":
            pytest.skip(result.reason or "not played")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, GameCaseError):
            return f"harness error while playing {self.name}:\n{excinfo.value}"
        if isinstance(excinfo.value, GameEvalError):
            return f"gameeval: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, 0, self.name


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    state = config.stash.get(STATE, None)
    if state is None:
        return
    parent = GameEvalCollector.from_parent(session, name="gameeval", nodeid="gameeval")
    added: list[pytest.Item] = []
    _add_items(state, parent, added)
    items.extend(added)
    # tell the terminal (and xdist) about them as if a collector had found them
    config.hook.pytest_collectreport(report=pytest.CollectReport(parent.nodeid, "passed", None, added))


def _add_items(state: GameEvalState, parent: GameEvalCollector, items: list[pytest.Item]) -> None:
    if not state.settings.model:
        # Without a model nothing is played, so nothing is loaded: one skipped item per game
        # (listing every case would load every dataset and print hundreds of skips in every
        # run of the user's suite).
        names = [g for g in (state.settings.games or GAMES) if g in GAMES]
        for name in names:
            item = GameCaseItem.from_parent(parent, name=f"{name}[all-cases]", placeholder=NO_MODEL_REASON)
            item.add_marker(pytest.mark.gameeval)
            item.add_marker(pytest.mark.skip(reason=NO_MODEL_REASON))
            items.append(item)
        return
    for name, reason in state.broken.items():
        item = GameCaseItem.from_parent(parent, name=f"{name}[all-cases]", broken=reason)
        item.add_marker(pytest.mark.gameeval)
        items.append(item)
    for name, plan in state.plans.items():
        for case in plan.cases:
            item = GameCaseItem.from_parent(parent, name=case.name, case=case)
            item.add_marker(pytest.mark.gameeval)
            items.append(item)


def state_result(state: GameEvalState, item: GameCaseItem) -> Any:
    """This item's case result, playing its whole shard first if needed."""
    case = item.case
    assert case is not None
    if case.name not in state.runner.results:
        session_items = [i for i in item.session.items if isinstance(i, GameCaseItem) and i.case is not None]
        if state.shards is None:
            state.shards = shard_map([i.nodeid for i in session_items], state.settings.cases_per_shard, state.gated_games())
        key = state.shards.get(item.nodeid)
        shard = [i.case for i in session_items if state.shards.get(i.nodeid) == key]
        gate = None
        if case.game in state.gated_games():
            from pytest_gameeval.pytest_plugin.runner import make_gate

            gate = make_gate(state.plans[case.game].spec, state.settings, len(shard))
            state.runner.gates[case.game] = gate
        state.runner.play_shard(shard, gate)  # type: ignore[arg-type]
    return state.runner.results[case.name]


# -- fixtures ---------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def gameeval_settings(pytestconfig: pytest.Config) -> Settings:
    """The run's settings (model, roles, options, ...)."""
    return pytestconfig.stash[STATE].settings


@pytest.fixture
def gameeval_play(pytestconfig: pytest.Config) -> Any:
    """play(game, row=None, *, trial=0, options=None, roles=None) -> GameRecord.

    Plays one game now. `row`: a dataset row id (default: the first row); `options`: game
    options; `roles`: model role -> model string or Player (e.g. ReplayPlayer), overriding
    --gameeval-model/--gameeval-role. Skips the test when no model is given anywhere."""
    state = pytestconfig.stash[STATE]

    def play(game: str, row: str | None = None, *, trial: int = 0, options: dict[str, Any] | None = None,
             roles: dict[str, Any] | None = None) -> Any:
        from pytest_gameeval.games.registry import get_spec
        from pytest_gameeval.pytest_plugin.runner import Case

        roles = dict(roles or {})
        if EVALUATED not in roles and not state.settings.model:
            pytest.skip(NO_MODEL_REASON)
        try:  # bad arguments or data: one line, not a traceback into our code
            spec = get_spec(game)
            opts = spec.parse_options({"seed": state.settings.seed, **(options or {})})
            rows = spec.rows(opts)
            chosen = rows[0] if row is None else next((r for r in rows if r.id == row), None)
            if chosen is None:
                raise GameEvalError(f"{game}: no row {row!r}")
        except GameEvalError as e:
            pytest.fail(f"gameeval: {e}", pytrace=False)
        case = Case(game, chosen, trial, opts, spec.case_id(chosen, opts, trial), 0)
        result = state.runner.play_now(case, roles)
        if result.status == "not played":  # a seat has no model (no --gameeval-model)
            pytest.skip(result.reason or NO_MODEL_REASON)
        if result.status != "played" or result.record is None:
            raise GameCaseError(result.error)
        return result.record

    return play


# -- merging, report, gate ------------------------------------------------------------------------------


def _local_payload(state: GameEvalState) -> dict[str, Any]:
    results = sorted(state.ran.values(), key=lambda r: (r.case.game, r.case.index))
    return {
        "cases": [r.entry() for r in results],
        "records": [r.record.to_dict() for r in results if r.record is not None],
        "gates": {g: gate.to_dict() for g, gate in state.runner.gates.items()},
    }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(STATE, None)
    if state is None or not state.settings.model:
        return
    if state.is_worker:
        session.config.workeroutput["gameeval"] = json.dumps(_local_payload(state), allow_nan=True)  # type: ignore[attr-defined]
        return
    payloads = state.merged if state.is_controller else [_local_payload(state)]
    if not any(p["cases"] for p in payloads) and not _broken_and_selected(state, session):
        return  # no game case ran (deselected or skipped): nothing to report
    try:
        write_session_report(state, payloads)
    except GameEvalError as e:
        session.config.get_terminal_writer().line(f"gameeval: error: {e}", red=True)
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
        return
    if state.gate_summary and state.gate_summary["verdict"] == "fail" and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _broken_and_selected(state: GameEvalState, session: pytest.Session) -> list[str]:
    """Games whose data could not be read and whose item was selected (it failed with the reason)."""
    selected = {i.name.split("[")[0] for i in session.items if isinstance(i, GameCaseItem) and i.broken is not None}
    if state.is_controller:  # the controller runs no item; its collection is the same
        selected = set(state.broken)
    return sorted(g for g in state.broken if g in selected)


def _errored_game(name: str, reason: str, settings: Settings) -> dict[str, Any]:
    """A game whose cases could not be made (its data): in the report, with no games and the reason."""
    from pytest_gameeval.pytest_plugin.runner import directions_of, score_keys

    spec = get_spec(name)
    rate_keys, mean_keys = score_keys(spec)
    return {"title": spec.title, "options": {}, "dataset": {}, "cases_selected": 0, "cases_reported": 0, "cases_played": 0,
            "cases_error": 0, "metrics": {}, "rate_keys": rate_keys, "mean_keys": mean_keys,
            "directions": directions_of(spec, settings), "usage": {}, "failures": {}, "notes": [], "structured": None,
            "data_error": reason}


def write_session_report(state: GameEvalState, payloads: list[dict[str, Any]]) -> None:
    from pytest_gameeval import __version__
    from pytest_gameeval.engine.record import GameRecord
    from pytest_gameeval.pytest_plugin.journal import clear_journal
    from pytest_gameeval.pytest_plugin.runner import directions_of, score_keys
    from pytest_gameeval.analysis.report import (
        SCHEMA, SCHEMA_VERSION, git_info, incomparable, redact_args, redact_mapping, write_json_atomic, write_jsonl_atomic,
    )

    settings = state.settings
    cases: dict[str, dict[str, Any]] = {}
    records: dict[str, dict[str, Any]] = {}
    gates: dict[str, dict[str, Any]] = {}
    for p in payloads:
        for c in p["cases"]:
            cases.setdefault(c["id"], c)
        for r in p["records"]:
            records.setdefault(f"{r['game']}[{r['instance_id']}]#{r['epoch']}", r)
        for g, v in p["gates"].items():
            if g not in gates or v["games_used"] > gates[g]["games_used"]:
                gates[g] = v
    ordered = sorted(cases.values(), key=lambda c: (c["game"], c["index"]))
    games: dict[str, Any] = {}
    for name in sorted({c["game"] for c in ordered}):
        plan = state.plans[name]
        spec = plan.spec
        game_cases = [c for c in ordered if c["game"] == name]
        game_records = [GameRecord.from_dict(records[k]) for k in records if records[k]["game"] == name]
        game_records.sort(key=lambda r: (r.instance_id, r.epoch))
        rate_keys, mean_keys = score_keys(spec)
        usage: dict[str, dict[str, Any]] = {}
        for c in game_cases:
            for seat, u in (c.get("usage") or {}).items():
                agg = usage.setdefault(seat, {"role": c["seats"][seat]["role"], "models": [], "input_tokens": 0, "output_tokens": 0, "calls": 0})
                if c["seats"][seat]["model"] not in agg["models"]:
                    agg["models"].append(c["seats"][seat]["model"])
                for k in ("input_tokens", "output_tokens", "calls"):
                    agg[k] += u.get(k, 0)
        failures: dict[str, int] = {}
        for c in game_cases:
            for per_seat in (c.get("failures") or {}).values():
                for kind, n in per_seat.items():
                    failures[kind] = failures.get(kind, 0) + n
        notes = sorted({n for r in game_records for n in r.notes})
        decodings = {r.structured for r in game_records}
        opponents: dict[str, set[str]] = {}  # who played each model role but the evaluated one
        for r in game_records:
            for role, who in r.opponents().items():
                opponents.setdefault(role, set()).add(who)
        games[name] = {
            "title": spec.title,
            "options": plan.options,
            "dataset": plan.dataset,
            "cases_selected": len(plan.cases),
            "cases_reported": len(game_cases),
            "cases_played": sum(c["status"] == "played" for c in game_cases),
            "cases_error": sum(c["status"] == "error" for c in game_cases),
            "metrics": spec.summarize(game_records) if game_records else {},
            "headline": spec.headline,  # what the gate, report diff and gameeval compare test
            "rate_keys": rate_keys,
            "mean_keys": mean_keys,
            "directions": directions_of(spec, settings),
            "usage": usage,
            "failures": failures,
            "notes": notes,
            # structured decoding as actually used by the game's seats: "on", "off" or "mixed"
            "structured": decodings.pop() if len(decodings) == 1 else ("mixed" if decodings else None),
            # model role -> who played it ("self": the evaluated model); runs with other opponents do not compare
            "opponents": {role: ",".join(sorted(who)) for role, who in sorted(opponents.items())},
        }
    for name in sorted(state.broken):
        if name not in games:
            games[name] = _errored_game(name, state.broken[name], settings)
    data_errors = sorted(g for g in games if games[g].get("data_error"))
    gate_summary = None
    if state.baseline is not None:
        from pytest_gameeval.analysis.gate import missing_game

        missing = sorted(g for g in games if g not in state.baseline["games"])
        # a baseline game this run selected but never reached the gate with (its items failed
        # before play, or none was played): "missing", which fails, never "passed"
        for name in sorted(set(state.plans) & set(state.baseline["games"]) - set(gates) - set(data_errors)):
            if name in state.gated_games():
                played = [c for c in ordered if c["game"] == name and c["status"] == "played"]
                if not played:
                    errors = sum(c["status"] == "error" for c in ordered if c["game"] == name)
                    gates[name] = missing_game(name, len(state.plans[name].cases), settings.gate,
                                               f"no game of it was played ({errors} harness errors)")
        missing = [g for g in missing if g not in data_errors]
        # who played the other seats is known only from the records: a gate against other opponents is no gate
        compared = [g for g in games if g not in missing and g not in data_errors and g in state.baseline["games"]]
        opponents_differ = [r for r in incomparable(state.baseline, {"games": games}, games=compared) if "different opponents" in r]
        failing = (any(g["verdict"] == "fail" for g in gates.values()) or (missing and not settings.gate.allow_missing)
                   or bool(data_errors) or bool(opponents_differ))
        gate_summary = {
            "baseline": str(state.baseline_path),
            "baseline_models": state.baseline.get("models"),
            "verdict": "fail" if failing else "pass",
            "missing_from_baseline": missing,
            "opponents_differ": opponents_differ,
            "allow_missing": settings.gate.allow_missing,
            "tolerance": settings.gate.tolerance, "alpha": settings.gate.alpha, "beta": settings.gate.beta,
            "looks": settings.gate.looks,
            "games": gates,
            "not_gated": sorted(g for g in games if g not in gates and g not in missing and g not in data_errors),
            "data_errors": data_errors,
        }
    report_path = report_path_of(state)
    report = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "package": {"name": "pytest-gameeval", "version": __version__},
        "git": git_info(state.config.rootpath),
        "models": {"evaluated": settings.model, "roles": settings.roles, "model_args": redact_mapping(settings.model_args)},
        "settings": {"games": sorted(games), "trials": settings.trials, "limit": settings.limit, "seed": settings.seed,
                     "options": [f"{k}={v}" for k, v in settings.option_overrides], "concurrency": settings.concurrency,
                     "cache": settings.cache},
        "run": {"pytest_args": redact_args(state.config.invocation_params.args),
                "workers": len(state.merged) if state.is_controller else 0,
                "seconds": round(time.time() - state.started, 2),
                "resumed": bool(_value(state.config, "gameeval_resume")),
                "reused_from_journal": sum(str(c.get("reason", "")).startswith("resumed") for c in ordered),
                "python": sys.version.split()[0], "records": report_path.with_suffix(".records.jsonl").name},
        "games": games,
        "cases": ordered,
        "gate": gate_summary,
    }
    write_jsonl_atomic(report_path.with_suffix(".records.jsonl"), [records[k] for k in sorted(records)])
    write_json_atomic(report_path, report)
    clear_journal(report_path)  # the report now holds every game
    state.report, state.report_path, state.gate_summary = report, report_path, gate_summary
    _write_markdown_summary(state)


def _write_markdown_summary(state: GameEvalState) -> None:
    """--gameeval-summary-md FILE, and $GITHUB_STEP_SUMMARY (appended) when set."""
    from pytest_gameeval.pytest_plugin.summary import markdown_summary

    target = str(_value(state.config, "gameeval_summary_md") or "")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY", "")
    if not (target or step_summary):
        return
    assert state.report is not None and state.report_path is not None
    headlines = {name: get_spec(name).headline for name in state.report["games"] if name in GAMES}
    text = "\n".join(markdown_summary(state.report, state.report_path, headlines)) + "\n"
    from pytest_gameeval.analysis.report import _write_atomic

    path = Path(target) if target else None
    if path is not None and not path.is_absolute():
        path = state.config.invocation_params.dir / path
    try:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(path, lambda f: f.write(text))
        if step_summary:
            with open(step_summary, "a", encoding="utf-8") as f:
                f.write(text)
    except OSError as e:
        raise GameEvalError(f"markdown summary {e.filename or path}: cannot write ({e.strerror or e})") from None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is None or state.report is None:
        return
    from pytest_gameeval.pytest_plugin import summary  # scipy: only once a report exists

    tr = terminalreporter
    tr.section("gameeval")
    for name, game in state.report["games"].items():
        cases = [c for c in state.report["cases"] if c["game"] == name]
        for line in summary.game_lines(name, game, cases, get_spec(name).headline if name in GAMES else None):
            tr.write_line(line)
    tr.write_line(f"report: {state.report_path}")
    resume_line = summary.resume_line(state.report)
    if resume_line:
        tr.write_line(resume_line)
    gate = state.gate_summary
    if gate is None:
        return
    from pytest_gameeval.analysis.verdict_table import gate_lines

    tr.write_line("")
    for text, markup in gate_lines(gate, state.report["models"]["evaluated"]):
        tr.write_line(text, **markup)


# -- xdist -----------------------------------------------------------------------------------------


class XdistHooks:
    """Registered only when pytest-xdist is installed (its hooks do not exist otherwise)."""

    def __init__(self, state: GameEvalState):
        self.state = state

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", None) or {}
        if "gameeval" in output:
            self.state.merged.append(json.loads(output["gameeval"]))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Keep each shard of game cases on one worker (it plays the shard concurrently);
        every other test is scheduled as with --dist load (or loadgroup, when asked for)."""
        if config.getvalue("dist") not in ("load", "loadgroup") or not self.state.settings.model:
            return None
        from xdist.scheduler import LoadGroupScheduling

        state = self.state

        class GameEvalScheduling(LoadGroupScheduling):
            _shards: dict[str, str] | None = None

            def _split_scope(self, nodeid: str) -> str:
                if game_of_nodeid(nodeid) is None:
                    return super()._split_scope(nodeid)
                if self._shards is None:
                    self._shards = shard_map(list(self.collection or []), state.settings.cases_per_shard, state.gated_games())
                return self._shards.get(nodeid, nodeid)

        return GameEvalScheduling(config, log)


__all__ = ["NODE_PREFIX", "GameCaseItem", "GameEvalCollector", "GameEvalState", "settings_from_config"]
