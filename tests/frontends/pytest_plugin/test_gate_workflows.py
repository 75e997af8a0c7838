"""The sequential gate and pytest's selection and stopping (issue 59), through real pytest in a
temporary project: the gate cuts a game's cases only when its gate item will run (-k "not gate",
--deselect leave every selected case played, "not gated", and a last line that does not say
"passed" when nothing was judged); -x stops at the first game that fails its gate (each gate item
right after its game's cases) and names why the next game was not gated; a partly deselected
game's verdict line says how many cases were left out; stepwise (--sw) gets the report written and
its second run starts at the failed gate item."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gameeval.analysis.report.file import read_report

GAMES = ["--gameeval-only", "-p", "no:randomly", "--gameeval-limit", "8"]
GATED = [*GAMES, "--gameeval-model=gameeval/scripted/random", "--gameeval-baseline=base.json"]


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GAMEEVAL_PROGRESS_SECONDS": "0"})


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A baseline of Ask-Guess and Taboo played by the reference policy; the random one is worse at both."""
    cwd = tmp_path_factory.mktemp("gate_workflows")
    (cwd / "conftest.py").write_text("")
    base = run(cwd, *GAMES, "-p", "no:cacheprovider", "--gameeval-games", "askguess,taboo",
               "--gameeval-model=gameeval/scripted/reference", "--gameeval-report=base.json")
    assert base.returncode == 0, base.stdout[-2000:]
    return cwd


def report(cwd: Path) -> dict:
    return read_report(cwd / "reports" / "gameeval-report.json")


def test_x_stops_at_the_first_game_that_fails_its_gate(project):
    done = run(project, *GATED, "-p", "no:cacheprovider", "--gameeval-games", "askguess,taboo", "-x")
    assert done.returncode == 1, done.stdout[-3000:]
    assert last_line(done).startswith("1 failed"), last_line(done)
    assert "FAILED gameeval::askguess[gate]" in done.stdout
    cases = report(project)["cases"]
    assert cases and {c["game"] for c in cases} == {"askguess"}  # Taboo's cases were never played
    assert ("taboo: not gated: its gate item was not reached: the run stopped before it (stopping after 1 failures)"
            in done.stdout)
    assert report(project)["gate"]["not_reached"] == {"taboo": "the run stopped before it (stopping after 1 failures)"}


@pytest.mark.parametrize("leave_out", [["-k", "not gate"], ["--deselect", "gameeval::askguess[gate]"]])
def test_a_gate_item_left_out_leaves_every_selected_case_played(project, leave_out):
    done = run(project, *GATED, "-p", "no:cacheprovider", "--gameeval-games", "askguess", *leave_out)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "sequential gate reached its verdict" not in done.stdout
    assert [c["status"] for c in report(project)["cases"]] == ["played"] * 8
    assert ("askguess: not gated: its gate item was not selected (-k, -m, --deselect, node ids, --lf or --sw)"
            in done.stdout)
    assert "gate passed" not in done.stdout
    assert "gameeval gate not applied (gameeval/scripted/random vs gameeval/scripted/reference): no game judged" \
        in done.stdout


@pytest.mark.slow  # two gated runs (~9 s on 2 busy cores)
def test_the_verdict_line_says_how_many_cases_were_deselected(project):
    done = run(project, *GATED, "-p", "no:cacheprovider", "--gameeval-games", "askguess", "-k", "not baby", "-rA")
    assert done.returncode in (0, 1), done.stdout[-3000:]
    [line] = [x for x in done.stdout.splitlines() if x.startswith("  askguess: ") and " of 7 games " in x]
    assert "1 of its 8 cases deselected" in line, line
    assert report(project)["gate"]["games"]["askguess"]["cases_deselected"] == 1


@pytest.mark.slow  # two pytest runs (~15 s on 2 busy cores)
def test_stepwise_reports_the_games_and_starts_again_at_the_failed_gate(project):
    first = run(project, *GATED, "--gameeval-games", "askguess,taboo", "--sw")
    out = first.stdout + first.stderr
    assert first.returncode == 2, out[-3000:]  # pytest's own exit for --sw's stop
    assert "no report written" not in out and "FAILED gameeval::askguess[gate]" in out
    assert {c["game"] for c in report(project)["cases"]} == {"askguess"}
    assert report(project)["gate"]["verdict"] == "fail"
    again = run(project, *GATED, "--gameeval-games", "askguess,taboo", "--sw", "-rA")
    assert again.returncode == 2, again.stdout[-3000:]
    assert "FAILED gameeval::askguess[gate]" in again.stdout  # Ask-Guess's 8 cases passed last time: skipped
    assert last_line(again).startswith("1 failed, 8 deselected"), last_line(again)


@pytest.mark.slow  # two pytest runs (~15 s on 2 busy cores)
def test_last_failed_reruns_the_failed_gate_and_names_lf_for_the_game_it_left_out(project, tmp_path):
    cache = ["-o", f"cache_dir={tmp_path / 'cache'}"]
    first = run(project, *GATED, *cache, "--gameeval-games", "askguess")
    assert first.returncode == 1 and "FAILED gameeval::askguess[gate]" in first.stdout, first.stdout[-3000:]
    # Taboo is new in this run: --lf leaves it out, and its line must not blame -k/-m alone
    again = run(project, *GATED, *cache, "--gameeval-games", "askguess,taboo", "--lf")
    assert again.returncode == 1 and "FAILED gameeval::askguess[gate]" in again.stdout, again.stdout[-3000:]
    assert ("taboo: not gated: its gate item was not selected (-k, -m, --deselect, node ids, --lf or --sw)"
            in again.stdout), again.stdout[-3000:]


@pytest.mark.slow
def test_a_plugin_that_reorders_items_leaves_the_verdict_as_it_was(project):
    """pytest-randomly shuffles the game items; the sequential gate still looks at the cases in the
    plan's order, so every seed gets the unshuffled run's verdict, after as many games."""
    pytest.importorskip("pytest_randomly")
    args = [*GATED, "-p", "no:cacheprovider", "--gameeval-games", "askguess"]
    at = args.index("no:randomly")
    still = args[:at - 1] + args[at + 1:]  # GATED turns randomly off: the same run without that
    unshuffled = run(project, *args)
    verdict = [x for x in unshuffled.stdout.splitlines() if x.startswith("  askguess: WORSE")]
    assert unshuffled.returncode == 1 and verdict, unshuffled.stdout[-3000:]
    for seed in ("1", "2"):
        # (before the cases were played in the plan's order, seeds 1 and 2 both ended undecided after 8)
        shuffled = run(project, *still, "-p", "randomly", f"--randomly-seed={seed}")
        assert shuffled.returncode == 1 and verdict[0] in shuffled.stdout, (seed, shuffled.stdout[-3000:])
