"""The session's end: xdist workers hand their cases over, the owning process (xdist controller,
or the single process) merges them, writes the report and records atomically, applies the gate and
prints the terminal summary."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_gameeval import __version__
from pytest_gameeval.analysis.verdicts.game import gate_failures, no_played_game
from pytest_gameeval.analysis.verdicts.table import gate_lines
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import TEXT, beside
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.pytest_plugin.items import GameCaseItem
from pytest_gameeval.pytest_plugin.options import option_value
from pytest_gameeval.pytest_plugin.state import STATE, GameEvalState, plays_nothing, report_path_of
from pytest_gameeval.run.journal import clear_journal
from pytest_gameeval.run.settings import Settings

# The modules these functions load inside their bodies are loaded lazily on purpose: this module
# is imported by every pytest run (plugin.py), with or without a model, and the game records
# (jsonlines), the runner (inspect) and the report and gate (scipy) cost a second or more to import.


def _local_payload(state: GameEvalState) -> dict[str, Any]:
    results = sorted(state.ran.values(), key=lambda r: (r.case.game, r.case.index))
    return {
        "cases": [r.entry() for r in results],
        "records": [r.record_as_dict() for r in results if r.record is not None],  # made as each game ended
        "gates": {g: {**gate.to_dict(), "cases_deselected": state.deselected_cases(g)}
                  for g, gate in state.runner.gates.items()},
        "not_reused": state.runner.not_reused,  # journalled games of another game, by reason
        "gate_items": sorted(state.gate_items_ran),  # the games whose verdict item ran here
        "gates_selected": sorted(state.gates_selected),  # the games whose verdict item was selected
    }



def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(STATE, None)
    if state is None or not state.settings.model or plays_nothing(session.config):
        return  # --co: no game ran, nothing to hand over or report (and no runner, so no inspect, is made)
    if state.is_worker:
        session.config.workeroutput["gameeval"] = json.dumps(_local_payload(state), allow_nan=True)  # type: ignore[attr-defined]
        return
    payloads = state.merged if state.is_controller else [_local_payload(state)]
    if _not_kept(session, state, payloads):
        return
    state.stopped = state.stopped or str(session.shouldfail or session.shouldstop or "")  # -x, --maxfail, --sw
    # killed (Ctrl-C, SIGTERM from CI): keep the journal
    if exitstatus == pytest.ExitCode.INTERRUPTED and not _stopped_by_pytest(state):
        _say_interrupted(session, state)
        return
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
    if _provider_stopped(state):  # nothing measured: say so apart from a model that got worse
        from pytest_gameeval.run.exit_codes import PROVIDER_FAILED

        session.exitstatus = PROVIDER_FAILED


def _not_kept(session: pytest.Session, state: GameEvalState, payloads: list[dict[str, Any]]) -> bool:
    """A finished game the journal could not keep (a full disk) stopped the run: no report (it could
    not be written either, and would hold only some games), one line, exit 3, the journal kept."""
    from pytest_gameeval.run.journal import journal_files, load_journal
    from pytest_gameeval.run.runner import NOT_KEPT

    causes = [c["reason"][len(NOT_KEPT):] for p in payloads for c in p["cases"]
              if str(c.get("reason") or "").startswith(NOT_KEPT)]
    if not causes:
        return False
    report_path = report_path_of(state)
    kept = len(load_journal(report_path))
    where = ", ".join(str(p) for p in journal_files(report_path)) or "no journal"
    session.config.get_terminal_writer().line(
        f"\ngameeval: error: {causes[0]}; the run stopped, no report written; {kept} finished "
        f"{'game' if kept == 1 else 'games'} kept in {where}; free space, then run the same command with "
        "--gameeval-resume to play only the rest", red=True)
    session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
    return True


def _stopped_by_pytest(state: GameEvalState) -> bool:
    """pytest ended the session early on purpose (stepwise's --sw after a failure: exit 2 like a
    Ctrl-C), not a kill: the games it played are reported."""
    return bool(state.stopped) and not state.killed


def _say_interrupted(session: pytest.Session, state: GameEvalState) -> None:
    """No report from a run cut short (it would hold only some games, and writing it clears the
    journal): the finished games stay in the journal, and the same command with --gameeval-resume
    plays only the rest."""
    from pytest_gameeval.run.journal import journal_files, load_journal

    report_path = report_path_of(state)
    kept = len(load_journal(report_path))
    where = ", ".join(str(p) for p in journal_files(report_path)) or "no journal"
    how = "interrupted"
    if state.timed_out:  # timeouts.py: pytest-timeout; xdist_stall.py: a controller no worker can help
        how = state.timed_out if state.timed_out.startswith("xdist stalled") else f"timed out ({state.timed_out})"
    if not kept:  # nothing to resume from: say so, not "0 finished games kept in no journal"
        session.config.get_terminal_writer().line(
            f"\ngameeval: {how}: no report written; no game had finished, nothing kept; run the same command "
            "again to play them", red=True)
        return
    session.config.get_terminal_writer().line(
        f"\ngameeval: {how}: no report written; {kept} finished {'game' if kept == 1 else 'games'} kept in "
        f"{where}; run the same command with --gameeval-resume to play only the rest", red=True)


def _provider_stopped(state: GameEvalState) -> bool:
    from pytest_gameeval.pytest_plugin.summary import provider_failures

    return state.report is not None and provider_failures(state.report["cases"])["stopped"] is not None


def _broken_and_selected(state: GameEvalState, session: pytest.Session) -> list[str]:
    """Games whose data could not be read and whose item was selected (it failed with the reason)."""
    selected = {i.name.split("[")[0] for i in session.items if isinstance(i, GameCaseItem) and i.broken is not None}
    if state.is_controller:  # the controller runs no item; its collection is the same
        selected = set(state.broken)
    return sorted(g for g in state.broken if g in selected)


def _errored_game(name: str, reason: str, settings: Settings) -> dict[str, Any]:
    """A game whose cases could not be made (its data): in the report, with no games and the reason."""
    from pytest_gameeval.run.plan import directions_of, score_keys  # lazy: the games' code

    spec = get_spec(name)
    rate_keys, mean_keys = score_keys(spec)
    return {
        "title": spec.title,
        "version": spec.version,
        "fingerprint": spec.fingerprint,
        "options": {},
        "dataset": {},
        "cases_selected": 0,
        "cases_reported": 0,
        "cases_played": 0,
        "cases_error": 0,
        "metrics": {},
        "rate_keys": rate_keys,
        "mean_keys": mean_keys,
        "directions": directions_of(spec, settings),
        "usage": {},
        "failures": {},
        "notes": [],
        "structured": None,
        "data_error": reason,
    }


def _merged(payloads: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Cases by id, records by game, case and epoch, and each game's gate (the one that used the
    most games: the xdist worker that played it), from every process's payload."""
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
    return cases, records, gates


