"""Secrets never reach what we write (issue 9, item 6): a planted fake API key, given both in the
environment and as a model argument, is searched for in every byte of the inspect log, the
plugin's report and its records.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest_gameeval.backends.registry  # noqa: F401  (imported once for in-process pytester runs)
import pytest_gameeval.run.runner  # noqa: F401

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
FAKE_KEY = "sk-gameeval-PLANTED-0123456789abcdefFAKE"
FAKE_ENV = "planted-env-value-5f3c9e"
PLANTED_ENV = {"OPENAI_API_KEY": FAKE_KEY, "ANTHROPIC_API_KEY": FAKE_KEY, "GAMEEVAL_TEST_PRIVATE": FAKE_ENV}


def leaks_in(path: Path) -> list[str]:
    """Files under `path` (inside .eval zips too) that contain a planted value."""
    found = []
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        blobs = [(str(file), file.read_bytes())]
        if zipfile.is_zipfile(file):
            with zipfile.ZipFile(file) as z:
                blobs += [(f"{file}!{n}", z.read(n)) for n in z.namelist()]
        for name, data in blobs:
            if FAKE_KEY.encode() in data or FAKE_ENV.encode() in data or b"PLANTED-0123" in data:
                found.append(name)
    return found


def test_inspect_log_holds_no_planted_key(tmp_path, monkeypatch, capsys):
    from inspect_ai import eval as inspect_eval

    for name, value in PLANTED_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(ROOT)  # inspect takes task files by relative path
    log_dir = tmp_path / "logs"
    (log,) = inspect_eval("tasks/askguess.py", model="gameeval/scripted", model_args={"api_key": FAKE_KEY},
                          task_args={"max_rounds": 3}, limit=1, log_dir=str(log_dir), display="none")
    assert log.status == "success"
    assert list(log_dir.rglob("*.eval")), "no log written"
    out = capsys.readouterr()
    assert FAKE_KEY not in out.out + out.err
    assert leaks_in(log_dir) == []


def test_plugin_report_and_records_hold_no_planted_key(pytester, monkeypatch):
    for name, value in PLANTED_ENV.items():
        monkeypatch.setenv(name, value)
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--gameeval-games", "askguess", "--gameeval-model", "gameeval/scripted/oracle",
        "--gameeval-model-arg", f"api_key={FAKE_KEY}", "--gameeval-limit", "1", "--gameeval-option", "max_rounds=3",
        "--gameeval-report", "out/report.json", "--junitxml=junit.xml",
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert (pytester.path / "out" / "report.json").exists()
    assert list((pytester.path / "out").glob("*.records.jsonl"))
    assert leaks_in(pytester.path / "out") == []
    assert FAKE_KEY not in (pytester.path / "junit.xml").read_text()


def test_the_leak_scan_finds_a_planted_key(tmp_path):
    (tmp_path / "oops.json").write_text(f'{{"key": "{FAKE_KEY}"}}')
    with zipfile.ZipFile(tmp_path / "log.eval", "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", f'{{"env": "{FAKE_ENV}"}}')
    assert len(leaks_in(tmp_path)) == 2
