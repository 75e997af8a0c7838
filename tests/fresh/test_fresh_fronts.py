"""Fresh cases through both fronts (issue 61): `--gameeval-data GAME=fresh:SEED` and
`-T data=fresh:SEED`; the report names the seed and lexicon; a gate between two fresh seeds is
unpaired and says so; a gate between fresh and published cases is refused as other data."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import pytest_gameeval.backends.registry  # noqa: F401  (imported once: pytester's in-process runs)
import pytest_gameeval.run.runner  # noqa: F401
from pytest_gameeval.fresh.cases import fresh_rows
from pytest_gameeval.fresh.lexicon import lexicon_digest

pytest_plugins = ["pytester"]
ORACLE, RANDOM = "gameeval/scripted/oracle", "gameeval/scripted/random"


def play(pytester: pytest.Pytester, model: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("--gameeval-only", f"--gameeval-model={model}", "--gameeval-games", "askguess",
                                        "--gameeval-limit", "12", "-p", "no:cacheprovider", *args)


def test_the_report_names_the_fresh_seed_and_lexicon(pytester):
    result = play(pytester, RANDOM, "--gameeval-data", "askguess=fresh:7", "--gameeval-report", "r.json")
    assert result.ret == 0, result.stdout.str()
    game = json.loads((pytester.path / "r.json").read_text())["games"]["askguess"]
    assert game["dataset"]["fresh"] == {"seed": 7, "lexicon": lexicon_digest()}
    assert game["dataset"]["rows"] >= 60


@pytest.mark.slow
def test_the_option_form_draws_the_same_set(pytester):
    result = play(pytester, RANDOM, "--gameeval-option", "askguess.data=fresh:7", "--gameeval-report", "o.json")
    assert result.ret == 0, result.stdout.str()
    play(pytester, RANDOM, "--gameeval-data", "askguess=fresh:7", "--gameeval-report", "d.json")
    datasets = [json.loads((pytester.path / f).read_text())["games"]["askguess"]["dataset"]
                for f in ("o.json", "d.json")]
    assert datasets[0] == datasets[1]


@pytest.mark.slow
def test_a_gate_across_fresh_seeds_is_unpaired_and_across_data_is_refused(pytester):
    play(pytester, ORACLE, "--gameeval-data", "askguess=fresh:7", "--gameeval-report", "base.json")
    other_seed = play(pytester, RANDOM, "--gameeval-data", "askguess=fresh:8", "--gameeval-baseline", "base.json")
    out = other_seed.stdout.str()
    assert "askguess: fresh cases of seed 7 (old) and 8 (new): other cases, compared unpaired" in out
    assert "independent" in out and "paired t" not in out
    published = play(pytester, RANDOM, "--gameeval-baseline", "base.json")
    assert published.ret != 0 and "askguess: different dataset" in published.stdout.str() + published.stderr.str()


@pytest.mark.slow
def test_inspect_plays_a_fresh_set_and_refuses_a_bad_seed(tmp_path):
    cmd = [sys.executable, "-m", "inspect_ai", "eval", "gameeval/askguess", "--model", RANDOM, "--limit", "2",
           "--log-dir", str(tmp_path / "logs"), "--display", "none"]
    ok = subprocess.run([*cmd, "-T", "data=fresh:7"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert ok.returncode == 0, ok.stderr
    from inspect_ai.log import list_eval_logs, read_eval_log

    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    assert log.status == "success" and len(log.samples) == 2
    assert log.eval.task_args["data"] == "fresh:7"  # as the user typed it, for a reader of the log
    labels = [r["label"] for r in fresh_rows("askguess", 7)]
    assert sorted(s.metadata["row_id"] for s in log.samples) == sorted(labels[:2])
    bad = subprocess.run([*cmd, "-T", "data=fresh:x"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert bad.returncode != 0
    assert "askguess: data='fresh:x': write fresh:SEED" in bad.stderr