def local_game_entry(state: GameEvalState, game: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One game's cases played in this process, in order, and its report entry as the session's
    report will hold it (a gate item judges its game by it)."""
    cases, records, _ = _merged([_local_payload(state)])
    ordered = sorted((c for c in cases.values() if c["game"] == game), key=lambda c: c["index"])
    if not ordered:
        return [], {}
    return ordered, _game_entries(state, ordered, {k: r for k, r in records.items() if r["game"] == game})


def _game_entries(state: GameEvalState, ordered: list[dict[str, Any]],
                  records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The report's `games`: every game played, and every game whose data could not be read."""
    from pytest_gameeval.analysis.report.game import game_entry  # lazy: jsonlines, the games' specs
    from pytest_gameeval.engine.record import GameRecord
    from pytest_gameeval.run.plan import directions_of  # lazy: the games' code

    games: dict[str, Any] = {}
    for name in sorted({c["game"] for c in ordered}):
        plan = state.plans[name]
        game_records = [GameRecord.from_dict(records[k]) for k in records if records[k]["game"] == name]
        game_records.sort(key=lambda r: (r.instance_id, r.epoch))
        games[name] = game_entry(plan.spec, plan.options.as_dict(), plan.dataset, plan.selected,
                                 [c for c in ordered if c["game"] == name], game_records,
                                 directions_of(plan.spec, state.settings))
    for name in sorted(state.broken):
        if name not in games:
            games[name] = _errored_game(name, state.broken[name], state.settings)
    return games


def _gate_summary(state: GameEvalState, games: dict[str, Any], gates: dict[str, dict[str, Any]],
                  ordered: list[dict[str, Any]], judged: set[str],
                  unjudged: tuple[set[str], dict[str, Any]]) -> dict[str, Any] | None:
    """The report's `gate` section: every gated game's entry, what could not be gated and why, and
    the session's pass/fail (game_verdict.gate_failures decides it)."""
    if state.baseline is None:
        return None
    from pytest_gameeval.analysis.report.file import fresh_notes, incomparable, rejudged_notes, version_changes
    from pytest_gameeval.analysis.verdicts.gate import missing_game  # lazy: scipy

    settings, baseline = state.settings, state.baseline
    data_errors = sorted(g for g in games if games[g].get("data_error"))
    # a baseline game this run selected but never reached the gate with (its items failed
    # before play, or none was played): "missing", which fails, never "passed"
    # a game whose gate item did not run: not judged, neither missing nor failed; left out (-k, -m,
    # node ids), or selected but never reached (the run stopped first: -x, --maxfail, --sw)
    selected, cut = unjudged  # games whose gate item was selected; gates whose item never ran
    not_selected = sorted(set(state.gate_item_games()) - judged - set(data_errors) - selected)
    not_reached = {g: _not_reached(state, cut.get(g)) for g in sorted(selected & set(state.gate_item_games())
                                                                     - judged - set(data_errors))}
    for name in sorted(set(state.plans) & set(baseline["games"]) & judged - set(gates) - set(data_errors)):
        why = no_played_game([c for c in ordered if c["game"] == name])
        if name in state.gated_games() and why:
            gates[name] = missing_game(name, len(state.plans[name].cases), settings.gate, why)
    missing = sorted(g for g in games if g not in baseline["games"] and g not in data_errors and g in judged)
    # who played the other seats is known only from the records: a gate against other opponents is no gate
    compared = [g for g in games if g not in missing and g not in data_errors and g in baseline["games"]]
    opponents_differ = [r for r in incomparable(baseline, {"games": games}, games=compared)
                        if "different opponents" in r]
    summary = {
        "baseline": str(state.baseline_path),
        "baseline_models": baseline.get("models"),
        "verdict": None,  # below, from everything else
        "missing_from_baseline": missing,
        "opponents_differ": opponents_differ,
        # games gated although their versions differ (--gameeval-allow-version-change): said on the verdict line
        "version_changes": version_changes(baseline, {"games": games}, compared),
        # games whose baseline was re-judged by the installed rules (gameeval rejudge): said on the verdict line
        "rejudged": rejudged_notes(baseline, compared),
        # games on fresh cases of another seed than the baseline's: other cases, compared unpaired
        "fresh": fresh_notes(baseline, {"games": games}, compared),
        "allow_missing": settings.gate.allow_missing,
        "tolerance": settings.gate.tolerance, "alpha": settings.gate.alpha, "beta": settings.gate.beta,
        "looks": settings.gate.looks,
        "games": gates,
        "not_gated": sorted(g for g in games if g not in gates and g not in missing and g not in data_errors
                            and g not in not_selected and g not in not_reached),
        "not_reached": not_reached,
        "data_errors": data_errors,
        "not_selected": not_selected,
    }
    summary["verdict"] = "fail" if gate_failures(summary) else "pass"
    return summary


def _not_reached(state: GameEvalState, gate: dict[str, Any] | None) -> str:
    """Why a selected gate item never ran, and what the gate had done to its game's cases."""
    why = f"the run stopped before it ({state.stopped})" if state.stopped else "the run stopped before it"
    if gate is not None and gate["games_used"] < gate["cases_available"]:
        why += (f"; the sequential gate had stopped its games after {gate['games_used']} of "
                f"{gate['cases_available']} (run its gate item to see the verdict)")
    return why


def _report(state: GameEvalState, games: dict[str, Any], ordered: list[dict[str, Any]], gate: dict[str, Any] | None,
            report_path: Path) -> dict[str, Any]:
    """The report: what was run and how, every game and case, the gate."""
    # lazy: scipy
    from pytest_gameeval.analysis.report.file import SCHEMA, SCHEMA_VERSION, git_info, redact_args, redact_mapping

    settings = state.settings
    report = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "package": {"name": "pytest-gameeval", "version": __version__},
        "git": git_info(state.config.rootpath),
        "models": {"evaluated": settings.model, "roles": settings.roles,
                   "model_args": redact_mapping(settings.model_args)},
        "settings": {"games": sorted(games), "trials": settings.trials, "limit": settings.limit, "seed": settings.seed,
                     "options": [f"{k}={v}" for k, v in settings.option_overrides], "concurrency": settings.concurrency,
                     "cache": settings.cache},
        "run": {"pytest_args": redact_args(state.config.invocation_params.args),
                "workers": len(state.merged) if state.is_controller else 0,
                "seconds": round(time.time() - state.started, 2),
                "resumed": bool(option_value(state.config, "gameeval_resume")),
                "reused_from_journal": sum(str(c.get("reason", "")).startswith("resumed") for c in ordered),
                "not_reused_from_journal": state.not_reused,
                "python": sys.version.split()[0], "records": beside(report_path, ".records.jsonl").name},
        "games": games,
        "cases": ordered,
        "gate": gate,
    }
    if settings.slice is not None:  # one machine's slice: `gameeval report merge` joins the slices
        report["shard"] = {"index": settings.slice[0], "count": settings.slice[1],
                           "cases": {name: len(plan.cases) for name, plan in sorted(state.plans.items())}}
    return report


