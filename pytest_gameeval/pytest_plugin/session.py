"""The session's start and end: settings and every input checked at configure time, the journal,
progress lines for CI logs, and the runner closed at the end."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.progress import Tally, Ticker, progress_seconds, without_terminal
from pytest_gameeval.engine.safe_io import OutputError
from pytest_gameeval.games.registry import GAMES
from pytest_gameeval.pytest_plugin.options import option_value, rootdir_moved, settings_from_config
from pytest_gameeval.pytest_plugin.state import STATE, GameEvalState, plays_nothing, report_path_of
from pytest_gameeval.pytest_plugin.xdist_hooks import XdistHooks
from pytest_gameeval.transport.fast_path import ENV as FAST_PATH_ENV

# inspect's retry policy hands tenacity a deprecated argument on every model call through its
# OpenAI-compatible providers: one warning per call in the user's summary, nothing they can act on.
INSPECT_RETRY_WARNING = "ignore:The 'initial' parameter is deprecated:DeprecationWarning:inspect_ai.model._retry"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gameeval: a game case played by pytest-gameeval (select with -m gameeval)")
    config.addinivalue_line("filterwarnings", INSPECT_RETRY_WARNING)
    moved = rootdir_moved(config)
    if moved:
        raise pytest.UsageError(f"gameeval: {moved}")
    try:
        settings = settings_from_config(config)
        state = GameEvalState(config, settings)
        config.stash[STATE] = state
        _check_usage(state)
        from pytest_gameeval.pytest_plugin.selection import games_in_selection

        state.in_selection = games_in_selection(config)
        if settings.model and state.in_selection:  # else: the user's own tests only, no game item
            _prepare(state)
    except OutputError as e:  # the disk, not the user: the documented exit code of a report not written
        pytest.exit(f"gameeval: error: {e}", returncode=pytest.ExitCode.INTERNAL_ERROR)
    except GameEvalError as e:
        raise pytest.UsageError(f"gameeval: {e}") from None
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(state), "gameeval-xdist")
    if settings.model:
        config.pluginmanager.register(EarlyStop(state), "gameeval-early-stop")
        _interrupt_on_sigterm()
        if not option_value(config, "gameeval_fast_path"):  # the player reads it per call, xdist workers inherit it
            os.environ[FAST_PATH_ENV] = "0"


def _interrupt_on_sigterm() -> None:
    """CI stops a job that ran too long with SIGTERM, which by default kills Python where it stands.
    As Ctrl-C instead, pytest ends the session as interrupted (exit 2) and says where the finished
    games are kept (report_writer). A handler the user installed is left alone."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, signal.default_int_handler)


def _check_usage(state: GameEvalState) -> None:
    """With or without a model: a typo in a gameeval option (game, option name or value, role,
    scripted strength) is one usage error line at start. Game modules load only when gameeval
    options were given, so a plain run of the user's suite stays light."""
    from pytest_gameeval.games.registry import check_scripted_model, get_spec

    settings = state.settings
    unknown = [g for g in settings.games if g not in GAMES]
    if unknown:
        raise GameEvalError(
            f"--gameeval-games: unknown game(s) {', '.join(unknown)}; known games: {', '.join(sorted(GAMES))}"
        )
    if not (settings.model or settings.option_overrides or settings.roles):
        return
    specs = [get_spec(name) for name in settings.games or GAMES]
    settings.check_overrides(specs)
    for spec in specs:
        settings.game_options(spec)  # option values: types and choices
    used_roles = set().union(*(s.bindable_roles() for s in specs))
    for role, model in settings.roles.items():
        if role not in used_roles:
            raise GameEvalError(
                f"--gameeval-role {role}: no selected game has this model role; roles: {', '.join(sorted(used_roles))}"
            )
        for one in model.split(","):
            check_scripted_model(one.strip())
    if settings.model:
        check_scripted_model(settings.model)


def _prepare(state: GameEvalState) -> None:
    """With a model: every input checked now, so bad input is one line before anything runs;
    a game whose data cannot be read fails its own item instead (state.broken)."""
    from pytest_gameeval.analysis.report.file import incomparable, read_report
    from pytest_gameeval.run.plan import expected_decoding, gate_metrics, score_keys

    settings = state.settings
    if not state.is_worker:  # before anything of an earlier run's files is touched
        _own_report_path(state)
    state.make_plans()
    # gate metrics must name real scores, baseline or not: checked here, kept for the gates
    state.gate_metrics = {name: gate_metrics(plan.spec, score_keys(plan.spec), settings)
                          for name, plan in state.plans.items()}
    from pytest_gameeval.pytest_plugin.history import stored_baseline  # --gameeval-compare: from the store

    stored = stored_baseline(state)  # always: it refuses --gameeval-baseline beside it and checks the store
    baseline = option_value(state.config, "gameeval_baseline") or stored
    if baseline and settings.slice is not None:
        raise GameEvalError(
            "--gameeval-shard plays one slice of the cases; gate the merged report instead: "
            "gameeval report merge OUT SLICES..., then gameeval report diff BASELINE OUT (docs/shards.md)"
        )
    if baseline:
        path = Path(baseline)
        if not path.is_absolute():
            path = state.config.rootpath / path
        state.baseline_path = path
        if _same_file(path, report_path_of(state)):
            raise GameEvalError(f"--gameeval-baseline {baseline} is the report this run writes (--gameeval-report): "
                                "the baseline would be replaced by the run it gates; give another --gameeval-report")
        state.baseline = read_report(path)
        _refuse_writing_the_baseline(state, baseline, path)
        preview = {"games": {name: {"options": p.options.as_dict(), "dataset": p.dataset, "version": p.spec.version,
                                    "structured": expected_decoding(p.spec, p.options, settings)}
                             for name, p in state.plans.items()}}
        in_both = [g for g in state.plans if g in state.baseline["games"]]
        reasons = incomparable(
            state.baseline,
            preview,
            games=in_both,
            allow_version_change=settings.gate.allow_version_change,
            version_flag="--gameeval-allow-version-change",
        )
        if reasons:
            raise GameEvalError(f"baseline {baseline} does not match this run: " + "; ".join(reasons))
    _open_journal(state)
    if not state.is_controller and not plays_nothing(state.config):
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
                _REAL_STREAMS[fd] = os.fdopen(os.dup(fd), "w", buffering=1, errors="backslashreplace")
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


