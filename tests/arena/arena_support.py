"""Shared by the arena tests: the benchmark's HTTP people and server runner, and a real PostgreSQL
server started for the test (benchmarks/pg_cluster.py: Debian's `postgresql` binaries)."""

from __future__ import annotations

import contextlib
from typing import Iterator

import pytest
from test_benchmarks import load as load_bench  # noqa: F401  (a benchmark script as a module)

bench = load_bench("arena_load")
pg_cluster = load_bench("pg_cluster")


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on 127.0.0.1 (benchmarks/pg_cluster.py); yields its URL.
    Raises RuntimeError with the reason when none can be started (the caller skips with it)."""
    with pg_cluster.Cluster.started() as cluster:
        yield cluster.url


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database(request, tmp_path_factory):
    """A store for the module's tests: a SQLite file, then a real PostgreSQL cluster (skipped with
    the reason when none can be started)."""
    if request.param == "sqlite":
        yield str(tmp_path_factory.mktemp("arena") / "arena.db")
        return
    try:
        with postgres() as url:
            yield url
    except RuntimeError as e:
        pytest.skip(f"no PostgreSQL server could be started: {e}")


@pytest.fixture(scope="module")
def server(database, tmp_path_factory):
    """The server, with its home, data, cache and working directories in one temporary tree (so a
    test can search everything it wrote outside the store)."""
    home = tmp_path_factory.mktemp("arena-home")
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
           "XDG_CONFIG_HOME": str(home / "config"), "TMPDIR": str(home / "tmp")}
    (home / "tmp").mkdir()
    with bench.ArenaServer(database, extra=bench.FAST_OPTIONS, log=home / "server.log", env=env, cwd=home) as running:
        running.home = home
        yield running
