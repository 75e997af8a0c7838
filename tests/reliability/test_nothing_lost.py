"""Nothing lost, nothing mixed (issue 52): the fault matrix of docs/reliability.md's "what survives
what", each case against the real plugin (a pytest subprocess in a temporary project) over the
loopback OpenAI-compatible server, with real `kill -9`.

The kills, the two-runs race and the ledger are marked `slow` (they wait for games to finish):
`.ci/run` runs them, the README's test command does not.

Every game here is Ask-Guess, 3 questions, the evaluated model asking over HTTP (0.15 s a reply) and
our reference answerer answering: about half a second a game, so a kill lands between games.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import loopback_server

from pytest_gameeval.analysis.report.file import read_report, records_seal

MODEL = "openai-api/loopback/bench"
OTHER = "openai-api/loopback/other"
PLAN = ["--gameeval-games", "askguess", "--gameeval-limit", "8", "--gameeval-option", "max_rounds=3",
        "--gameeval-concurrency", "1"]


@pytest.fixture(scope="module")
def loopback():
    with loopback_server(900, latency=0.15) as url:
        yield url


@pytest.fixture
def project(tmp_path, loopback):
    (tmp_path / "conftest.py").write_text("")
    return tmp_path


def env(loopback: str) -> dict[str, str]:
    return {**os.environ, "LOOPBACK_BASE_URL": loopback, "LOOPBACK_API_KEY": "unused",
            "GAMEEVAL_PROGRESS_SECONDS": "0", "PYTHONDONTWRITEBYTECODE": "1"}


def args(model: str = MODEL, report: str = "out/r.json", *extra: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "--gameeval-only", "-p", "no:cacheprovider", "-p", "no:randomly",
            "--gameeval-model", model, *PLAN, f"--gameeval-report={report}", *extra]


def run(cwd: Path, loopback: str, *cmd: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), cwd=cwd, env=env(loopback), capture_output=True, text=True, timeout=timeout)


def journalled(folder: Path) -> list[str]:
    """Case ids in every journal file under `folder` (torn lines skipped)."""
    out = []
    for path in sorted(folder.glob("*.journal-*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                out.append(json.loads(line)["case"])
            except (json.JSONDecodeError, KeyError):
                pass
    return out


def start_and_kill(cwd: Path, loopback: str, cmd: list[str], *, games: int, victim=None) -> list[str]:
    """Start `cmd`, wait until `games` games are journalled, kill -9 the victim (the process, or
    victim(proc) -> pid); the journalled case ids."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env(loopback), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(journalled(cwd / "out")) < games:
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it could be killed"
            time.sleep(0.05)
        os.kill(victim(proc) if victim else proc.pid, signal.SIGKILL)
        if victim:
            proc.wait(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    return journalled(cwd / "out")


def assert_one_line_error(result: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    text = result.stdout + result.stderr
    assert result.returncode == code, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    for needle in needles:
        assert needle in text, text[-3000:]
    return text


def models_in(report: dict) -> set[str]:
    return {seat["model"] for c in report["cases"] if c["status"] == "played"
            for seat in c["seats"].values() if seat["played_as"] == "evaluated"}


# -- kills -------------------------------------------------------------------------------------------


@pytest.mark.slow  # kills and waits: .ci/run runs it
def test_a_resume_with_another_model_reuses_none_of_the_first_models_games(project, loopback):
    finished = start_and_kill(project, loopback, args(MODEL), games=2)
    assert 2 <= len(finished) < 8
    done = run(project, loopback, *args(OTHER, "out/r.json", "--gameeval-resume"))
    assert done.returncode == 0, done.stdout[-3000:]
    report = read_report(project / "out" / "r.json")
    assert models_in(report) == {OTHER}  # not one game of the first model under the second's name
    assert report["run"]["reused_from_journal"] == 0
    assert f"{len(finished)} journalled games not reused ({len(finished)}: other models)" in done.stdout
    assert not list((project / "out").glob("*.journal-*"))


@pytest.mark.slow  # kills and waits: .ci/run runs it
def test_a_torn_journal_line_is_cut_back_and_no_finished_game_is_lost(project, loopback):
    finished = start_and_kill(project, loopback, args(), games=2)
    journal = project / "out" / "r.json.journal-main.jsonl"
    with open(journal, "a") as f:  # a kill mid-write: half a line, no newline
        f.write('{"case": "askguess[hard-zebra-t0]", "options": {"max_ro')
    done = run(project, loopback, *args(MODEL, "out/r.json", "--gameeval-resume"))
    assert done.returncode == 0, done.stdout[-3000:]
    report = read_report(project / "out" / "r.json")
    ids = [c["id"] for c in report["cases"]]
    assert len(ids) == len(set(ids)) == 8
    reused = sorted(c["id"] for c in report["cases"] if c.get("reason", "").startswith("resumed"))
    assert reused == sorted(set(finished))  # every journalled game reused, none played twice
    assert f"resumed: reused {len(reused)} finished games" in done.stdout


@pytest.mark.slow  # kills and waits: .ci/run runs it
def test_a_killed_xdist_worker_loses_no_finished_game(project, loopback):
    """A worker killed once both have journalled games: the report holds every journalled game
    (handed over to the replacement worker or read from the journal), names any game that was in
    flight, and counts each case once."""
    cmd = args(MODEL, "out/r.json", "-n", "2", "--gameeval-shard-size=4")

    def victim(proc):
        out = project / "out"
        while not all(len(journalled_file(out / f"r.json.journal-{w}.jsonl")) >= 1 for w in ("gw0", "gw1")):
            time.sleep(0.05)
        workers = [c for c in psutil.Process(proc.pid).children() if "python" in " ".join(c.cmdline())]
        return workers[0].pid

    finished = start_and_kill(project, loopback, cmd, games=2, victim=victim)
    report = read_report(project / "out" / "r.json")
    by_id = {c["id"]: c for c in report["cases"]}
    assert len(by_id) == len(report["cases"]) == 8  # each case once, none silently missing
    for case in finished:  # every journalled game is in the report, played
        assert by_id[case]["status"] == "played", by_id[case]
    for case in report["cases"]:
        assert case["status"] == "played" or "crashed" in case.get("reason", ""), case


def journalled_file(path: Path) -> list[str]:
    """Case ids of one journal file's whole lines."""
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line)["case"] for line in lines if line.endswith("}")]


