"""The papers' own published games replayed through our rules (issue 45's "done means"), read where
they are: $GAMEEVAL_PUBLISHED, else `../shared/published` beside the repository (CI has them
there). A user's machine has no such folder: the tests skip, saying so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gameeval.published.fidelity import GAMEEVAL_FOLDER, measure

ROOT = Path(__file__).resolve().parents[2]
SOURCE = Path(os.environ.get("GAMEEVAL_PUBLISHED") or ROOT.parent / "shared" / "published")
ILLEGAL = {"names no player", "a player already out"}  # a vote for "None" or for a player out: no move by any rule

pytestmark = pytest.mark.skipif(
    not (SOURCE / GAMEEVAL_FOLDER).is_dir(),
    reason=f"the published games are not here ({SOURCE / GAMEEVAL_FOLDER}; set GAMEEVAL_PUBLISHED): they are "
           "read where they are, never copied into the project",
)


@pytest.fixture(scope="module")
def everything():
    return measure(SOURCE)


@pytest.fixture(scope="module")
def measured(everything):
    return everything["gameeval"]


@pytest.mark.parametrize("protocol", ["paper", "default"])
def test_no_legal_gpt4_move_is_rejected(measured, protocol):
    rejections = measured["protocols"][protocol]["rejections"]["by_check"]
    gpt4 = {r["check"] for r in rejections if r["model"] == "GPT-4"}
    assert gpt4 <= ILLEGAL, f"GPT-4 moves rejected by {sorted(gpt4 - ILLEGAL)}"


def test_paper_rejects_no_move_gameevals_code_accepted(measured):
    assert measured["protocols"]["paper"]["rejections"]["paper_accepted"] == []


@pytest.mark.parametrize(("protocol", "how"), [("paper", "outcomes"), ("paper", "strict"), ("default", "strict")])
def test_every_game_replayed_to_its_end_gets_the_published_winner_and_round(measured, protocol, how):
    """Under the paper's rules, and under ours where no reply was rejected (strict: the first
    rejection ends the replay); a game our stricter default re-scores differently is a finding."""
    outcomes = measured["protocols"][protocol][how]
    assert outcomes["replayed_to_end"] > 0 and outcomes["different"] == []
    assert outcomes["same_winner_and_round"] == outcomes["replayed_to_end"]


def test_a_lenient_replay_judges_every_reply_and_reaches_every_published_end(measured):
    for protocol, result in measured["protocols"].items():
        fates = [n for phases in result["fates"].values() for fates in phases.values() for n in fates.items()]
        assert sum(n for _, n in fates) == measured["replies"]
        assert sum(n for fate, n in fates if fate == "not reached") == 0, protocol
        outcomes = result["outcomes"]
        if protocol == "paper":
            assert outcomes["replayed_to_end"] == outcomes["games"] - outcomes["published_exit"]
        # a lenient replay diverges only past the recorded game's end: our game plays on (GameEval
        # stopped on a vote for nobody, or our stricter default kept the spy in), never out of order
        assert {d["kind"] for d in outcomes["diverged"]} <= {"exhausted"}, protocol


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_the_benchmark_prints_the_measurement_as_json():
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "published_games.py"), "--source", str(SOURCE)],
                         capture_output=True, text=True, timeout=300, check=True)
    result = json.loads(run.stdout)["gameeval"]
    assert result["games"] > 0 and set(result["protocols"]) == {"paper", "default"}
    text = run.stdout.lower()
    assert "thought" not in text and "speak" not in text  # figures only, never the published replies' text


def test_spygames_published_games_replay_under_paper_with_every_reply_accepted(everything):
    if "spygame" not in everything:
        pytest.skip(f"SpyGame's published games are not under {SOURCE}")
    spygame = everything["spygame"]["protocols"]
    assert spygame["paper"]["rejections"]["by_check"] == []
    for protocol in spygame:
        for how in ("outcomes", "strict") if protocol == "paper" else ("outcomes",):
            outcomes = spygame[protocol][how]
            assert outcomes["same_winner_and_round"] == outcomes["replayed_to_end"] == outcomes["games"]
    # the default protocol's stricter rule: SpyGame's own "10 words or less", which its code did not check
    assert {r["check"] for r in spygame["default"]["rejections"]["by_check"]} <= {"over the word limit"}


def test_the_re_judged_games_go_through_our_statistics_beside_gameevals_heatmap(measured):
    standings = measured["standings"]
    for model, cell in standings["by_spy_model"].items():
        assert cell["games"] > 0 and 0 <= cell["spy_win_rate"]["ci"][0] <= cell["spy_win_rate"]["ci"][1] <= 1
        assert 1 <= cell["living_round"]["ci"][0] <= cell["living_round"]["ci"][1] <= 3, model
    assert set(standings["ratings"]["ratings"]) == set(standings["by_spy_model"])
    for cell in standings["gameeval_heatmap"].values():  # its avg divides an 11-pair sum by 10
        assert cell["published_win_rate"] == pytest.approx(cell["mean_win_rate_over_pairs"] * 11 / 10)


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_rejudge_judges_the_published_games_by_the_installed_rules():
    run = subprocess.run([sys.executable, "-m", "pytest_gameeval.cli", "rejudge", str(SOURCE)],
                         capture_output=True, text=True, timeout=300, check=True)
    paper = next(line for line in run.stdout.splitlines() if line.startswith("GameEval") and "protocol=paper" in line)
    assert "(0 of them moves the paper's harness accepted)" in paper


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_the_replays_as_records_re_judge_unchanged_by_the_rules_that_made_them(tmp_path):
    records = tmp_path / "published.records.jsonl"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "published_games.py"), "--source", str(SOURCE),
                    "--records", str(records)], capture_output=True, text=True, timeout=300, check=True)
    run = subprocess.run([sys.executable, "-m", "pytest_gameeval.cli", "rejudge", str(records), "--json"],
                         capture_output=True, text=True, timeout=300, check=True)
    for game, result in json.loads(run.stdout)["games"].items():
        assert result["replayed"] == result["games"] > 0 and result["changed_moves"] == 0, game
