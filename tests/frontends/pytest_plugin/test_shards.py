"""One run over several machines (issue 36): `--gameeval-shard K/N` plays a slice of the cases,
`gameeval report merge` joins the slices' reports into the report one machine would have written,
and `gameeval report diff` gates it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_gameeval.backends.registry  # noqa: F401  (imported once for pytester's in-process runs)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval.analysis.report.file import read_report
from pytest_gameeval.cli import main as cli
from pytest_gameeval.run.settings import slice_of

pytest_plugins = ["pytester"]

# spyfall (6 players, no round limit) and askguess (max_rounds 6) cost differently per case
RUN = ["-p", "no:cacheprovider", "--gameeval-model", "gameeval/scripted/random", "--gameeval-games", "askguess,spyfall",
       "--gameeval-limit", "4", "--gameeval-trials", "2", "--gameeval-option", "askguess.max_rounds=6"]


def comparable(report: dict) -> dict:
    """A report minus what differs between machines and runs of the same cases (when, how long)."""
    out = {k: v for k, v in report.items() if k not in ("created", "run")}
    out["cases"] = [{k: v for k, v in c.items() if k != "seconds"} for c in report["cases"]]
    return out


def test_slices_are_exact_balanced_and_need_no_hashing():
    costs = [30.0] * 7 + [6.0] * 5 + [1.0] * 4
    for count in (1, 2, 3, 5):
        slices = slice_of(costs, count)
        assert sorted(set(slices)) == list(range(min(count, len(costs))))  # every case in exactly one slice
        loads = [sum(c for c, k in zip(costs, slices) if k == j) for j in range(count)]
        assert max(loads) - min(loads) <= max(costs)  # balanced to within one case's cost
    script = "from pytest_gameeval.run.settings import slice_of; print(slice_of([3.0, 1, 1, 2, 5, 1], 3))"
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                           env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("0", "1", "12345")}
    assert len(runs) == 1 and runs.pop().strip() == str(slice_of([3.0, 1, 1, 2, 5, 1], 3))


@pytest.fixture
def slices(pytester: pytest.Pytester) -> tuple[Path, list[Path]]:
    pytester.runpytest_inprocess(*RUN, "--gameeval-report", "single.json").assert_outcomes(passed=16)
    paths = []
    for k in (1, 2, 3):
        result = pytester.runpytest_inprocess(*RUN, "--gameeval-shard", f"{k}/3", "--gameeval-report", f"slice{k}.json")
        assert result.ret == 0
        paths.append(pytester.path / f"slice{k}.json")
    return pytester.path / "single.json", paths


def test_three_slices_merged_equal_one_run_and_the_diff_passes(pytester, slices, capsys):
    single, paths = slices
    reports = [read_report(p) for p in paths]
    assert [r["shard"]["index"] for r in reports] == [1, 2, 3]
    ids = [c["id"] for r in reports for c in r["cases"]]
    assert len(ids) == len(set(ids)) == 16  # every case in exactly one slice
    assert (
        max(len(r["cases"]) for r in reports) - min(len(r["cases"]) for r in reports) <= 1
    )  # equal costs here: 6, 5, 5
    out = pytester.path / "merged.json"
    assert cli(["report", "merge", str(out), *map(str, paths)]) == 0
    merged, one = read_report(out), read_report(single)
    assert comparable(merged) == comparable(one)  # same cases, seeds, scores, metrics, versions
    beside = lambda p: p.with_name(p.name + ".records.jsonl")  # noqa: E731
    assert beside(out).read_text() == beside(single).read_text()
    assert [c["seed"] for c in merged["cases"]] == [c["seed"] for c in one["cases"]]
    capsys.readouterr()
    assert cli(["report", "diff", str(single), str(out)]) == 0
    assert "paired" in capsys.readouterr().out


def test_merge_refuses_overlap_missing_and_other_runs_in_one_line(pytester, slices, capsys):
    single, paths = slices
    out = pytester.path / "merged.json"

    def refused(*given: Path) -> str:
        assert cli(["report", "merge", str(out), *map(str, given)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and not out.exists(), err
        return err

    assert "slices overlap: slice 1/3 is both" in refused(paths[0], paths[0], paths[1], paths[2])
    assert "slice(s) 3/3 missing" in refused(paths[0], paths[1])
    assert "not a slice" in refused(single, paths[0])
    other = json.loads(paths[2].read_text())
    other["settings"]["seed"] = 7
    (pytester.path / "other.json").write_text(json.dumps(other))
    assert "slices of different runs: settings.seed 0 vs 7" in refused(paths[0], paths[1], pytester.path / "other.json")
    other = json.loads(paths[2].read_text())
    other["games"]["askguess"]["version"] = "0"
    (pytester.path / "other.json").write_text(json.dumps(other))
    assert "askguess: slices of different game versions" in refused(paths[0], paths[1], pytester.path / "other.json")


def test_a_slice_cannot_be_gated_on_its_own(pytester):
    pytester.runpytest_inprocess(*RUN, "--gameeval-report", "base.json").assert_outcomes(passed=16)
    result = pytester.runpytest_inprocess(*RUN, "--gameeval-shard", "1/2", "--gameeval-baseline=base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: gameeval: --gameeval-shard plays one slice of the cases; gate the merged report instead*"]
    )
    result = pytester.runpytest_inprocess(*RUN, "--gameeval-shard", "3/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: gameeval: --gameeval-shard 3/2: expected K/N with 1 <= K <= N*"])