def _journalled_payload(state: GameEvalState, reported: set[str]) -> dict[str, Any]:
    """Games this run finished and journalled that no process handed over (an xdist worker that
    crashed after them), and the cases that were in flight on a crashed worker (not played)."""
    from pytest_gameeval.engine.record import GameRecord
    from pytest_gameeval.run.journal import game_identity, load_journal, mismatch
    from pytest_gameeval.run.runner import HANDED_OVER_REASON, CaseResult

    if _nothing_left_in_journal(state, reported):  # not the journal read back whole at the end for nothing
        return {"cases": [], "records": [], "gates": {}}
    by_name = {c.name: c for plan in state.plans.values() for c in plan.cases}
    results = []
    for name, entries in load_journal(report_path_of(state)).items():
        case = by_name.get(name)
        if name in reported or case is None:
            continue
        identity = game_identity(state.settings, state.plans[case.game])
        options = json.loads(json.dumps(case.options.as_dict()))
        for entry in entries:
            if entry.get("run") == state.run_token and mismatch(entry, identity, options) is None:
                results.append(CaseResult(case, "played", GameRecord.from_dict(entry["record"]), entry["scores"],
                                          reason=HANDED_OVER_REASON))
                break
    done = reported | {r.case.name for r in results}
    for nodeid in sorted(state.crashed):
        case = by_name.get(nodeid.split("@", 1)[0].removeprefix("gameeval::"))
        if case is not None and case.name not in done:
            results.append(CaseResult(case, "not played", reason=WORKER_CRASHED))
    return {"cases": [r.entry() for r in results],
            "records": [r.record.to_dict() for r in results if r.record is not None], "gates": {}}


