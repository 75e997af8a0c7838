"""Issue 71's four rows, each with the real commands in their own processes: a report that is valid
but hostile JSON (a lone surrogate in the model's name and a record, nesting past the recursion
limit) to `gameeval report diff` and `gameeval rejudge`; an S3 store whose endpoint is down (moto's
S3 server on 127.0.0.1, stopped and started again); a store path that is a file or a folder of other
things; `gameeval history SUBCOMMAND --storage X`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from pytest_gameeval.analysis.report.file import records_seal

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "reports" / "baseline-local-askguess.json"
GAMEEVAL = str(Path(sys.executable).with_name("gameeval"))
PLAY = ["--gameeval-only", "-p", "no:cacheprovider", "--gameeval-games", "askguess", "--gameeval-limit", "2",
        "--gameeval-model=gameeval/scripted/oracle"]


def run(cwd: Path, *cmd: str, env: dict[str, str] | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def one_line_error(done: subprocess.CompletedProcess, code: int, *needles: str) -> list[str]:
    """Exit `code`, no traceback, and the error lines (`gameeval: error: ...` / pytest's `ERROR: ...`)."""
    text = done.stdout + done.stderr
    assert done.returncode == code and "Traceback" not in text, text[-3000:]
    lines = [line for line in text.splitlines() if "error: " in line.lower() and "gameeval" in line]
    assert len(lines) == 1 and all(n in lines[0] for n in needles), text[-3000:]
    return lines


def copy_baseline(folder: Path, name: str, edit) -> Path:
    """The committed baseline and its records as NAME.json, edited by edit(report, records), resealed."""
    report = json.loads(BASELINE.read_text())
    records = [json.loads(line) for line in BASELINE.with_suffix(".records.jsonl").read_text().splitlines()]
    edit(report, records)
    folder.mkdir(exist_ok=True)
    records_path = folder / f"{name}.json.records.jsonl"
    records_path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report["run"].update(records=records_path.name, **records_seal(records_path))
    (folder / f"{name}.json").write_text(json.dumps(report))
    return folder / f"{name}.json"


def _surrogates(report: dict, records: list[dict]) -> None:
    report["models"]["evaluated"] += "\ud800"
    records[0]["seats"][0]["model"] += "\udfff"


def _deep(report: dict, records: list[dict]) -> None:
    report["models"]["model_args"] = {"x": json.loads("[" * 900 + "]" * 900)}  # loads; a deeper one would not


def in_process(cwd: Path, *argv: str, capsys, monkeypatch) -> tuple[int, str]:
    """`gameeval ARGV` in this process (a second of start-up less than a subprocess each)."""
    from pytest_gameeval.cli import main

    monkeypatch.chdir(cwd)
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def _row_1(tmp_path: Path, call) -> None:
    """`report diff` and `rejudge` given a report with lone surrogates, then one nested past the
    limit; call(*argv) -> (exit code, stdout + stderr)."""
    shutil.copy(BASELINE, tmp_path / "base.json")
    shutil.copy(BASELINE.with_suffix(".records.jsonl"), tmp_path / BASELINE.with_suffix(".records.jsonl").name)
    odd = copy_baseline(tmp_path, "odd", _surrogates)
    code, text = call("report", "diff", "base.json", odd.name)
    assert code == 0 and "Traceback" not in text and "\\ud800 vs gameeval/local/" in text, text[-3000:]  # escaped
    code, text = call("rejudge", odd.name, "--out", "re.json")
    assert code == 0 and "Traceback" not in text, text[-3000:]
    assert json.loads((tmp_path / "re.json").read_text())["models"]["evaluated"].endswith("\ud800")  # kept
    deep = copy_baseline(tmp_path, "deep", _deep)
    for cmd in (["report", "diff", "base.json", deep.name], ["rejudge", deep.name, "--out", "re2.json"]):
        code, text = call(*cmd)
        assert code == 2 and text == "gameeval: error: deep.json: report nests deeper than 100 levels\n", text
    assert not (tmp_path / "re2.json").exists()


def test_row_1_hostile_reports_to_report_diff_and_rejudge(tmp_path, capsys, monkeypatch):
    """In this process: pytest's captured stdout is as strict about surrogates as a pipe."""
    _row_1(tmp_path, lambda *argv: in_process(tmp_path, *argv, capsys=capsys, monkeypatch=monkeypatch))


@pytest.mark.slow  # four `gameeval` processes importing scipy: about 10 s on 2 busy cores
def test_row_1_with_real_processes(tmp_path):
    def call(*argv: str) -> tuple[int, str]:
        done = run(tmp_path, GAMEEVAL, *argv)
        return done.returncode, done.stdout + done.stderr

    _row_1(tmp_path, call)


def test_rows_3_and_4_a_store_that_is_no_store_and_storage_after_the_subcommand(tmp_path, capsys, monkeypatch):
    (tmp_path / "a-file").write_text("not a store")
    one_line_error(run(tmp_path, GAMEEVAL, "history", "list", "--storage", "a-file"), 2,
                   f"history store {tmp_path / 'a-file'}: it is a file, not a store of runs")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "code.py").write_text("")
    not_stores = (("a-file", "it is a file, not a store of runs"), ("src", "holds other things than runs/ (code.py)"))
    for store, why in not_stores:
        for cmd in (["history", "--storage", store, "list"], ["history", "compare", "--storage", store],
                    ["history", "show", "latest", "--storage", store], ["history", "add", str(BASELINE), "--storage",
                                                                        store]):
            code, text = in_process(tmp_path, *cmd, capsys=capsys, monkeypatch=monkeypatch)
            assert code == 2 and text.startswith(f"gameeval: error: history store {tmp_path / store}: {why}"), text
            assert text.count("\n") == 1, text
    code, text = in_process(tmp_path, "history", "add", str(BASELINE), "--storage", "a-file/store", capsys=capsys,
                            monkeypatch=monkeypatch)  # a path that cannot be created
    assert code == 2 and text == (f"gameeval: error: history store {tmp_path / 'a-file' / 'store'}: cannot write "
                                  "there (Not a directory)\n"), text
    code, text = in_process(tmp_path, "history", "add", str(BASELINE), "--storage", "store", capsys=capsys,
                            monkeypatch=monkeypatch)
    assert code == 0 and "saved: run " in text, text
    listed = run(tmp_path, GAMEEVAL, "history", "list", "--storage", "store")
    assert listed.returncode == 0 and f"1 stored run in {tmp_path / 'store'}" in listed.stdout, listed.stderr