def _same_file(a: Path, b: Path) -> bool:
    """The same file however written (relative, symlinked, hard-linked)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def _refuse_writing_the_baseline(state: GameEvalState, baseline: str, path: Path) -> None:
    """No file this run writes beside its report (records, journal, ledger, lock) is the baseline or
    the baseline's records: `--gameeval-report reports/last` beside a baseline `reports/last.json`
    written by an older version (whose records are `reports/last.records.jsonl`) is refused."""
    from pytest_gameeval.analysis.report.file import records_beside
    from pytest_gameeval.engine.safe_io import beside, same_file

    report = report_path_of(state)
    mine = [beside(report, s) for s in (".records.jsonl", ".spend.sqlite", ".lock", ".journal-main.jsonl")]
    for theirs in (path, records_beside(state.baseline, path)):
        for out in mine:
            if same_file(out, theirs):
                raise GameEvalError(f"--gameeval-baseline {baseline}: its file {theirs} is one this run writes beside "
                                    f"its report ({out}); give another --gameeval-report")


def _own_report_path(state: GameEvalState) -> None:
    """One run owns its report path (report_lock.py); a stale lock taken over is said in one line."""
    from pytest_gameeval.run.report_lock import ReportLock

    report_path = report_path_of(state)
    try:  # an unwritable report path is bad input: say so before any game is played
        report_path.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(report_path.parent, os.W_OK) or report_path.is_dir():
            raise PermissionError("not writable")
    except OSError as e:
        raise GameEvalError(f"--gameeval-report {report_path}: unwritable (OS error: {e.strerror or e})") from None
    state.lock = ReportLock(report_path)
    note = state.lock.acquire()
    if note:
        state.notes.append(note)


def _open_journal(state: GameEvalState) -> None:
    """Every process that plays journals its finished games and reads the journal back: with
    --gameeval-resume it reuses the same games of an earlier run; without, only those a crashed
    xdist worker of this run finished. Nothing is deleted here: a journal goes only once a report
    holding its games is written (report_writer), so `--co`, `--help`, a run of other games or a
    run without --gameeval-resume never lose an earlier run's finished games; a run without
    --gameeval-resume reuses none of them (the run token)."""
    import uuid

    from pytest_gameeval.run.journal import Journal, game_identity, load_journal

    report_path = report_path_of(state)
    resume = bool(option_value(state.config, "gameeval_resume"))
    workerinput = getattr(state.config, "workerinput", {})
    state.run_token = workerinput.get("gameeval_run") or uuid.uuid4().hex
    if state.is_controller or plays_nothing(state.config):
        return
    runner = state.runner
    runner.identities = {name: game_identity(state.settings, plan) for name, plan in state.plans.items()}
    runner.run_token, runner.resume_any = state.run_token, resume
    runner.resumed = load_journal(report_path)
    worker = workerinput.get("workerid", "main")  # not the env: subprocesses inherit it
    runner.journal = Journal(report_path, worker, state.run_token)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> Any:
    """The models load when the games are about to be played, never for collection (`--co`
    starts no embedded model): a bad model string is still one line before any game."""
    state = session.config.stash.get(STATE, None)
    if (state is not None and state.plans and not state.is_controller and not session.config.option.collectonly
            and any(i.nodeid.startswith("gameeval::") for i in session.items)):
        try:
            state.runner.pool.check()
        except GameEvalError as e:
            raise pytest.UsageError(f"gameeval: {e}") from None
    return (yield)


class EarlyStop:
    """pytest's own early stop (--sw's after a failure; -x/--maxfail under xdist) ends the session
    as "interrupted" like Ctrl-C, but nothing was killed: the games played are reported
    (report_writer). A KeyboardInterrupt (Ctrl-C, SIGTERM, a worker's) keeps the journal instead.
    (A plugin object: pytest_keyboard_interrupt is given no config.)"""

    def __init__(self, state: GameEvalState):
        self.state = state

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        value = excinfo.value
        ours = (type(value).__name__ == "Interrupted"  # pytest's Session.Interrupted says it is a builtin
                and type(value).__module__ in ("builtins", "_pytest.main", "xdist.dsession"))
        if ours and "keyboard-interrupt" not in str(value):  # xdist: "gw0 received keyboard-interrupt" is a kill
            self.state.stopped = str(value)
        else:
            self.state.killed = True


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is not None and state.ticker is not None:
        state.ticker.stop()
    if state is not None and state._runner is not None:
        state._runner.close()
    if state is not None and state.lock is not None:
        state.lock.release()
    for stream in _REAL_STREAMS.values():  # the duplicated fds, once the ticker is stopped: unclosed, -X dev warns
        try:
            stream.close()
        except OSError:
            pass
    _REAL_STREAMS.clear()


def pytest_sessionstart(session: pytest.Session) -> None:
    """What the user must know before the games (a stale lock taken over): shown even with -q."""
    state = session.config.stash.get(STATE, None)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if state is not None and reporter is not None:
        for note in state.notes:
            reporter.write_line(note, yellow=True)
