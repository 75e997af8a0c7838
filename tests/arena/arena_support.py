"""Shared by the arena tests: the benchmark's HTTP people and server runner, and a real PostgreSQL
server started for the test (Debian's `postgresql` binaries; as root, run as the postgres user)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from glob import glob
from pathlib import Path
from typing import Iterator

import pytest
from test_benchmarks import load as load_bench  # noqa: F401  (a benchmark script as a module)

bench = load_bench("arena_load")


def _pg_bin() -> Path | None:
    found = shutil.which("pg_ctl")
    candidates = sorted(glob("/usr/lib/postgresql/*/bin"), reverse=True) + ([str(Path(found).parent)] if found else [])
    for d in candidates:
        if (Path(d) / "initdb").exists() and (Path(d) / "pg_ctl").exists() and (Path(d) / "postgres").exists():
            return Path(d)
    return None


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on 127.0.0.1; yields its URL. Raises RuntimeError with the
    reason when none can be started (the caller skips with it)."""
    bindir = _pg_bin()
    if bindir is None:
        raise RuntimeError("no PostgreSQL server binaries (Debian: apt-get install postgresql)")
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: run the server as the postgres user
        runuser = shutil.which("runuser")
        if runuser is None:
            raise RuntimeError("running as root without runuser to start PostgreSQL as another user")
        try:
            import pwd

            pw = pwd.getpwnam("postgres")
        except KeyError:
            raise RuntimeError("running as root and there is no 'postgres' user to run PostgreSQL") from None
        as_user = [runuser, "-u", "postgres", "--"]
    tmp = tempfile.mkdtemp(prefix="gameeval-pg-")
    data = Path(tmp) / "data"
    if as_user:
        os.chmod(tmp, 0o755)
        os.chown(tmp, pw.pw_uid, pw.pw_gid)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def run(*cmd: str) -> None:
        done = subprocess.run([*as_user, *cmd], capture_output=True, text=True, timeout=120, cwd=tmp)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(cmd[0]).name} failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")

    started = False
    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        run(
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(Path(tmp) / "log"),
            "-w",
            "-t",
            "60",
            "start",
            "-o",
            f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={tmp} -c fsync=on -c "
            "max_connections=200",
        )
        started = True
        run(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "arena")
        yield f"postgresql://postgres@127.0.0.1:{port}/arena"
    finally:
        if started:
            subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=60, cwd=tmp)
        shutil.rmtree(tmp, ignore_errors=True)


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