@pytest.mark.slow  # three pytest runs and boto's retries against a dead endpoint: about 30 s on 2 cores
def test_row_3_compare_against_a_store_that_is_a_file_is_refused_before_play(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (tmp_path / "a-file").write_text("not a store")
    for ref in ("--gameeval-compare", "--gameeval-compare=latest-if-any"):
        done = run(tmp_path, sys.executable, "-m", "pytest", *PLAY, "--gameeval-storage=a-file", ref)
        one_line_error(done, 4, f"history store {tmp_path / 'a-file'}: it is a file, not a store of runs")
        assert "passed" not in done.stdout  # nothing played


@pytest.fixture
def s3_server():
    """moto's S3 server on 127.0.0.1 with a bucket; yields (server, environment for boto)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_ENDPOINT_URL": f"http://{host}:{port}"}
    import boto3

    bucket = f"runs-{uuid.uuid4().hex[:8]}"
    boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], region_name="us-east-1", aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_bucket(Bucket=bucket)
    box = {"server": server, "port": port, "env": env, "url": f"s3://{bucket}/team"}
    yield box
    box["server"].stop()


@pytest.mark.slow  # pytest runs and boto's retries against a dead endpoint: about 40 s on 2 cores
def test_row_2_a_dead_endpoint_is_named_as_such_and_the_store_works_once_it_is_back(tmp_path, s3_server):
    from moto.server import ThreadedMotoServer

    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    env, url = s3_server["env"], s3_server["url"]
    s3_server["server"].stop()  # the endpoint is dead; the bucket is fine
    dead = run(tmp_path, sys.executable, "-m", "pytest", *PLAY, "--gameeval-autosave", f"--gameeval-storage={url}",
               env=env)
    line = one_line_error(dead, 4, f"--gameeval-storage: history store {url}: cannot connect to its endpoint")[0]
    assert "no bucket" not in line and "passed" not in dead.stdout
    listed = run(tmp_path, GAMEEVAL, "history", "list", "--storage", url, env=env)
    one_line_error(listed, 2, f"history store {url}: cannot connect to its endpoint")
    s3_server["server"] = ThreadedMotoServer(ip_address="127.0.0.1", port=s3_server["port"], verbose=False)
    s3_server["server"].start()  # back on the same address, the bucket still there (moto keeps it in this process)
    saved = run(tmp_path, sys.executable, "-m", "pytest", *PLAY, "--gameeval-autosave", f"--gameeval-storage={url}",
                env=env)
    assert saved.returncode == 0 and f"in {url}" in saved.stdout, saved.stdout[-2000:]
    missing = url.replace("s3://runs-", "s3://gone-")
    one_line_error(run(tmp_path, GAMEEVAL, "history", "list", "--storage", missing, env=env), 2,
                   f"history store {missing}: no bucket '{missing[5:].split('/')[0]}' there")


AUTH_SERVER = """
import os, sys
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "0"  # moto checks every request's credentials from the first
from moto.server import ThreadedMotoServer
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
print(server.get_host_and_port()[1], flush=True)
sys.stdin.read()  # until the test closes our standard input
"""


@pytest.mark.slow  # moto's server in a process of its own (its credentials check is read at import), pytest runs
def test_refused_credentials_are_named_as_such_before_play(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    server = subprocess.Popen([sys.executable, "-c", AUTH_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(server.stdout.readline())  # the server says its port once it listens
        env = {"AWS_ACCESS_KEY_ID": "not-a-key", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1",
               "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
        url = "s3://team-runs/prefix"
        refused = f"history store {url}: access refused: the credentials are not accepted"
        one_line_error(run(tmp_path, GAMEEVAL, "history", "list", "--storage", url, env=env), 2, refused)
        saving = run(tmp_path, sys.executable, "-m", "pytest", *PLAY, "--gameeval-autosave",
                     f"--gameeval-storage={url}", env=env)
        one_line_error(saving, 4, f"--gameeval-storage: {refused}")
        assert "passed" not in saving.stdout  # before play
    finally:
        server.stdin.close()
        server.wait(timeout=30)
