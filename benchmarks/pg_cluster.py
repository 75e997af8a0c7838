"""A throwaway PostgreSQL cluster on 127.0.0.1 for the arena's benchmarks and tests (Debian's
`postgresql` binaries; as root, run as the postgres user). Never a server of the user's.

    with Cluster.started() as pg:   # pg.url: postgresql://postgres@127.0.0.1:PORT/arena
        pg.restart()                # stop (fast: sessions cut) and start again on the same data

Raises RuntimeError with the reason when no cluster can be started (tests skip with it).
"""

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


def _pg_bin() -> Path | None:
    found = shutil.which("pg_ctl")
    candidates = sorted(glob("/usr/lib/postgresql/*/bin"), reverse=True) + ([str(Path(found).parent)] if found else [])
    for d in candidates:
        if (Path(d) / "initdb").exists() and (Path(d) / "pg_ctl").exists() and (Path(d) / "postgres").exists():
            return Path(d)
    return None


def _as_postgres_user() -> tuple[list[str], tuple[int, int] | None]:
    """The command prefix that runs a server binary (initdb refuses root), and the uid/gid to own its files."""
    if os.geteuid() != 0:
        return [], None
    runuser = shutil.which("runuser")
    if runuser is None:
        raise RuntimeError("running as root without runuser to start PostgreSQL as another user")
    try:
        import pwd

        pw = pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root and there is no 'postgres' user to run PostgreSQL") from None
    return [runuser, "-u", "postgres", "--"], (pw.pw_uid, pw.pw_gid)


class Cluster:
    def __init__(self, max_connections: int = 200):
        bindir = _pg_bin()
        if bindir is None:
            raise RuntimeError("no PostgreSQL server binaries (Debian: apt-get install postgresql)")
        self.bindir = bindir
        self.as_user, owner = _as_postgres_user()
        self.tmp = Path(tempfile.mkdtemp(prefix="gameeval-pg-"))
        if owner:
            os.chmod(self.tmp, 0o755)
            os.chown(self.tmp, *owner)
        self.data = self.tmp / "data"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.max_connections = max_connections
        self.running = False
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/arena"

    def _run(self, *cmd: str) -> None:
        done = subprocess.run([*self.as_user, *cmd], capture_output=True, text=True, timeout=120, cwd=self.tmp)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(cmd[0]).name} failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")

    def _pg_ctl(self, *args: str) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60", *args)

    def start(self) -> None:
        self._pg_ctl("-l", str(self.tmp / "log"), "start", "-o",
                     f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.tmp} "
                     f"-c fsync=on -c max_connections={self.max_connections}")
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: "fast" ends every session (what a restart does), "immediate" as a crash."""
        self._pg_ctl("-m", mode, "stop")
        self.running = False

    def create_database(self, name: str) -> str:
        """A new empty database on the cluster; its URL."""
        self._run(str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return self.url.rsplit("/", 1)[0] + "/" + name

    def restart(self) -> None:
        self.stop()
        self.start()

    def remove(self) -> None:
        if self.running:
            subprocess.run([*self.as_user, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                            "stop"], capture_output=True, timeout=60, cwd=self.tmp)
            self.running = False
        shutil.rmtree(self.tmp, ignore_errors=True)

    @classmethod
    @contextlib.contextmanager
    def started(cls, max_connections: int = 200) -> Iterator[Cluster]:
        cluster = cls(max_connections)
        try:
            cluster._run(str(cluster.bindir / "initdb"), "-D", str(cluster.data), "-U", "postgres", "--auth=trust",
                         "-E", "UTF8", "--no-sync")
            cluster.start()
            cluster.create_database("arena")
            yield cluster
        finally:
            cluster.remove()
