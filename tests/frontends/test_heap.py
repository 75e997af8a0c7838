"""Garbage collection while games are in play (transport/heap.py, issue 47): full passes spaced out while
at least one game is in flight, the user's thresholds back after the last one, in both front ends;
GAMEEVAL_GC_TUNING=0 leaves the collector alone. Nothing is frozen (gc.get_referrers must still see
every object: tests/frontends/pytest_plugin/test_plugin.py's run with no warning shows it)."""

from __future__ import annotations

import gc
from contextlib import contextmanager

import pytest
from inspect_ai import eval as inspect_eval

import pytest_gameeval.backends.registry  # noqa: F401  (the scripted provider, registered once)
import pytest_gameeval.run.runner  # noqa: F401  (imported once: pytester's in-process runs)
from pytest_gameeval.inspect_ext.task import game_task
from pytest_gameeval.transport import heap

pytest_plugins = ["pytester"]
USER_THRESHOLDS = (600, 9, 8)  # not CPython's defaults, so that restoring them is seen


@pytest.fixture
def collector():
    """The user's thresholds set; the collector as it was afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(*USER_THRESHOLDS)
    yield
    gc.set_threshold(*before)


def test_full_passes_are_spaced_while_games_are_in_play_and_the_thresholds_come_back(collector):
    frozen_before = gc.get_freeze_count()
    with heap.playing():
        assert gc.get_threshold() == (600, 9, heap.FULL_PASS_EVERY)
        assert gc.get_freeze_count() == frozen_before  # nothing hidden from gc.get_referrers
        with heap.playing():  # a second game in flight changes nothing
            assert gc.get_threshold() == (600, 9, heap.FULL_PASS_EVERY)
        assert gc.get_threshold() == (600, 9, heap.FULL_PASS_EVERY)  # one game still in play
    assert gc.get_threshold() == USER_THRESHOLDS


def test_a_game_that_fails_still_gives_the_thresholds_back(collector):
    with pytest.raises(RuntimeError), heap.playing():
        raise RuntimeError("a harness bug")
    assert gc.get_threshold() == USER_THRESHOLDS


def test_a_user_threshold_above_ours_is_kept(collector):
    gc.set_threshold(700, 10, 500)
    with heap.playing():
        assert gc.get_threshold() == (700, 10, 500)


def test_switched_off_the_collector_is_left_alone(collector, monkeypatch):
    monkeypatch.setenv(heap.ENV, "0")
    with heap.playing():
        assert gc.get_threshold() == USER_THRESHOLDS


@pytest.fixture
def seen_in_play(monkeypatch):
    """The thresholds each game saw while in play, through the real `heap.playing`."""
    seen: list[tuple[int, int, int]] = []
    real = heap.playing

    @contextmanager
    def watched():
        with real():
            seen.append(gc.get_threshold())
            yield

    monkeypatch.setattr(heap, "playing", watched)
    return seen


def test_inspect_eval_plays_its_games_with_full_passes_spaced(collector, seen_in_play, tmp_path):
    (log,) = inspect_eval(game_task("askguess", max_rounds=2), model="gameeval/scripted", limit=2, epochs=1,
                          log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert seen_in_play == [(600, 9, heap.FULL_PASS_EVERY)] * 2
    assert gc.get_threshold() == USER_THRESHOLDS


def test_the_plugin_plays_its_games_with_full_passes_spaced(collector, seen_in_play, pytester):
    result = pytester.runpytest_inprocess("--gameeval-games", "askguess", "--gameeval-model", "gameeval/scripted",
                                          "--gameeval-limit", "2", "--gameeval-option", "max_rounds=2",
                                          "--gameeval-only", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert seen_in_play == [(600, 9, heap.FULL_PASS_EVERY)] * 2
    assert gc.get_threshold() == USER_THRESHOLDS
