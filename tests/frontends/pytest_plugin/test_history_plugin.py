"""The store of runs from pytest (issue 58): --gameeval-autosave/--gameeval-save store whole runs,
--gameeval-compare gates against the newest comparable one with one line saying which and why, no
comparable run is one line and exit 4 (unless latest-if-any), and a stored run edited by hand is
refused with one line naming the file, as --gameeval-baseline refuses it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_gameeval.backends.registry  # noqa: F401  (imported once for pytester's in-process runs)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval.analysis.history.store import RunStore
from pytest_gameeval.cli import main as cli

pytest_plugins = ["pytester"]

RUN = ["-p", "no:cacheprovider", "--gameeval-only", "--gameeval-games", "askguess", "--gameeval-limit", "20"]
ORACLE, RANDOM = "--gameeval-model=gameeval/scripted/oracle", "--gameeval-model=gameeval/scripted/random"


def runs(path: Path) -> list:
    return RunStore(path / ".gameeval").runs()


@pytest.mark.slow  # several pytest runs: 10-20 s on 2 cores; .ci/run's slow stage runs it
def test_autosave_then_compare_picks_the_newest_comparable_run_and_says_why(pytester):
    first = pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-save=v1")
    assert first.ret == 0
    first.stdout.fnmatch_lines(["saved: run *Z-* (name 'v1') in */.gameeval"])
    # another game's run is newer, but not comparable (it has no askguess): passed over, said so
    other = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--gameeval-only", "--gameeval-games", "taboo",
                                         "--gameeval-limit", "2", RANDOM, "--gameeval-autosave")
    assert other.ret == 0
    stored = runs(pytester.path)
    assert [r.name for r in stored] == ["v1", ""] and stored[0].id < stored[1].id
    meta = stored[0].meta
    assert meta["models"]["evaluated"] == "gameeval/scripted/oracle" and meta["games"]["askguess"]["version"]
    assert meta["games"]["askguess"]["dataset"]["sha256"] and "played_quality" in meta["games"]["askguess"]["measures"]
    gated = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare", "--gameeval-autosave")
    assert gated.ret == 1  # random is worse than the oracle
    gated.stdout.fnmatch_lines([
        f"gameeval: baseline run {stored[0].id} ('v1', gameeval/scripted/oracle, *) from */.gameeval: the newest "
        f"stored run with the same games, versions and data; passed over 1 newer run ({stored[1].id}: it has no "
        "askguess)",
        "*gameeval gate FAILED (gameeval/scripted/random vs gameeval/scripted/oracle)*",
    ])
    latest = runs(pytester.path)[-1]
    assert latest.model == "gameeval/scripted/random" and latest.gate_failed  # stored, marked
    again = pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-compare=latest")
    again.stdout.fnmatch_lines([f"*baseline run {stored[0].id} *passed over 2 newer runs ({latest.id}: its own gate "
                                "failed*"])


def test_no_comparable_run_is_one_line_and_exit_4_unless_latest_if_any(pytester):
    none = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare")
    assert none.ret == 4
    none.stderr.fnmatch_lines(["ERROR: gameeval: --gameeval-compare: no baseline in */.gameeval: it holds no stored "
                               "run; save a comparable run first (--gameeval-autosave), or pass on a first run with "
                               "--gameeval-compare=latest-if-any"])
    first = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare=latest-if-any", "--gameeval-autosave")
    assert first.ret == 0
    first.stdout.fnmatch_lines(["gameeval: no baseline in */.gameeval: it holds no stored run; this run is not gated "
                                "(--gameeval-compare=latest-if-any)"])
    other_data = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare",
                                              "--gameeval-option=askguess.max_rounds=3")
    assert other_data.ret == 4
    other_data.stderr.fnmatch_lines(["ERROR: gameeval: --gameeval-compare: no baseline in *: none of its 1 stored runs "
                                     "is comparable with this run (newest: *Z-*: askguess: different game options "
                                     "max_rounds*"])
    named = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare=nosuchname")
    assert named.ret == 4
    named.stderr.fnmatch_lines(["ERROR: gameeval: history store *: no run 'nosuchname' (not an id, id prefix or name; "
                                "`gameeval history list` lists them)"])
    # a real baseline file beside --gameeval-compare: one line, not the file silently winning
    (stored,) = runs(pytester.path)
    real = pytester.path / ".gameeval" / "runs" / stored.id / "report.json"
    both = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare", f"--gameeval-baseline={real}")
    assert both.ret == 4
    both.stderr.fnmatch_lines(["ERROR: gameeval: --gameeval-compare and --gameeval-baseline both name a baseline: "
                               "give one*"])


def _stored_pair(pytester) -> tuple[Path, Path]:
    assert pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-autosave").ret == 0
    (run,) = runs(pytester.path)
    folder = pytester.path / ".gameeval" / "runs" / run.id
    return folder / "report.json", folder / "gameeval-report.json.records.jsonl"  # named from the whole report name


def test_a_stored_value_out_of_range_is_refused_naming_the_file(pytester, capsys):
    report_path, _ = _stored_pair(pytester)
    report = json.loads(report_path.read_text())
    report["cases"][0]["scores"]["played_quality"] = 7.0
    report_path.write_text(json.dumps(report))
    result = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare")
    assert result.ret == 4
    line = (f"ERROR: gameeval: {report_path}: case {report['cases'][0]['id']!r}, metric 'played_quality': 7.0 is "
            "outside [0, 1]")
    assert line in result.stderr.lines
    baseline = pytester.runpytest_inprocess(*RUN, RANDOM, f"--gameeval-baseline={report_path}")
    assert line in baseline.stderr.lines  # the same line as --gameeval-baseline gives
    capsys.readouterr()
    assert cli(["history", "--storage", str(pytester.path / ".gameeval"), "compare"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"gameeval: error: {report_path}: case 'askguess[") and "outside [0, 1]" in err
    assert len(err.splitlines()) == 1


def test_swapped_records_and_a_quiet_edit_are_refused_naming_the_file(pytester, capsys):
    report_path, records_path = _stored_pair(pytester)
    lines = records_path.read_text().splitlines(keepends=True)
    records_path.write_text("".join(reversed(lines)))  # same records, other order: not the file written
    result = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare")
    assert result.ret == 4
    result.stderr.fnmatch_lines([f"ERROR: gameeval: {report_path} and {records_path} do not belong together*"])
    records_path.write_text("".join(lines))
    report = json.loads(report_path.read_text())
    report["created"] = "2020-01-01T00:00:00Z"  # a plausible edit no range check catches: the seal does
    report_path.write_text(json.dumps(report))
    capsys.readouterr()
    assert cli(["history", "--storage", str(pytester.path / ".gameeval"), "compare"]) == 2
    assert f"{report_path}: changed after the run was saved" in capsys.readouterr().err


@pytest.mark.slow  # several pytest runs: 10-20 s on 2 cores; .ci/run's slow stage runs it
def test_a_save_cut_short_is_never_listed_nor_chosen(pytester):
    _stored_pair(pytester)
    (pytester.path / ".gameeval" / "runs" / "20991231T000000.000Z-deadbeef").mkdir()  # no meta.json
    assert len(runs(pytester.path)) == 1
    gated = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare")
    gated.stdout.fnmatch_lines(["gameeval: baseline run *Z-*: the newest stored run*"])


@pytest.mark.slow  # two pytest -n 2 sessions at once, then a third: 45 s on 2 idle cores, minutes on busy ones
def test_two_autosaving_runs_at_once_under_xdist_are_both_stored(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    env = {**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"}
    procs = []
    for model, where in (("oracle", "a"), ("random", "b")):
        cmd = [sys.executable, "-m", "pytest", *RUN, f"--gameeval-model=gameeval/scripted/{model}", "-n", "2",
               "--gameeval-autosave", f"--gameeval-report=reports/{where}.json"]
        procs.append(subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True))
    outs = [p.communicate(timeout=600)[0] for p in procs]  # 2 x (controller + 2 workers) on 2 shared cores
    assert [p.returncode for p in procs] == [0, 0], outs
    stored = RunStore(tmp_path / ".gameeval").runs()
    assert len(stored) == 2 and len({r.id for r in stored}) == 2  # one save each: the controllers, not the workers
    assert sorted(r.model for r in stored) == ["gameeval/scripted/oracle", "gameeval/scripted/random"]
    for run in stored:
        report, _ = RunStore(tmp_path / ".gameeval").load(run)
        assert report["models"]["evaluated"] == run.model and len(report["cases"]) == 20
    # under xdist the workers gate against the run the controller chose (handed to them, not chosen again)
    newest = max(stored, key=lambda r: r.id)
    cmd = [sys.executable, "-m", "pytest", *RUN, "--gameeval-model=gameeval/scripted/oracle", "-n", "2",
           "--gameeval-compare", "--gameeval-report=reports/c.json"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert f"gameeval: baseline run {newest.id} " in done.stdout, done.stdout[-3000:]
    gate = json.loads((tmp_path / "reports" / "c.json").read_text())["gate"]
    assert newest.id in gate["baseline"] and gate["games"]["askguess"]["games_used"] > 0


def test_an_edited_meta_json_cannot_pick_a_run(pytester):
    _stored_pair(pytester)
    (run,) = runs(pytester.path)
    meta_path = pytester.path / ".gameeval" / "runs" / run.id / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["models"]["evaluated"] = "some/other-model"
    meta_path.write_text(json.dumps(meta))
    result = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-compare")
    assert result.ret == 4
    assert (f"ERROR: gameeval: {meta_path}: does not match the run's report (model): edited after the save; a stored "
            "run is never edited") in result.stderr.lines


@pytest.mark.slow  # several pytest runs: 10-20 s on 2 cores; .ci/run's slow stage runs it
def test_the_ini_keys_save_and_compare_and_an_unwritable_store_is_one_line_before_play(pytester):
    pytester.makeini("[pytest]\ngameeval_autosave = true\ngameeval_storage = history\ngameeval_compare = "
                     "latest-if-any\n")
    assert pytester.runpytest_inprocess(*RUN, ORACLE).ret == 0
    assert pytester.runpytest_inprocess(*RUN, RANDOM).ret == 1  # gated against the first: worse
    stored = RunStore(pytester.path / "history").runs()
    assert [r.model for r in stored] == ["gameeval/scripted/oracle", "gameeval/scripted/random"]
    (pytester.path / "afile").write_text("")
    bad = pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-storage=afile/store")
    assert bad.ret == 4 and not list((pytester.path / "reports").glob("*.journal*"))
    bad.stderr.fnmatch_lines(["ERROR: gameeval: --gameeval-storage: history store */afile/store: cannot write there *"])
    (first,) = stored[:1]
    inside = pytester.runpytest_inprocess(*RUN, ORACLE, f"--gameeval-report=history/runs/{first.id}/report.json")
    assert inside.ret == 4
    inside.stderr.fnmatch_lines(["ERROR: gameeval: --gameeval-report */history/runs/*/report.json lies inside the "
                                 "history store */history: a stored run is never overwritten; give a report path "
                                 "outside it"])
    RunStore(pytester.path / "history").load(first)  # untouched


def test_gameeval_storage_in_the_environment_is_the_store_of_both_pytest_and_the_cli(pytester, monkeypatch, capsys):
    # CI sets GAMEEVAL_STORAGE once; the plugin must save where `gameeval history` reads, and a list
    # run from another folder (a subfolder of the rootdir) names the store it looked in
    shared = pytester.path / "shared-store"
    monkeypatch.setenv("GAMEEVAL_STORAGE", str(shared))
    assert pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-limit=4", "--gameeval-autosave").ret == 0
    assert not (pytester.path / ".gameeval").exists()
    (saved,) = RunStore(shared).runs()
    assert cli(["history", "list"]) == 0
    assert saved.id in capsys.readouterr().out
    monkeypatch.delenv("GAMEEVAL_STORAGE")
    monkeypatch.chdir(pytester.mkdir("sub"))
    assert cli(["history", "list"]) == 0
    assert f"0 stored runs in {pytester.path / 'sub' / '.gameeval'}" in capsys.readouterr().out


def test_a_name_compare_could_never_find_again_is_refused_before_play(pytester, capsys):
    # --gameeval-compare=latest means the newest comparable run, never a run NAMEd latest
    for name in ("latest", "latest-if-any", "20261128T173237.997Z-0c9ade0a"):
        done = pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-limit=2", f"--gameeval-save={name}")
        assert done.ret == 4
        done.stderr.fnmatch_lines([f"ERROR: gameeval: --gameeval-save='{name}': a run's NAME cannot be latest, *"])
        assert not (pytester.path / "reports" / "gameeval-report.json").exists() and not runs(pytester.path)
    assert pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-limit=2", "--gameeval-report=r.json").ret == 0
    assert cli(["history", "add", str(pytester.path / "r.json"), "--name", "latest"]) == 2
    assert "--name='latest': a run's NAME cannot be latest" in capsys.readouterr().err
    assert not runs(pytester.path)


def test_allow_missing_lets_compare_take_a_run_without_a_newly_added_game(pytester):
    # a game added to the suite: --gameeval-baseline with --gameeval-gate-allow-missing gates the
    # others; --gameeval-compare must do the same, not refuse every stored run
    assert pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-limit=4", "--gameeval-save=old").ret == 0
    both = [*RUN[:-3], "askguess,tofukingdom", "--gameeval-limit=4", ORACLE]
    refused = pytester.runpytest_inprocess(*both, "--gameeval-compare")
    assert refused.ret == 4
    refused.stderr.fnmatch_lines(["ERROR: gameeval: --gameeval-compare: no baseline in *: it has no tofukingdom*"])
    for ref in ("latest", "old"):
        done = pytester.runpytest_inprocess(*both, f"--gameeval-compare={ref}", "--gameeval-gate-allow-missing")
        assert done.ret == 0, ref
        done.stdout.fnmatch_lines(["gameeval: baseline run *'old'*", "*tofukingdom: not in the baseline * (allowed)*"])


def test_a_run_whose_gate_judged_no_game_is_not_listed_as_passed(pytester, capsys):
    assert pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-limit=4", "--gameeval-save=base").ret == 0
    left_out = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-limit=4", "--gameeval-compare=base",
                                            "-k", "not gate", "--gameeval-save=ungated")
    assert left_out.ret == 0
    left_out.stdout.fnmatch_lines(["gameeval gate not applied (*): no game judged"])
    ungated = runs(pytester.path)[-1]
    assert ungated.name == "ungated" and ungated.meta["gate"]["verdict"] == "not applied"
    assert cli(["history", "list"]) == 0
    [row] = [x for x in capsys.readouterr().out.splitlines() if "| ungated |" in x]
    assert "| not applied |" in row and "| pass |" not in row
    # such a run saved before "not applied" existed says "pass": still read, not refused as edited
    meta_path = pytester.path / ".gameeval" / "runs" / ungated.id / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["gate"]["verdict"] = "pass"
    meta_path.write_text(json.dumps(meta))
    assert cli(["history", "compare", "--last", "2"]) == 0
    # but failed-or-not must agree with the sealed report: `latest` passes over failed runs only
    capsys.readouterr()
    meta["gate"]["verdict"] = "fail"
    meta_path.write_text(json.dumps(meta))
    assert cli(["history", "compare", "--last", "2"]) == 2
    assert "meta.json: does not match the run's report (gate)" in capsys.readouterr().err



def test_a_file_url_store_is_a_folder_relative_to_the_rootdir(pytester):
    # run from a subfolder of the rootdir: file://hist is the rootdir's hist, as --gameeval-storage=hist is
    pytester.makeini("[pytest]\n")
    sub = pytester.mkdir("sub")
    done = subprocess.run([sys.executable, "-m", "pytest", *RUN, ORACLE, "--gameeval-limit=2", "--gameeval-autosave",
                           "--gameeval-storage=file://hist"], cwd=sub, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "saved: run " in done.stdout and f" in {pytester.path / 'hist'}" in done.stdout, done.stdout[-1000:]
    assert len(RunStore(pytester.path / "hist").runs()) == 1 and not (sub / "hist").exists()


def test_an_id_prefix_names_one_run_and_an_ambiguous_one_is_one_line(pytester):
    for _ in range(2):
        assert pytester.runpytest_inprocess(*RUN, ORACLE, "--gameeval-limit=2", "--gameeval-autosave").ret == 0
    first, second = runs(pytester.path)
    common = next(i for i in range(len(first.id)) if first.id[i] != second.id[i])
    picked = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-limit=2", f"--gameeval-compare={second.id[:-4]}")
    assert picked.ret == 0
    picked.stdout.fnmatch_lines([f"gameeval: baseline run {second.id} *: named by --gameeval-compare={second.id[:-4]}"])
    both = pytester.runpytest_inprocess(*RUN, RANDOM, "--gameeval-limit=2", f"--gameeval-compare={first.id[:common]}")
    assert both.ret == 4
    assert (f"ERROR: gameeval: history store {pytester.path / '.gameeval'}: '{first.id[:common]}' is the start of 2 "
            f"run ids ({first.id}, {second.id}): give more of it") in both.stderr.lines
