"""Files that are not what they seem (issue 60): a FIFO given as a baseline, an output that is one of
the inputs, files beside a report that another report's name would share, a count that is a word,
records too large to hold. Each is one `gameeval:` line, before anything is written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gameeval.engine.errors import GameEvalError

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "reports" / "baseline-local-askguess.json"
RECORDS = BASELINE.with_suffix(".records.jsonl")  # the committed baseline's records, by its old name


def gameeval(cwd: Path, *argv: str, timeout: int = 120, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest_gameeval.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **env})


def one_line(done: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    text = done.stdout + done.stderr
    assert done.returncode == code, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("gameeval: error: "), text[-3000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """A copy of the committed baseline and its records (named by `run.records`, the old stem name)."""
    shutil.copy(BASELINE, tmp_path / "base.json")
    shutil.copy(RECORDS, tmp_path / RECORDS.name)
    return tmp_path / "base.json"


def plugin(cwd: Path, *extra: str) -> subprocess.CompletedProcess:
    (cwd / "conftest.py").write_text("")
    cmd = [sys.executable, "-m", "pytest", "--gameeval-only", "-p", "no:cacheprovider", "-p", "no:randomly",
           "--gameeval-model", "gameeval/scripted/oracle", "--gameeval-games", "askguess", "--gameeval-limit", "2",
           "--gameeval-option", "max_rounds=2", *extra]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"})


# -- a FIFO is an error, not a wait ------------------------------------------------------------------


@pytest.mark.slow  # over 20 s on 2 busy cores: .ci/run's slow stage runs it
def test_a_fifo_given_as_report_or_baseline_is_an_error_not_a_wait(tmp_path, base):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # nobody writes to it: opening it for reading would wait for ever
    one_line(gameeval(tmp_path, "report", "diff", str(fifo), str(base), timeout=60), 2, "pipe.json", "FIFO")
    one_line(gameeval(tmp_path, "report", "diff", str(base), str(fifo), timeout=60), 2, "pipe.json", "FIFO")
    one_line(gameeval(tmp_path, "rejudge", str(fifo), timeout=60), 2, "pipe.json")
    records = tmp_path / "pipe.jsonl"
    os.mkfifo(records)
    one_line(gameeval(tmp_path, "rejudge", str(records), timeout=60), 2, "pipe.jsonl")
    done = plugin(tmp_path, f"--gameeval-baseline={fifo}", "--gameeval-report=out/r.json")
    assert done.returncode == 4, done.stdout[-3000:] + done.stderr[-3000:]
    assert "pipe.json: cannot read report (it is a FIFO)" in done.stderr and "Traceback" not in done.stderr


def test_a_fifo_journal_is_an_error_not_a_wait(tmp_path):
    from pytest_gameeval.run.journal import load_journal

    os.mkfifo(tmp_path / "r.json.journal-main.jsonl")
    with pytest.raises(GameEvalError, match="r.json.journal-main.jsonl: cannot read the journal .it is a FIFO."):
        load_journal(tmp_path / "r.json")


# -- an output that is an input -----------------------------------------------------------------------


@pytest.mark.slow  # over 20 s on 2 busy cores: .ci/run's slow stage runs it
def test_report_merge_into_one_of_its_slices_is_refused_and_the_slice_untouched(tmp_path, base):
    shard = json.loads(base.read_text())
    shard["shard"] = {"index": 1, "count": 1}
    (tmp_path / "s-1.json").write_text(json.dumps(shard))
    before = (tmp_path / "s-1.json").read_bytes()
    for out in ("s-1.json", "./s-1.json", str(tmp_path / "s-1.json")):
        one_line(gameeval(tmp_path, "report", "merge", out, "s-1.json"), 2, "is one of the inputs")
    os.link(tmp_path / "s-1.json", tmp_path / "hard-link.json")  # the same file under another name
    one_line(gameeval(tmp_path, "report", "merge", "hard-link.json", "s-1.json"), 2, "is one of the inputs")
    assert (tmp_path / "s-1.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["base.json", RECORDS.name, "s-1.json",
                                                                 "hard-link.json"])


def test_rejudge_over_its_source_or_its_records_is_refused(tmp_path, base):
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    one_line(gameeval(tmp_path, "rejudge", "base.json", "--out", "base.json"), 2, "is one of the inputs")
    # the re-judged report's records (OUT.records.jsonl) would replace the source's records
    one_line(gameeval(tmp_path, "rejudge", "base.json", "--out", RECORDS.name.removesuffix(".records.jsonl")), 2,
             "is one of the inputs")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


# -- what is written beside a report is named from its whole name --------------------------------------


def test_files_beside_a_report_are_named_from_its_whole_name():
    from pytest_gameeval.analysis.report.file import records_path_for
    from pytest_gameeval.run.budget import ledger_path
    from pytest_gameeval.run.journal import journal_path
    from pytest_gameeval.run.report_lock import lock_path

    def beside(report: str) -> set[Path]:
        p = Path(report)
        return {records_path_for(p), ledger_path(p), journal_path(p, "main"), lock_path(p)}

    for a, b in [("out/r.json", "out/r.txt"), ("reports/last", "reports/last.json"), ("r.json", "r")]:
        assert not beside(a) & beside(b), (a, b)


@pytest.mark.slow  # over 20 s on 2 busy cores: .ci/run's slow stage runs it
def test_a_run_on_r_txt_leaves_the_journal_of_a_run_on_r_json_alone(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    journal = out / "r.json.journal-main.jsonl"
    journal.write_text('{"case": "askguess[x-t0]", "options": {}, "record": {}, "scores": {}}\n')
    done = plugin(tmp_path, "--gameeval-report=out/r.txt")
    assert done.returncode == 0, done.stdout[-3000:]
    assert journal.exists()  # a fresh run on r.txt started its own journal, not r.json's
    assert (out / "r.txt.records.jsonl").exists() and not (out / "r.records.jsonl").exists()


@pytest.mark.slow  # over 20 s on 2 busy cores: .ci/run's slow stage runs it
def test_a_report_path_whose_records_are_the_baselines_records_is_refused(tmp_path):
    """`--gameeval-report=reports/last` beside a baseline `reports/last.json` whose records are
    `reports/last.records.jsonl` (written by an earlier version): refused before play."""
    reports = tmp_path / "reports"
    reports.mkdir()
    report = json.loads(BASELINE.read_text())
    report["run"]["records"] = "last.records.jsonl"
    (reports / "last.json").write_text(json.dumps(report))
    shutil.copy(RECORDS, reports / "last.records.jsonl")
    before = {p.name: p.read_bytes() for p in reports.iterdir()}
    done = plugin(tmp_path, "--gameeval-baseline=reports/last.json", "--gameeval-report=reports/last",
                  "--gameeval-model", "gameeval/local")  # never loaded: the run is refused before
    assert done.returncode == 4, done.stdout[-3000:] + done.stderr[-3000:]
    assert "last.records.jsonl is one this run writes beside its report" in done.stderr, done.stderr[-2000:]
    assert {p.name: p.read_bytes() for p in reports.iterdir()} == before


# -- values of the right type, files of a size we can hold ------------------------------------------------


@pytest.mark.parametrize("where", ["case", "game", "records"])
def test_a_count_that_is_a_word_is_one_line_in_rejudge_and_diff(tmp_path, base, where):
    report = json.loads(base.read_text())
    if where == "case":
        report["cases"][0]["usage"]["Questioner"]["calls"] = "many"
    elif where == "game":
        report["games"]["askguess"]["usage"]["Questioner"]["calls"] = "many"
    base.write_text(json.dumps(report))
    if where == "records":
        lines = (tmp_path / RECORDS.name).read_text().splitlines()
        first = json.loads(lines[0])
        first["usage"]["Questioner"]["calls"] = "many"
        (tmp_path / "games.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
        one_line(gameeval(tmp_path, "rejudge", "games.jsonl"), 2, "games.jsonl:1:", "calls is 'many'")
        return
    one_line(gameeval(tmp_path, "rejudge", "base.json"), 2, "base.json", "calls is 'many'")
    one_line(gameeval(tmp_path, "report", "diff", "base.json", str(BASELINE)), 2, "calls is 'many'")


def test_records_larger_than_rejudge_holds_are_one_line_before_reading(tmp_path, base):
    lines = (tmp_path / RECORDS.name).read_text()
    (tmp_path / "many.jsonl").write_text(lines * 40)  # duplicates too, but the size is said first
    done = gameeval(tmp_path, "rejudge", "many.jsonl", GAMEEVAL_MAX_RECORDS_MB="0.1")
    one_line(done, 2, "many.jsonl", "MB of records", "GAMEEVAL_MAX_RECORDS_MB")


def test_the_records_seal_is_computed_in_bounded_memory(tmp_path):
    """`report diff` hashes a report's records while reading them (it held the whole file)."""
    big = tmp_path / "big.records.jsonl"
    line = json.dumps({"pad": "x" * 1000}) + "\n"
    with open(big, "w") as f:
        for _ in range(150_000):  # about 150 MB
            f.write(line)
    code = ("import resource, sys; from pytest_gameeval.analysis.report.file import records_seal; "
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; s = records_seal(sys.argv[1]); "
            "print(s['records_count'], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)")
    done = subprocess.run([sys.executable, "-c", code, str(big)], capture_output=True, text=True, timeout=120)
    count, grown_kb = map(int, done.stdout.split())
    assert count == 150_000
    assert grown_kb < 40_000, f"hashing 150 MB grew the process by {grown_kb} kB"


def test_an_over_long_journal_line_is_one_error_naming_file_and_line(tmp_path, monkeypatch):
    from pytest_gameeval.run import journal

    monkeypatch.setattr(journal, "MAX_LINE_BYTES", 100)
    path = tmp_path / "r.json.journal-main.jsonl"
    path.write_text('{"case": "a"}\n' + "x" * 500 + "\n")
    with pytest.raises(GameEvalError, match=r"r.json.journal-main.jsonl:2: a line of over"):
        journal.load_journal(tmp_path / "r.json")
