"""The xdist controller's stall watchdog (pytest_plugin/xdist_stall.py), on a scheduler's state as
xdist keeps it (workqueue: scope -> {nodeid: done}; assigned_work: worker -> the same)."""

from __future__ import annotations

import threading

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


class WatchedSched(Sched):
    """A Sched that counts the watch's looks at it, so a test waits for the watch, not the clock."""

    def __init__(self, queue, assigned):
        super().__init__(queue, assigned)
        self.looks, self.looked = 0, threading.Condition()

    @property
    def workqueue(self):
        with self.looked:
            self.looks += 1
            self.looked.notify_all()
        return self._queue

    @workqueue.setter
    def workqueue(self, value):
        self._queue = value

    def wait_looks(self, n: int) -> bool:
        with self.looked:
            return self.looked.wait_for(lambda: self.looks >= n, timeout=30)


def test_the_watch_forgives_a_pause_shorter_than_its_limit():
    sched = WatchedSched({"b": {"b::1": False}}, {"gw2": {}})
    interrupted = threading.Event()
    # a generous limit (looks every second): the un-stall below lands well inside it on a busy machine
    watch = StallWatch(sched, lambda cause: None, seconds=4.0, interrupt=interrupted.set).start()
    assert sched.wait_looks(1)  # the watch has seen the stall begin
    sched.assigned_work["gw2"] = {"b": sched.workqueue.pop("b")}  # a replacement worker came up and took the work
    seen = sched.looks
    assert sched.wait_looks(seen + 2)  # and has looked twice since: no stall now
    assert not interrupted.is_set()
    watch.stop()
