"""The contamination probe (issue 61) on two scripted questioners of known knowledge, over repeated
fresh seeds, through the probe's own side arguments, comparison and verdict (the CLI's functions):

- `gameeval/scripted/oracle` asks CIFAR-100's twenty superclass questions first: knowledge of the
  published list's structure. On the published cases the answerer confirms one and it guesses
  within it; on fresh cases every such question is a wasted round. It must be flagged.
- `gameeval/scripted/random` guesses the words of the list in play at random: it knows the fresh
  list exactly as well as the published one. It must not be flagged beyond the stated error rate
  (a false signal has chance at most alpha per game, 0.05, at a true gap of +δ; far less at none),
  and over all of a game's twins it is cleared: "no sign of memorisation" (issue 69).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from pytest_gameeval.analysis.rankings.contamination import FRESH, NO_SIGN, PUBLISHED, SIGNAL, probe_game, side_args
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.scripted import scripted_binder

SEEDS = range(12)
LIMIT = 40  # twins per side


def _played(strength: str, data: str, seed: int, limit: int) -> list[dict]:
    spec = get_spec("askguess")
    options = spec.parse_options({"data": data, "limit": limit, "seed": seed})
    bind = scripted_binder(spec, {EVALUATED: strength, "answerer": "reference"}, seed)
    out = []
    for row in spec.select_rows(options):
        record = asyncio.run(play_case(spec, row, 0, options, bind))
        out.append({"id": row.id, "case": row.id, "seed": record.seed, "status": "played", "outcome": record.label,
                    "scores": spec.score(record)})
    return out


def probe(strength: str, fresh_seed: int, limit: int = LIMIT) -> str:
    sides = side_args(["askguess"], fresh_seed)["askguess"]
    cases = {("askguess", side): _played(strength, sides[side]["data"], fresh_seed, limit)
             for side in (FRESH, PUBLISHED)}
    return probe_game("askguess", cases, alpha=0.05, delta=0.1)["verdict"]


@pytest.mark.slow
def test_the_knowing_questioner_is_flagged_and_the_fair_one_is_not_at_the_stated_rates():
    knowing = [probe("oracle", s) for s in SEEDS]
    fair = [probe("random", s) for s in SEEDS]
    assert knowing.count(SIGNAL) >= len(SEEDS) - 1, knowing
    # 12 probes at a false-signal rate of at most 0.05 each: three or more has chance under 2 %
    assert fair.count(SIGNAL) <= 2, fair
    assert NO_SIGN not in knowing, knowing


def test_one_probe_each_way():
    assert probe("oracle", 100) == SIGNAL
    assert probe("random", 100) != SIGNAL


@pytest.mark.slow  # ~30 s on 2 cores under load
def test_the_fair_player_over_all_twins_is_cleared_and_the_knowing_one_is_not():
    """Every Ask-Guess twin of seed 0 (82 a side) at the default δ: the fair player gets "no sign of
    memorisation", the knowing one still a signal."""
    assert probe("random", 0, limit=200) == NO_SIGN
    assert probe("oracle", 0, limit=200) == SIGNAL


def test_the_cli_refuses_a_game_without_fresh_cases_before_playing(tmp_path):
    run = subprocess.run([sys.executable, "-m", "pytest_gameeval.cli", "contamination", "gameeval/scripted",
                          "--games", "bluffing", "--out", str(tmp_path / "c")], capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("gameeval: error: bluffing: no fresh cases: ")
    assert not (tmp_path / "c").exists()
