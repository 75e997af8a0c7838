"""The store of runs (analysis/history/store.py) on local disk and on a real S3 API (moto's server
on 127.0.0.1, started here; no client mock): ids that sort by time and never collide, many
processes saving at once, and the whole flow through pytest and `gameeval history` on s3://."""

from __future__ import annotations

import json
import multiprocessing
import os
import uuid
from pathlib import Path

import pytest

import pytest_gameeval.backends.registry  # noqa: F401  (imported once for pytester's in-process runs)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval.analysis.history.store import RunStore, is_run_id, new_run_id
from pytest_gameeval.analysis.verdicts.gate_config import Relative, absolute_tolerance
from pytest_gameeval.cli import main as cli
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.run.settings import gate_metric_option

pytest_plugins = ["pytester"]

RUN = ["-p", "no:cacheprovider", "--gameeval-only", "--gameeval-games", "askguess", "--gameeval-limit", "20"]


def test_ids_sort_by_time_and_differ_within_one_millisecond():
    same_ms = [new_run_id(1_800_000_000.1234) for _ in range(2000)]
    assert len(set(same_ms)) == 2000 and all(is_run_id(i) for i in same_ms)
    assert new_run_id(1_800_000_000.0) < new_run_id(1_800_000_000.002) < new_run_id(1_800_000_001.0)
    assert new_run_id(1_800_000_000.0).startswith("20270115T080000.000Z-")


def test_relative_tolerance_is_fixed_from_the_baseline_alone():
    parsed = gate_metric_option(["askguess.played_quality=higher:5%", "askguess.rounds=lower:0.5"])
    tol = parsed["askguess"]["played_quality"][1]
    assert isinstance(tol, Relative) and float(tol) == pytest.approx(0.05)
    cases = [{"status": "played", "scores": {"played_quality": v}} for v in (0.2, 0.6)] + [{"status": "error"}]
    assert absolute_tolerance(tol, "played_quality", cases) == pytest.approx(0.02)
    assert absolute_tolerance(0.1, "played_quality", cases) == 0.1
    assert absolute_tolerance(tol, "played_quality", []) == 0.0
    with pytest.raises(GameEvalError, match="must be a finite number, not negative"):
        gate_metric_option(["askguess.played_quality=higher:-5%"])
    for odd in ("nan%", "inf%", "nan"):  # not "negative": the line says what is wrong with them
        with pytest.raises(GameEvalError, match=f"tolerance '{odd}' must be a finite number"):
            gate_metric_option([f"askguess.played_quality=higher:{odd}"])


