"""The xdist controller's stall watchdog (pytest_plugin/xdist_stall.py), on a scheduler's state as
xdist keeps it (workqueue: scope -> {nodeid: done}; assigned_work: worker -> the same)."""

from __future__ import annotations

import threading
import time

from pytest_gameeval.pytest_plugin.xdist_stall import StallWatch, stalled


class Sched:
    def __init__(self, queue, assigned):
        self.workqueue, self.assigned_work = queue, assigned


def test_work_queued_and_no_worker_holding_any_is_a_stall():
    finished_unit = {"a::1": True, "a::2": True}
    assert stalled(Sched({"b": {"b::1": False}}, {"gw2": {"a": finished_unit}}))  # xdist 3.8's late-kill hang
    assert stalled(Sched({"b": {"b::1": False}}, {}))  # no worker at all
    assert not stalled(Sched({"b": {"b::1": False}}, {"gw2": {"c": {"c::1": False}}}))  # one still plays
    assert not stalled(Sched({}, {"gw2": {"a": finished_unit}}))  # nothing left: the run is ending


def test_the_watch_interrupts_once_the_stall_lasts_and_says_why():
    sched = Sched({"b": {"b::1": False, "b::2": False}}, {"gw2": {}})
    causes, interrupted = [], threading.Event()
    watch = StallWatch(sched, causes.append, seconds=0.4, interrupt=interrupted.set).start()
    assert interrupted.wait(10)
    watch.stop()
    assert causes == ["xdist stalled: 2 test items left and no worker given any for 0.4 s"]


def test_the_watch_forgives_a_pause_shorter_than_its_limit():
    sched = Sched({"b": {"b::1": False}}, {"gw2": {}})
    interrupted = threading.Event()
    watch = StallWatch(sched, lambda cause: None, seconds=1.0, interrupt=interrupted.set).start()
    time.sleep(0.5)
    sched.assigned_work["gw2"] = sched.workqueue.pop("b")  # a replacement worker came up and took the work
    sched.assigned_work["gw2"] = {"b": {"b::1": False}}
    assert not interrupted.wait(1.5)
    watch.stop()
