"""The store of runs from pytest (issue 58): `--gameeval-save[=NAME]` / `--gameeval-autosave` store
the run's report and records when the session has written them (only the process that writes the
report: the xdist controller, or the single process), `--gameeval-compare[=REF]` takes the baseline
from the store, `--gameeval-storage` says where. The store and the choice: analysis/history/.

What is stored: a run that wrote its report. An interrupted run writes none (its finished games wait
in the journal for --gameeval-resume; the resumed run is the one stored), and a run the provider
stopped (nothing measured, exit 6), or that played no game at all, is not stored either: stored, it
would become the newest run and the next run's baseline. A run whose gate failed is stored, marked
so (`gate.verdict` in its meta.json), and is passed over when `latest` picks a baseline.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.pytest_plugin.options import option_value
from pytest_gameeval.pytest_plugin.state import STATE, GameEvalState

SAVED = pytest.StashKey[str]()
CHOSEN = pytest.StashKey[str]()  # the stored run the controller chose ("": none), handed to xdist workers
WORKER_KEY = "gameeval_compare_run"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gameeval", "pytest-gameeval: LLMs playing games")
    group.addoption("--gameeval-save", dest="gameeval_save", nargs="?", const="", default=None, metavar="NAME",
                    help="store this run (report and records) in the history store, optionally named NAME")
    group.addoption("--gameeval-autosave", dest="gameeval_autosave", action="store_true", default=None,
                    help="store every run in the history store")
    group.addoption("--gameeval-storage", dest="gameeval_storage", default=None, metavar="URL",
                    help="the history store: a folder (relative to the rootdir; default .gameeval) or an fsspec URL "
                         "(s3://bucket/prefix, ...)")
    group.addoption("--gameeval-compare", dest="gameeval_compare", nargs="?", const="latest", default=None,
                    metavar="REF", help="gate against a stored run: latest (default: the newest comparable one), "
                                        "latest-if-any (no comparable run: not gated), an id, id prefix or NAME")
    parser.addini("gameeval_save", "store every run under this NAME", type="string", default="")
    parser.addini("gameeval_autosave", "store every run in the history store", type="bool", default=False)
    parser.addini("gameeval_storage", "the history store (folder or fsspec URL)", type="string", default="")
    parser.addini("gameeval_compare", "gate against a stored run (latest, latest-if-any, id or NAME)", type="string",
                  default="")


def storage_of(config: pytest.Config) -> str:
    """The store's URL, or its folder (relative ones to the rootdir, like the report): the option or
    ini key, else $GAMEEVAL_STORAGE, the store `gameeval history` reads by default (one variable set
    in CI must point both at one store), else .gameeval."""
    given = str(option_value(config, "gameeval_storage") or os.environ.get("GAMEEVAL_STORAGE") or "").strip()
    given = given.removeprefix("file://")  # a local folder however written: relative to the rootdir, checked as one
    if "://" in given:
        return given
    path = Path(given or ".gameeval").expanduser()
    return str(path if path.is_absolute() else config.rootpath / path)


def save_name(config: pytest.Config) -> str | None:
    """NAME to save under ("" unnamed), or None when this run is not saved."""
    given = config.getoption("gameeval_save", None)
    if given is not None:
        return str(given)
    if str(config.getini("gameeval_save") or ""):
        return str(config.getini("gameeval_save"))
    return "" if option_value(config, "gameeval_autosave") else None


def _store(config: pytest.Config) -> Any:
    from pytest_gameeval.analysis.history.store import RunStore

    return RunStore(storage_of(config))


def stored_baseline(state: GameEvalState) -> str | None:
    """With --gameeval-compare: the chosen run's report (checked), as a local path the session reads
    like --gameeval-baseline's; the line saying which run and why goes to the header."""
    config = state.config
    ref = str(option_value(config, "gameeval_compare") or "").strip()
    if save_name(config) is not None and state.settings.slice is not None:
        raise GameEvalError("--gameeval-save/--gameeval-autosave store a whole run, not one slice: merge the slices "
                            "(gameeval report merge) and store the merged report with gameeval history add")
    if (save_name(config) is not None or ref) and not state.is_worker:
        _report_outside_store(state)
    if save_name(config) is not None and not state.is_worker:
        from pytest_gameeval.analysis.history.store import check_name

        check_name(save_name(config) or "", "--gameeval-save")
        _check_writable(config)
    if not ref:
        return None
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKER_KEY in workerinput:  # the controller's choice, not a later run's
        ref = workerinput[WORKER_KEY]
        if not ref:
            return None
    if option_value(config, "gameeval_baseline"):
        raise GameEvalError("--gameeval-compare and --gameeval-baseline both name a baseline: give one")
    from pytest_gameeval.analysis.history.choose import choose
    from pytest_gameeval.run.plan import expected_decoding

    settings = state.settings
    preview = {"games": {name: {"options": p.options.as_dict(), "dataset": p.dataset, "version": p.spec.version,
                                "structured": expected_decoding(p.spec, p.options, settings)}
                         for name, p in state.plans.items()}}
    store = _store(config)
    choice = choose(store, ref, preview, allow_version_change=settings.gate.allow_version_change,
                    allow_missing=settings.gate.allow_missing)
    state.notes.append(choice.line)
    config.stash[CHOSEN] = choice.run.id if choice.run is not None else ""
    if choice.run is None:
        return None
    scratch = None if store.local else Path(tempfile.mkdtemp(prefix="gameeval-baseline-"))
    if scratch is not None:
        config.add_cleanup(lambda: shutil.rmtree(scratch, ignore_errors=True))
    _, path = store.load(choice.run, scratch)  # a stored run edited by hand: one line naming the file
    return str(path)


