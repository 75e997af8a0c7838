"""transport/preload.py: the end's statistics load in a background thread once games are in play
(issue 62), once per process, and not at all with GAMEEVAL_PRELOAD=0. Each case in a fresh
interpreter: whether scipy is loaded is the whole point."""

from __future__ import annotations

import os
import subprocess
import sys

CHECK = """
import sys, threading
from pytest_gameeval.transport import preload
assert "scipy.stats" not in sys.modules
preload.start(); preload.start()  # once per process
names = [t.name for t in threading.enumerate()].count("gameeval-preload")
preload.wait()
print(names, "scipy.stats" in sys.modules)
"""


def run(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env}, check=True)
    return done.stdout.strip()


def test_start_loads_scipy_in_one_background_thread():
    assert run({}) == "1 True"


def test_switched_off_it_loads_nothing():
    assert run({"GAMEEVAL_PRELOAD": "0"}) == "0 False"
