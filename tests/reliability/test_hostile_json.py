"""Valid but hostile JSON to every reader of a file we did not just write (issue 71): reports,
records, journals, stored runs' meta.json and the game records inside inspect logs.

Hypothesis takes a real file of each kind (the committed baseline and its records) and puts one
hostile thing into it: nesting deeper than any file of ours (up to far past Python's recursion
limit), a lone UTF-16 surrogate in a string or a key, an integer of hundreds or thousands of digits,
a float that overflows or underflows, a key twice in one object, a byte-order mark. Each reader
must give either one error line naming the file, or exactly what the file says (a surrogate is a
string like any other); what it gives must then be writable as text without a crash."""

from __future__ import annotations

import functools
import json
import random
import tempfile
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_gameeval.analysis.history.meta import meta_of
from pytest_gameeval.analysis.history.store import META_SCHEMA, RunStore
from pytest_gameeval.analysis.report.file import read_report
from pytest_gameeval.analysis.report.records import checked_record, read_record_dicts
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import write_text
from pytest_gameeval.run.journal import journal_path, load_journal

BASELINE = Path(__file__).resolve().parents[2] / "reports" / "baseline-local-askguess.json"
RECORDS = BASELINE.with_name("baseline-local-askguess.records.jsonl")
RUN_ID = "20261206T030000.000Z-0a0b0c0d"
MARK = "@@hostile@@"


def _nesting(depth: int, seed: int) -> str:
    opens = "".join(random.Random(seed).choice(["[", '{"k":']) for _ in range(depth))
    return opens + "1" + "".join("]" if c == "[" else "}" for c in reversed(opens.replace('{"k":', "{")))


HOSTILE_VALUES = st.one_of(
    st.builds(_nesting, st.sampled_from([8, 99, 101, 200, 990, 1100, 5000]), st.integers(0, 99)),
    st.sampled_from(['"\\ud800"', '"model\\udfff"', '"\\udc80\\ud800x"', '["\\ud83d"]']),
    st.sampled_from([299, 301, 4299, 4301, 6000]).map(lambda n: "9" * n),
    st.sampled_from(["1e400", "-1e400", "1e-400", "-0.0", "1.7976931348623157e308", "123456789012345678901234567"]),
)


@st.composite
def hostile_text(draw: Callable, base: Any) -> str:
    """`base` as JSON text with one hostile thing in it."""
    path = draw(st.sampled_from(_all_paths(json.dumps(base))))
    kind = draw(st.sampled_from(["value", "value", "key", "duplicate", "bom"]))
    value = _copy(base)
    parent, last = _parent(value, path)
    if kind == "key" and isinstance(parent, dict):
        parent[MARK] = parent.pop(last)
        return json.dumps(value).replace(f'"{MARK}"', draw(st.sampled_from(['"\\ud800"', '"k\\udfffey"'])))
    if kind == "duplicate" and isinstance(parent, dict):
        parent[MARK] = 0
        raw = draw(HOSTILE_VALUES | st.just('"same"'))
        return json.dumps(value).replace(f'"{MARK}": 0', f'{json.dumps(last)}: {raw}')
    if kind == "bom":
        return "\ufeff" + json.dumps(value)
    parent[last] = MARK
    return json.dumps(value).replace(f'"{MARK}"', draw(HOSTILE_VALUES), 1)


@functools.lru_cache
def _all_paths(text: str) -> list[tuple]:
    return list(_paths(json.loads(text)))


def _paths(value: Any, prefix: tuple = ()) -> Any:
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield prefix + (key,)
        yield from _paths(child, prefix + (key,))


def _parent(value: Any, path: tuple) -> tuple[Any, Any]:
    for key in path[:-1]:
        value = value[key]
    return value, path[-1]


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _written_back(result: Any, folder: Path) -> None:
    """What a reader gave reaches a file as text without a crash (a lone surrogate as its escape)."""
    write_text(folder / "out.txt", json.dumps(result, ensure_ascii=False))


def _one_line(error: GameEvalError, name: str) -> None:
    assert "\n" not in str(error) and name in str(error), str(error)


def _python_reads(text: str) -> Any:
    return json.loads(text.removeprefix("\ufeff"))


REPORT = json.loads(BASELINE.read_text())
REPORT["run"].pop("records_sha256", None)  # read alone: its records are not beside it here
RECORD = json.loads(RECORDS.read_text().splitlines()[0])
JOURNAL_ENTRY = {"case": "askguess[x]", "options": {"max_rounds": 3}, "identity": {}, "run": "r", "record": RECORD,
                 "scores": {"played_quality": 0.5}}
FEW = settings(max_examples=60, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FEW
@given(hostile_text(REPORT))
def test_reports(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            result = read_report(path)
        except GameEvalError as e:
            return _one_line(e, str(path))
        assert result == _python_reads(text)
        _written_back(result, Path(folder))


@FEW
@given(hostile_text(RECORD))
def test_records(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.jsonl"
        path.write_text(json.dumps(RECORD) + "\n" + text.removeprefix("\ufeff") + "\n")
        try:
            result = read_record_dicts(path)
        except GameEvalError as e:
            return _one_line(e, f"{path}:")
        assert result == [RECORD, _python_reads(text)]
        _written_back(result, Path(folder))


@FEW
@given(hostile_text(JOURNAL_ENTRY))
def test_journals(text):
    """A journal line that is no game of ours is skipped (that game is played again), never a crash."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "r.json"
        journal_path(report, "main").write_text(text + "\n")
        done = load_journal(report)
        for entries in done.values():
            for entry in entries:
                assert {k: v for k, v in entry.items() if k != "file"} == _python_reads(text)
        _written_back(done, Path(folder))


META = {**meta_of(json.loads(BASELINE.read_text())), "schema": META_SCHEMA, "id": RUN_ID,
        "files": {"report.json": {"sha256": "0" * 64, "bytes": 1}}}


@FEW
@given(hostile_text(META))
def test_stored_runs_meta(text):
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "runs" / RUN_ID).mkdir(parents=True)
        (Path(folder) / "runs" / RUN_ID / "meta.json").write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            (run,) = RunStore(folder).runs()
        except GameEvalError as e:
            return _one_line(e, "meta.json")
        assert run.meta == _python_reads(text)
        _written_back(run.meta, Path(folder))


@FEW
@given(hostile_text(RECORD))
def test_records_in_inspect_logs(text):
    """A sample's game record as inspect parsed it (any depth, any number): checked like a records line."""
    try:
        value = _python_reads(text)
    except (RecursionError, ValueError):
        return  # inspect's own reader fails first: `history add` and `rejudge` name the log in one line
    try:
        record = checked_record(value, "log.eval: sample 1")
    except GameEvalError as e:
        return _one_line(e, "log.eval: sample 1")
    assert record.to_dict()["game"] == value["game"]


def test_the_generator_makes_what_it_says():
    """Not vacuous: the hostile things really are in the files, and the readers refuse the ones no
    file of ours holds."""
    deep = '{"schema": ' + _nesting(5000, 1) + "}"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "deep.json"
        path.write_text(deep)
        with pytest.raises(RecursionError):
            json.loads(deep)
        with pytest.raises(GameEvalError, match="deep.json: report nests deeper than 100 levels"):
            read_report(path)
        path.write_text('{"schema": 1, "schema": 2}')
        with pytest.raises(GameEvalError, match="report holds key 'schema' twice in one object"):
            read_report(path)
        path.write_text('{"schema": ' + "9" * 5000 + "}")
        with pytest.raises(GameEvalError, match="report holds an integer of more than 300 digits"):
            read_report(path)