def _report_outside_store(state: GameEvalState) -> None:
    """The run's report is never written into the store: a stored run changes only by a new save."""
    from pytest_gameeval.pytest_plugin.state import report_path_of

    url = storage_of(state.config)
    report = report_path_of(state).resolve()
    if "://" not in url and Path(url).resolve() in report.parents:
        raise GameEvalError(f"--gameeval-report {report} lies inside the history store {url}: a stored run is never "
                            "overwritten; give a report path outside it")


def _check_writable(config: pytest.Config) -> None:
    """A store this run cannot save to is bad input: one line before any game is played."""
    store = _store(config)
    try:
        store.check_writable()
    except GameEvalError as e:
        raise GameEvalError(f"--gameeval-storage: {e}") from None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist workers gate against the run the controller chose, even if another job saved a newer
    comparable run in between."""
    chosen = node.config.stash.get(CHOSEN, None)
    if chosen is not None:
        node.workerinput[WORKER_KEY] = chosen


@pytest.hookimpl(trylast=True)  # after report_writer's: the report and records are written
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(STATE, None)
    name = save_name(session.config)
    if state is None or state.report is None or state.report_path is None or name is None or state.is_worker:
        return
    from pytest_gameeval.run.exit_codes import PROVIDER_FAILED

    if session.exitstatus == PROVIDER_FAILED or not any(c["status"] == "played" for c in state.report["cases"]):
        why = "the provider stopped the run" if session.exitstatus == PROVIDER_FAILED else "no game was played"
        session.config.stash[SAVED] = f"not saved to the history store: {why} (nothing measured)"
        return
    lost = _games_lost(state.report["cases"])
    if lost:  # a run cut short under xdist writes a report, but it is not the release's measurement
        session.config.stash[SAVED] = f"not saved to the history store: {lost}: a run cut short is not stored " \
                                      "(rerun to play them all)"
        return
    from pytest_gameeval.analysis.history.meta import meta_of

    try:
        store = _store(session.config)
        written = json.loads(state.report_path.read_text(encoding="utf-8"))  # as a reader will see it (JSON)
        run_id = store.save(state.report_path, meta_of(written, name=name, source="pytest"))
    except (GameEvalError, OSError, ValueError) as e:
        session.config.get_terminal_writer().line(f"gameeval: error: history store: {e}", red=True)
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
        return
    named = f" (name '{name}')" if name else ""
    session.config.stash[SAVED] = f"saved: run {run_id}{named} in {store.label}"


def _games_lost(cases: list[dict[str, Any]]) -> str:
    """The games this run meant to play and lost ("" none): cut by --timeout under xdist, or in
    flight on a worker that crashed. Stored, such a run would be the newest and the next baseline."""
    from pytest_gameeval.pytest_plugin.report_writer import TIMEOUT_CUT, WORKER_CRASHED

    cut = sum(str(c.get("reason", "")).startswith(TIMEOUT_CUT) for c in cases)
    crashed = sum(c.get("reason") == WORKER_CRASHED for c in cases)
    bits = [f"{cut} {'game' if cut == 1 else 'games'} cut by --timeout"] if cut else []
    bits += [f"{crashed} {'game' if crashed == 1 else 'games'} lost with a crashed xdist worker"] if crashed else []
    return ", ".join(bits)


@pytest.hookimpl(trylast=True)  # after the gameeval section's lines
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    line = config.stash.get(SAVED, None)
    if line:
        terminalreporter.write_line(line)