@pytest.mark.slow  # kills and waits: .ci/run runs it
def test_a_killed_xdist_controller_resumes_with_every_game_once(project, loopback):
    cmd = args(MODEL, "out/r.json", "-n", "2", "--gameeval-shard-size=4")
    workers: list[psutil.Process] = []

    def controller(proc):
        workers.extend(psutil.Process(proc.pid).children(recursive=True))
        return proc.pid

    start_and_kill(project, loopback, cmd, games=2, victim=controller)
    gone, alive = psutil.wait_procs(workers, timeout=60)  # workers end when their controller's pipe closes
    assert not alive, "xdist workers outlived their controller"
    finished = journalled(project / "out")  # a worker may have finished a game after the kill
    done = run(project, loopback, *cmd, "--gameeval-resume")
    assert done.returncode == 0, done.stdout[-3000:]
    report = read_report(project / "out" / "r.json")
    ids = [c["id"] for c in report["cases"]]
    assert len(ids) == len(set(ids)) == 8
    assert {c["id"] for c in report["cases"] if c.get("reason", "").startswith("resumed")} == set(finished)


# -- one run, one report path -------------------------------------------------------------------------


@pytest.mark.slow  # kills and waits: .ci/run runs it
def test_a_second_run_on_the_same_report_path_is_refused_and_touches_nothing(project, loopback):
    slow = ["--gameeval-option", "max_rounds=15"]  # ~2 s a game: still playing when the second starts
    first = subprocess.Popen(args(MODEL, "out/r.json", *slow), cwd=project, env=env(loopback), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while not journalled(project / "out"):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        before = (project / "out" / "r.json.journal-main.jsonl").read_text()
        second = run(project, loopback, *args(OTHER))
        assert_one_line_error(second, 4, "another run (pid", "is writing this report")
        assert (project / "out" / "r.json.journal-main.jsonl").read_text().startswith(before)  # its journal kept
        out, _ = first.communicate(timeout=240)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, out[-3000:]
    report = read_report(project / "out" / "r.json")
    assert len(report["cases"]) == 8 and models_in(report) == {MODEL}
    assert not (project / "out" / "r.json.lock").exists()  # released at the end


@pytest.mark.slow  # kills and waits: .ci/run runs it
def test_a_killed_runs_lock_is_taken_over_with_one_line(project, loopback):
    start_and_kill(project, loopback, args(), games=1)
    assert (project / "out" / "r.json.lock").exists()
    done = run(project, loopback, *args(MODEL, "out/r.json", "--gameeval-resume", "-q"))
    assert done.returncode == 0, done.stdout[-3000:]
    assert done.stdout.count("took over the lock of pid") == 1


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_a_baseline_that_is_the_report_path_is_refused_before_play(project, loopback):
    made = run(project, loopback, *args())
    assert made.returncode == 0, made.stdout[-3000:]
    before = (project / "out" / "r.json").read_bytes()
    for given in ("out/r.json", "./out/../out/r.json", str(project / "out" / "r.json")):
        same = run(project, loopback, *args(OTHER, "out/r.json", f"--gameeval-baseline={given}"))
        assert_one_line_error(same, 4, "is the report this run writes")
    assert (project / "out" / "r.json").read_bytes() == before


# -- files we did not write ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def made(tmp_path_factory, loopback):
    """A finished run's report and records (out/r.json), and a second run's (out/s.json); tests
    write their own files beside them and never change these."""
    project = tmp_path_factory.mktemp("made")
    (project / "conftest.py").write_text("")
    for report, limit in (("out/r.json", "8"), ("out/s.json", "3")):
        done = run(project, loopback, *args(MODEL, report, "--gameeval-limit", limit))
        assert done.returncode == 0, done.stdout[-3000:]
    return project


@pytest.mark.parametrize("value", [1e308, *(pytest.param(v, marks=pytest.mark.slow)
                                            for v in ("0.5", float("inf"), float("nan"), -0.1, 1.5, True))])
def test_an_out_of_range_or_non_finite_baseline_value_is_refused_in_one_line(made, loopback, cli, value):
    report = json.loads((made / "out" / "r.json").read_text())
    report["cases"][2]["scores"]["played_quality"] = value
    bad = f"bad-{value}.json"
    (made / bad).write_text(json.dumps(report))  # NaN and Infinity as Python's json writes them
    gated = run(made, loopback, *args(MODEL, "out/new.json", f"--gameeval-baseline={bad}"))
    case = report["cases"][2]["id"]
    assert_one_line_error(gated, 4, bad, case, "'played_quality'")
    assert not (made / "out" / "new.json").exists()
    assert_one_line_error(cli("report", "diff", "out/r.json", bad), 2, bad, "'played_quality'")


@pytest.fixture
def cli(made, monkeypatch, capsys):
    """`gameeval ARGS...` in this process, in `made`'s folder (a subprocess costs a second or two of
    start-up each): a CompletedProcess-like result; a traceback would fail the test as it raises."""
    from pytest_gameeval.cli import main

    monkeypatch.chdir(made)

    def call(*argv: str) -> subprocess.CompletedProcess:
        capsys.readouterr()
        code = main(list(argv))
        out = capsys.readouterr()
        return subprocess.CompletedProcess(["gameeval", *argv], code, out.out, out.err)

    return call


def test_a_report_with_another_runs_records_is_refused_by_every_reader(made, loopback, cli):
    """What a kill between the two renames leaves: new records beside an old report."""
    out, mixed = made / "out", made / "mixed"
    mixed.mkdir()
    (mixed / "r.json").write_bytes((out / "r.json").read_bytes())
    (mixed / "r.json.records.jsonl").write_bytes((out / "s.json.records.jsonl").read_bytes())
    for cmd in (["rejudge", "mixed/r.json"], ["report", "diff", "out/s.json", "mixed/r.json"],
                ["report", "merge", "m.json", "mixed/r.json"], ["leaderboard", "mixed/r.json", "--out", "board"]):
        assert_one_line_error(cli(*cmd), 2, "do not belong together")
    gated = run(made, loopback, *args(MODEL, "out/new.json", "--gameeval-baseline=mixed/r.json"))
    assert_one_line_error(gated, 4, "do not belong together")


def test_a_records_file_holding_each_game_twice_is_refused(made, cli):
    out = made / "out"
    text = (out / "r.json.records.jsonl").read_text()
    (made / "twice.jsonl").write_text(text + text)
    assert_one_line_error(cli("rejudge", "twice.jsonl"), 2, "twice.jsonl:9:", "already on line 1")


@pytest.mark.parametrize("name,content", [
    ("random.json", os.urandom(4000)),
    ("random.jsonl", os.urandom(4000)),
    ("other.json", b'{"name": "another tool", "results": [1, 2, 3]}'),
    ("other.jsonl", b'{"name": "another tool"}\n'),
    ("bad.jsonl", b'{"game": "askguess"\n'),
    ("deep.json", b"[" * 100000),
])
def test_garbage_to_every_reader_is_one_line(made, cli, name, content):
    (made / name).write_bytes(content)
    readers = [["rejudge", name]]
    if name.endswith(".json"):
        readers += [["report", "diff", "out/r.json", name], ["report", "merge", "m.json", name, name],
                    ["leaderboard", name, "--out", "board"]]
    for cmd in readers:
        assert_one_line_error(cli(*cmd), 2, name)


def test_a_truncated_report_is_refused_by_every_reader(made, loopback, cli):
    text = (made / "out" / "r.json").read_text()
    (made / "cut.json").write_text(text[: len(text) // 2])
    for cmd in (["rejudge", "cut.json"], ["report", "diff", "out/r.json", "cut.json"]):
        assert_one_line_error(cli(*cmd), 2, "cut.json", "not valid JSON")
    gated = run(made, loopback, *args(MODEL, "out/new.json", "--gameeval-baseline=cut.json"))
    assert_one_line_error(gated, 4, "cut.json")


def test_the_seal_ties_report_and_records(made):
    report = json.loads((made / "out" / "r.json").read_text())
    seal = records_seal(made / "out" / "r.json.records.jsonl")
    assert report["run"]["records_count"] == seal["records_count"] == 8
    assert report["run"]["records_sha256"] == seal["records_sha256"]
    assert not [p for p in (made / "out").iterdir() if ".tmp" in p.name]  # no stale temporary file


# -- user data and the budget ledger ------------------------------------------------------------------


@pytest.mark.parametrize("label", ["", *(pytest.param(v, marks=pytest.mark.slow) for v in ("   ", "\t"))])
def test_a_blank_word_in_user_data_is_a_file_line_error_before_play(project, loopback, label):
    rows = [{"label": "apple", "aliases": [], "homograph": False}, {"label": label, "aliases": [], "homograph": False}]
    (project / "words.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run(project, loopback, *args(MODEL, "out/r.json", "--gameeval-data=askguess=words.jsonl"))
    text = result.stdout + result.stderr
    assert result.returncode == 1 and "Traceback" not in text and "ValueError" not in text, text[-3000:]
    assert f"{project / 'words.jsonl'}:2: key 'label' is empty" in text
    report = read_report(project / "out" / "r.json")
    assert not [c for c in report["cases"] if c["status"] == "played"]


PRICES = "openai-api/loopback/bench: {input: 10.0, output: 40.0, input_cache_write: 0.0, input_cache_read: 5.0}\n"


@pytest.mark.slow  # kills and waits: .ci/run runs it
@pytest.mark.parametrize("how", ["deleted", "overwritten"])
def test_a_ledger_broken_mid_run_ends_the_run_in_one_line_keeping_finished_games(project, loopback, how):
    (project / "prices.yaml").write_text(PRICES)
    cmd = args(MODEL, "out/r.json", "--gameeval-cost-config=prices.yaml", "--gameeval-budget=10")
    proc = subprocess.Popen(cmd, cwd=project, env=env(loopback), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    ledger = project / "out" / "r.json.spend.sqlite"
    try:
        deadline = time.monotonic() + 120
        while len(journalled(project / "out")) < 2:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        if how == "deleted":
            ledger.unlink()
        else:
            ledger.write_bytes(b"not a database" * 100)
        out, _ = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1 and "Traceback" not in out, out[-3000:]
    assert "budget ledger" in out and "unreadable mid-run" in out
    report = read_report(project / "out" / "r.json")
    played = [c["id"] for c in report["cases"] if c["status"] == "played"]
    assert len(played) >= 2  # the finished games are kept
    assert all(c["status"] == "played" or c["reason"].startswith("budget") for c in report["cases"])


@pytest.mark.slow  # kills and waits: .ci/run runs it
def test_a_resumed_budget_run_counts_what_the_journalled_games_cost(project, loopback):
    (project / "prices.yaml").write_text(PRICES)
    budget = ["--gameeval-cost-config=prices.yaml", "--gameeval-budget=0.05"]
    finished = start_and_kill(project, loopback, args(MODEL, "out/r.json", *budget), games=3)
    done = run(project, loopback, *args(MODEL, "out/r.json", *budget, "--gameeval-resume"))
    assert done.returncode in (0, 1), done.stdout[-3000:]
    report = read_report(project / "out" / "r.json")
    costs = [c["cost"]["usd"] for c in report["cases"] if c["status"] == "played"]
    assert len([c for c in report["cases"] if c.get("reason", "").startswith("resumed")]) == len(finished)
    assert sum(costs) <= 0.05 + max(costs) + 1e-9  # never beyond the budget plus one game
    assert math.isclose(report["cost"]["budget"]["spent"], sum(costs), rel_tol=1e-6)


@pytest.mark.slow  # kills and waits: .ci/run runs it
@pytest.mark.parametrize("at, victim_has", [(12, "fewer"), (13, "fewer"), (15, "fewer"), (14, "more")])
def test_an_xdist_worker_killed_late_never_hangs_the_run(project, loopback, at, victim_has):
    """16 games, 2 workers, shards of 4: a worker killed once `at` games are journalled (its first
    shard done, the other worker done or nearly). xdist 3.8 handed the replacement worker the
    finished shard and waited for ever (2 of 2 trials); now the run ends with its report."""
    cmd = args(MODEL, "out/r.json", "-n", "2", "--gameeval-shard-size=4", "--gameeval-limit", "16")  # the last wins
    proc = subprocess.Popen(cmd, cwd=project, env=env(loopback), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        out = project / "out"
        counts = {}
        deadline = time.monotonic() + 240
        while sum(counts.values()) < at:
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended before the kill"
            counts = {w: len(journalled_file(out / f"r.json.journal-{w}.jsonl")) for w in ("gw0", "gw1")}
            time.sleep(0.02)
        workers = sorted((c for c in psutil.Process(proc.pid).children() if "python" in " ".join(c.cmdline())),
                         key=lambda c: c.create_time())  # gw0 was started first
        pick = min if victim_has == "fewer" else max
        victim = pick(("gw0", "gw1"), key=lambda w: counts[w])
        os.kill(workers[int(victim[-1])].pid, signal.SIGKILL)
        text, _ = proc.communicate(timeout=150)  # it hung for ever before
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)
    assert proc.returncode in (0, 1), text[-3000:]  # 1: the item in flight on the killed worker failed
    report = read_report(project / "out" / "r.json")
    by_id = {c["id"]: c for c in report["cases"]}
    assert len(by_id) == len(report["cases"]) == 16, text[-3000:]
    assert sum(c["status"] == "played" for c in report["cases"]) >= at