TIMEOUT_CUT = "cut by --timeout"  # runner.Runner.cut's reason
def _nothing_left_in_journal(state: GameEvalState, reported: set[str]) -> bool:
    """One process, no crashed worker, and every game it played reported: then the journal holds no
    game of this run that no item handed over (this process journalled only games it played, each
    kept in its runner's results as it ended), so it need not be read back (issue 62)."""
    if state.is_controller or state.crashed:
        return False
    return all(name in reported for name, r in state.runner.results.items() if r.status == "played")


WORKER_CRASHED = "its xdist worker crashed while the game was in flight: not played (rerun to play it)"


def write_session_report(state: GameEvalState, payloads: list[dict[str, Any]]) -> None:
    """Merge the processes' cases (and the games a crashed worker journalled), write the records
    and the report atomically, apply the gate; the journal goes once the report holds its games."""
    from pytest_gameeval.analysis.report.file import write_jsonl_atomic  # lazy: scipy

    reported = {c["id"] for p in payloads for c in p["cases"]}
    for p in payloads:
        for why, n in (p.get("not_reused") or {}).items():
            state.not_reused[why] = state.not_reused.get(why, 0) + n
    payloads = [*payloads, _journalled_payload(state, reported)]
    cases, records, gates = _merged(payloads)
    # a game whose gate item was left out (-k, -m, node ids) is not judged: no item would show it
    judged = set().union(*(p.get("gate_items", []) for p in payloads))
    selected = set().union(*(p.get("gates_selected", []) for p in payloads))
    cut = {g: v for g, v in gates.items() if g not in judged}  # the gate stopped its games, its item never ran
    gates = {g: v for g, v in gates.items() if g in judged}
    ordered = sorted(cases.values(), key=lambda c: (c["game"], c["index"]))
    games = _game_entries(state, ordered, records)
    gate_summary = _gate_summary(state, games, gates, ordered, judged, (selected, cut))
    report_path = report_path_of(state)
    report = _report(state, games, ordered, gate_summary, report_path)
    from pytest_gameeval.pytest_plugin.spend import add_spend  # the cost, gate savings and budget (issue 46)

    add_spend(state, report)
    from pytest_gameeval.analysis.report.file import records_seal
    from pytest_gameeval.analysis.report.measures import attach_verdicts
    from pytest_gameeval.analysis.report.schema import write_report  # checked against the shipped JSON Schema

    attach_verdicts(report)  # each game's entry carries its gate verdict
    records_path = beside(report_path, ".records.jsonl")
    write_jsonl_atomic(records_path, [records[k] for k in sorted(records)])
    report["run"].update(records_seal(records_path))  # the pair is one unit: readers check the seal
    write_report(report_path, report)
    clear_journal(report_path, {c["id"] for c in ordered if c["status"] == "played"})
    state.report, state.report_path, state.gate_summary = report, report_path, gate_summary
    _write_markdown_summary(state)