@pytest.fixture(scope="module")
def a_report(tmp_path_factory) -> Path:
    """A real report and its records, written by the plugin."""
    import subprocess
    import sys

    where = tmp_path_factory.mktemp("report")
    (where / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    done = subprocess.run([sys.executable, "-m", "pytest", *RUN, "--gameeval-model=gameeval/scripted/oracle"],
                          cwd=where, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    return where / "reports" / "gameeval-report.json"


def _save_many(url: str, report: str, n: int, queue) -> None:
    from pytest_gameeval.analysis.history.meta import meta_of
    from pytest_gameeval.analysis.report.file import read_report

    store = RunStore(url)
    meta = meta_of(read_report(report))
    queue.put([store.save(Path(report), {**meta, "name": f"p{os.getpid()}"}) for _ in range(n)])


def _race(url: str, report: Path, processes: int = 4, each: int = 3, start: str = "fork") -> list[str]:
    """`processes` real processes, each saving `each` runs as fast as it can (forked: they start
    together; spawned where the parent runs a server thread)."""
    ctx = multiprocessing.get_context(start)
    queue = ctx.Queue()
    procs = [ctx.Process(target=_save_many, args=(url, str(report), each, queue)) for _ in range(processes)]
    for p in procs:
        p.start()
    ids = [i for _ in procs for i in queue.get(timeout=180)]
    for p in procs:
        p.join(timeout=60)
    return ids


@pytest.mark.slow  # real processes or pytest runs: 10-20 s on 2 cores; .ci/run's slow stage runs it
def test_processes_saving_at_once_each_get_their_own_run(tmp_path, a_report):
    ids = _race(str(tmp_path / "store"), a_report)
    stored = RunStore(tmp_path / "store").runs()
    assert len(ids) == len(set(ids)) == 12 and sorted(ids) == [r.id for r in stored]
    for run in stored:  # every one whole and checked
        report, _ = RunStore(tmp_path / "store").load(run)
        assert report["models"]["evaluated"] == "gameeval/scripted/oracle"


@pytest.fixture
def s3(monkeypatch):
    """An S3 API on 127.0.0.1 (moto's server), a bucket in it, and the environment that points
    boto/s3fs at it as a user points them at their own endpoint."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://{host}:{port}"}.items():
        monkeypatch.setenv(key, value)
    import boto3

    bucket = f"gameeval-runs-{uuid.uuid4().hex[:8]}"  # moto's servers in one process share their buckets
    boto3.client("s3").create_bucket(Bucket=bucket)
    yield f"s3://{bucket}/team-a"
    server.stop()


@pytest.mark.slow  # real processes or pytest runs: 10-20 s on 2 cores; .ci/run's slow stage runs it
def test_two_jobs_save_at_once_on_s3(s3, a_report):
    ids = _race(s3, a_report, processes=2, each=3, start="spawn")
    stored = RunStore(s3).runs()
    assert len(set(ids)) == 6 and sorted(ids) == [r.id for r in stored]
    assert {r.name for r in stored} == {r.name for r in stored if r.name.startswith("p")} and len(
        {r.name for r in stored}) == 2


@pytest.mark.slow  # real processes or pytest runs: 10-20 s on 2 cores; .ci/run's slow stage runs it
def test_save_list_compare_and_refuse_an_edit_on_s3(s3, pytester, capsys):
    storage = f"--gameeval-storage={s3}"
    first = pytester.runpytest_inprocess(*RUN, "--gameeval-model=gameeval/scripted/oracle", storage,
                                         "--gameeval-save=release-1")
    first.stdout.fnmatch_lines([f"saved: run *Z-* (name 'release-1') in {s3}"])
    gated = pytester.runpytest_inprocess(*RUN, "--gameeval-model=gameeval/scripted/random", storage,
                                         "--gameeval-compare", "--gameeval-autosave")
    assert gated.ret == 1
    (run1, run2) = RunStore(s3).runs()
    gated.stdout.fnmatch_lines([f"gameeval: baseline run {run1.id} ('release-1', gameeval/scripted/oracle, *) from "
                                f"{s3}: the newest stored run with the same games, versions and data",
                                "*gameeval gate FAILED*"])
    capsys.readouterr()
    assert cli(["history", "--storage", s3, "list"]) == 0
    listed = capsys.readouterr().out
    assert run1.id in listed and run2.id in listed and "2 stored runs" in listed
    assert cli(["history", "--storage", s3, "compare", "--format", "json"]) == 0
    trend = json.loads(capsys.readouterr().out)
    assert [r["verdict"] for r in trend["rows"]] == ["", "worse"] and trend["comparisons"] == 1
    # a value edited in the bucket: refused, the line naming the object by its URL
    import fsspec

    fs, _ = fsspec.core.url_to_fs(s3)
    key = f"{s3.removeprefix('s3://')}/runs/{run1.id}/report.json"
    report = json.loads(fs.cat_file(key))
    report["cases"][0]["scores"]["played_quality"] = -1
    fs.pipe_file(key, json.dumps(report).encode())
    refused = pytester.runpytest_inprocess(*RUN, "--gameeval-model=gameeval/scripted/random", storage,
                                           f"--gameeval-compare={run1.id[:22]}")
    assert refused.ret == 4
    assert (f"ERROR: gameeval: {s3}/runs/{run1.id}/report.json: case {report['cases'][0]['id']!r}, metric "
            "'played_quality': -1 is outside [0, 1]") in refused.stderr.lines
    assert cli(["history", "--storage", s3, "compare"]) == 2
    assert f"{s3}/runs/{run1.id}/report.json: case" in capsys.readouterr().err


@pytest.mark.slow  # real processes or pytest runs: 10-20 s on 2 cores; .ci/run's slow stage runs it
def test_history_compare_never_crosses_a_version_and_writes_nothing_into_the_store(tmp_path, a_report, capsys):
    import shutil

    store = str(tmp_path / "store")
    assert cli(["history", "--storage", store, "add", str(a_report), "--name", "v5-a"]) == 0
    older = tmp_path / "older"
    older.mkdir()
    report = json.loads(a_report.read_text())
    report["games"]["askguess"]["version"] = "4"  # the same games, said to be of another version of the game
    (older / a_report.name).write_text(json.dumps(report))
    records = a_report.with_name(a_report.name + ".records.jsonl")  # named from the whole report name
    shutil.copy(records, older / records.name)
    assert cli(["history", "--storage", store, "add", str(older / a_report.name), "--name", "v4"]) == 0
    assert cli(["history", "--storage", store, "add", str(a_report), "--name", "v5-b"]) == 0
    capsys.readouterr()
    assert cli(["history", "--storage", store, "compare", "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["verdict"], r["verdict_reason"]) for r in result["rows"]] == [
        ("v5-a", "", "first run of this game here"),
        ("v4", "not compared", "game version 5 -> 4"),
        ("v5-b", "not compared", "game version 4 -> 5"),
    ]
    assert result["comparisons"] == 0 and result["false_alarm"].startswith("0 comparisons")
    assert cli(["history", "--storage", store, "compare", "v5-a", "v5-b", "--format", "json"]) == 0
    # the same 20 games twice: compared, paired (20 alike are too few to call "same" at tolerance 0.1)
    assert [(r["verdict"], r["paired"]) for r in json.loads(capsys.readouterr().out)["rows"]] == [
        ("", None), ("undecided", True)]
    (run,) = [r for r in RunStore(store).runs() if r.name == "v4"]
    inside = f"{store}/runs/{run.id}/report.json"
    assert cli(["history", "--storage", store, "compare", "--format", "csv", "--output", inside]) == 2
    assert f"--output {inside}: inside the history store" in capsys.readouterr().err
    RunStore(store).load(run)  # untouched


@pytest.mark.slow  # real processes or pytest runs: 10-20 s on 2 cores; .ci/run's slow stage runs it
def test_a_relative_tolerance_is_fixed_from_the_stored_baseline(pytester):
    first = pytester.runpytest_inprocess(*RUN, "--gameeval-model=gameeval/scripted/oracle", "--gameeval-autosave")
    assert first.ret == 0
    gated = pytester.runpytest_inprocess(*RUN, "--gameeval-model=gameeval/scripted/random", "--gameeval-compare",
                                         "--gameeval-gate-metric=askguess.played_quality=higher:5%")
    (run,) = RunStore(pytester.path / ".gameeval").runs()
    baseline = [c["scores"]["played_quality"] for c in RunStore(pytester.path / ".gameeval").load(run)[0]["cases"]]
    tolerance = 0.05 * sum(baseline) / len(baseline)
    gate = json.loads((pytester.path / "reports" / "gameeval-report.json").read_text())["gate"]
    assert gate["games"]["askguess"]["metrics"]["played_quality"]["tolerance"] == pytest.approx(tolerance)
    gated.stdout.fnmatch_lines([f"*askguess.played_quality *worse (tolerance ±{tolerance:.3g})"])


def test_a_missing_bucket_is_one_line_before_play(s3, pytester):
    missing = "s3://no-such-bucket-58/runs"
    result = pytester.runpytest_inprocess(*RUN, "--gameeval-model=gameeval/scripted/oracle", "--gameeval-autosave",
                                          f"--gameeval-storage={missing}")
    assert result.ret == 4
    assert ("ERROR: gameeval: --gameeval-storage: history store s3://no-such-bucket-58/runs: no bucket "
            "'no-such-bucket-58' there") in result.stderr.lines
    compare = pytester.runpytest_inprocess(*RUN, "--gameeval-model=gameeval/scripted/oracle",
                                           f"--gameeval-storage={missing}", "--gameeval-compare=latest-if-any")
    assert compare.ret == 4  # a typo in the bucket is not an empty history