def _write_markdown_summary(state: GameEvalState) -> None:
    """--gameeval-summary-md FILE, and $GITHUB_STEP_SUMMARY (appended) when set."""
    from pytest_gameeval.analysis.report.file import write_atomic  # lazy: scipy
    from pytest_gameeval.pytest_plugin.summary import markdown_summary

    target = str(option_value(state.config, "gameeval_summary_md") or "")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY", "")
    if not (target or step_summary):
        return
    assert state.report is not None and state.report_path is not None
    headlines = {name: get_spec(name).headline for name in state.report["games"] if name in GAMES}
    text = "\n".join(markdown_summary(state.report, state.report_path, headlines)) + "\n"
    path = Path(target) if target else None
    if path is not None and not path.is_absolute():
        path = state.config.invocation_params.dir / path
    try:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, lambda f: f.write(text))
        if step_summary:
            with open(step_summary, "a", **TEXT) as f:  # a model name with a lone surrogate: escaped
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
    cut = [c for c in state.report["cases"] if str(c.get("reason", "")).startswith(TIMEOUT_CUT)]
    if cut:  # --timeout under xdist (timeouts.py): what was cut, in one line
        played = sum(c["status"] == "played" for c in state.report["cases"])
        tr.write_line(f"gameeval: timed out: --timeout cut {len(cut)} {'game' if len(cut) == 1 else 'games'} "
                      f"({', '.join(sorted({c['game'] for c in cut}))}; not played, rerun to play them); the "
                      f"{played} finished are in the report", red=True)
    resume_line = summary.resume_line(state.report)
    if resume_line:
        tr.write_line(resume_line)
    gate = state.gate_summary
    if gate is not None:
        tr.write_line("")
        for text, markup in gate_lines(gate, state.report["models"]["evaluated"]):
            tr.write_line(text, **markup)


@pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_terminal_summary")
def pytest_terminal_summary_cause_last(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> Any:
    """Why the provider stopped the run, as the very last lines, after pytest's short test summary:
    the cause is what a CI log shows. Outermost wrapper (tryfirst), so it writes after the terminal
    reporter's own wrapper, whose short summary on CI (the CI variable) holds each failure's whole
    message, the gate items' tables too."""
    result = yield
    state = config.stash.get(STATE, None)
    if state is not None and state.report is not None:
        from pytest_gameeval.pytest_plugin import summary

        for line in summary.provider_lines(state.report["cases"]):
            terminalreporter.write_line(line, red=True, bold=True)
    return result
