"""Load on `gameeval arena` over HTTP on 127.0.0.1: scripted people play whole games at once.

    python benchmarks/arena_load.py --players 50 --sessions 200 [--db URL] [--model gameeval/scripted]

Starts the arena server (a subprocess, the real command, against a fresh SQLite file unless --db
says otherwise), then `--players` people play concurrently, each finishing games one after another
until `--sessions` games are finished (bounded: every person stops at its share, every request has
a timeout, the whole run has --deadline). A person is an HTTP client doing what the page asks: the
home page, the start form, then one post per move with the page's token and move number, until
the outcome shows. Afterwards the store is read back: every session finished, and its stored
moves are exactly the moves the people posted plus the model's replies (no move lost, none twice).

Prints one JSON object: errors (non-2xx, timeouts), sessions finished, moves, and the move's
response time excluding the model: p50/p95 of (client round trip - the server's `model` time from
its Server-Timing header), beside the server's own `app` time, the server's CPU time per request
(model calls included; on a shared machine the latencies follow its load) and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
SEQ = re.compile(r'name="seq" value="(\d+)"')
CHOICE = re.compile(r'<button type="submit" name="text" value="([^"]+)"')
CARD = re.compile(r'<div class="card" id="card">(.*?)</div>', re.S)
TIMING = re.compile(r"(app|model);dur=([\d.]+)")
GAMES = ("akinator", "taboo", "bluffing")
# short games: the load is in the requests, not in long games
FAST_OPTIONS = ["-T", "max_rounds=3", "-T", "max_questions=3"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ArenaServer:
    """`gameeval arena` as a subprocess on 127.0.0.1 (its own process group; stopped by its pid)."""

    def __init__(self, db: str, models: tuple[str, ...] = ("gameeval/scripted",), extra: list[str] | None = None,
                 log: Path | None = None, env: dict[str, str] | None = None, cwd: Path | None = None):
        self.db, self.models, self.extra = db, models, extra or []
        self.env, self.cwd = env, cwd
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log or Path(tempfile.mkstemp(prefix="arena-server-", suffix=".log")[1])
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 90.0) -> ArenaServer:
        cmd = [
            sys.executable,
            "-m",
            "pytest_gameeval.cli",
            "arena",
            "--db",
            self.db,
            "--port",
            str(self.port),
            *self.extra,
        ]
        for m in self.models:
            cmd += ["--model", m]
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                cmd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env={**os.environ, **(self.env or {})},
                cwd=self.cwd,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"arena server exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"arena server did not answer within {timeout:.0f} s")

    def processes(self) -> list[psutil.Process]:
        """The server and its worker processes (uvicorn's workers are its children)."""
        main = psutil.Process(self.proc.pid)
        return [main, *main.children(recursive=True)]

    def worker_pids(self) -> list[int]:
        """The pids of uvicorn's worker processes (spawned by multiprocessing), if it runs any."""
        found = []
        for p in self.processes()[1:]:
            with contextlib.suppress(psutil.Error):
                if "spawn_main" in " ".join(p.cmdline()):
                    found.append(p.pid)
        return found

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server and its live workers have used so far."""
        total = 0.0
        for p in self.processes():
            with contextlib.suppress(psutil.Error):
                times = p.cpu_times()
                total += times.user + times.system
        return total

    def kill9(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill9()

    def __enter__(self) -> ArenaServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def page_field(pattern: re.Pattern[str], page: str) -> str:
    """A form field of an arena page; a page without the move form says what it is instead (its
    heading and error line), so a failed run names the page the server sent."""
    found = pattern.search(page)
    if found is None:
        shown = re.findall(r"<h1>(.*?)</h1>|id=\"(?:error|outcome)\">(.*?)<", page)
        said = [re.sub(r"<[^>]+>", "", part).strip() for parts in shown for part in parts if part]
        raise RuntimeError(f"the page has no move form ({pattern.pattern.split()[0]}): it says {said or page[:300]!r}")
    return found.group(1)


def person_reply(game: str, page: str, turn: int) -> str:
    """What a cooperative scripted person types: a button's answer, or text that breaks no rule."""
    choices = CHOICE.findall(page)
    if choices:
        return choices[turn % 2]  # Yes / No
    if game == "taboo":
        return ["Think of something you see every day.", "It is common in a city.", "People use it often.",
                "You might find it at home.", "What comes to mind first?"][turn % 5]
    return ["Yes, that is really how it was.", "It happened a few years ago.", "I remember it well.",
            "Ask anyone who was there.", "I would not make that up."][turn % 5]


class Person:
    """One person's browser, as HTTP: cookies, the page's token and move number, one post per move.
    With `servers` (base URLs of several arena processes on one store) each request goes to the
    next one in turn, so one person's pages and posts are answered by different processes (the
    client's one cookie jar holds for all: cookies are per host, not per port)."""

    def __init__(self, client: httpx.AsyncClient, servers: list[str] | None = None):
        self.client = client
        self.servers = servers or [""]
        self.turn = 0
        self.latencies: list[tuple[float, float, float]] = []  # (round trip, model, app) seconds per move
        self.posted = 0  # moves this person posted and the server accepted
        self.posted_by: dict[str, int] = {}  # the same, per session

    def at(self, path: str) -> str:
        """The address of the next request: a path on the client's server, or on the next of `servers`."""
        self.turn += 1
        return self.servers[self.turn % len(self.servers)] + path

    async def start(self, game: str, model: str | None = None, nickname: str | None = None) -> str:
        home = await self.client.get(self.at("/"))
        home.raise_for_status()
        form = {"csrf": page_field(CSRF, home.text), "game": game}
        if model:
            form["model"] = model
        if nickname:
            form.update(nickname=nickname, consent="yes")
        r = await self.client.post(self.at("/new"), data=form)
        if r.status_code != 303:
            raise RuntimeError(f"/new answered {r.status_code}")
        return r.headers["location"].rsplit("/", 1)[1]

    async def page(self, sid: str) -> str:
        r = await self.client.get(self.at(f"/s/{sid}"))
        r.raise_for_status()
        return r.text

    async def move(self, sid: str, page: str, text: str) -> httpx.Response:
        started = time.perf_counter()
        r = await self.client.post(
            self.at(f"/s/{sid}/move"),
            headers={"X-Arena-Fetch": "1"},
            data={"csrf": page_field(CSRF, page), "seq": page_field(SEQ, page), "text": text},
        )
        elapsed = time.perf_counter() - started
        timing = dict(TIMING.findall(r.headers.get("server-timing", "")))
        if r.status_code == 200:
            self.posted += 1
            self.posted_by[sid] = self.posted_by.get(sid, 0) + 1
            self.latencies.append((elapsed, float(timing.get("model", 0)) / 1000, float(timing.get("app", 0)) / 1000))
        return r

    async def play(self, game: str, *, max_moves: int = 80, **start: Any) -> tuple[str, str]:
        """A whole game; (session id, the last page)."""
        sid = await self.start(game, **start)
        page = await self.page(sid)
        for turn in range(max_moves):
            if 'id="outcome"' in page:
                return sid, page
            r = await self.move(sid, page, person_reply(game, page, turn))
            r.raise_for_status()
            page = r.text
        raise RuntimeError(f"{game} session did not end within {max_moves} moves")


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


async def load(urls: list[str], players: int, sessions: int, deadline: float) -> dict[str, Any]:
    """`players` people at once, each finishing its share of `sessions` games; each person's
    requests go to the servers in `urls` in turn."""
    errors: list[str] = []
    finished: list[tuple[str, str]] = []
    people: list[Person] = []
    share = [sessions // players + (i < sessions % players) for i in range(players)]
    # A person's connection to one server idles while its move on another is served (seconds at
    # 500 people). uvicorn closes a connection idle for 5 s (its timeout_keep_alive); a client that
    # reuses one at that moment gets a ReadError (a browser would silently retry). Idle connections
    # are dropped here well before the server's limit, as a well-configured client would.
    limits = httpx.Limits(max_connections=players, max_keepalive_connections=players, keepalive_expiry=2.0)

    async def one(i: int) -> None:
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:
            person = Person(client, urls)
            person.turn = i  # people start on different servers
            people.append(person)
            for k in range(share[i]):
                game = GAMES[(i + k) % len(GAMES)]
                try:
                    sid, _ = await person.play(game)
                    finished.append((sid, game))
                except Exception as e:  # counted, reported: a failed game is the benchmark's finding
                    errors.append(f"{game}: {type(e).__name__}: {e}"[:300])

    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(players))), deadline)
    wall = time.perf_counter() - started
    moves = [m for p in people for m in p.latencies]
    excluding_model = [1000 * (trip - model) for trip, model, _ in moves]
    app = [1000 * a for _, _, a in moves]
    posted_by = {sid: n for p in people for sid, n in p.posted_by.items()}
    return {
        "players": players, "sessions_planned": sessions, "sessions_finished": len(finished), "errors": errors,
        "moves": len(moves), "person_moves_posted": sum(p.posted for p in people), "wall_seconds": round(wall, 2),
        "moves_per_second": round(len(moves) / wall, 1) if wall else None,
        "move_ms_excluding_model": {"p50": percentile(excluding_model, 50), "p95": percentile(excluding_model, 95)},
        "server_app_ms": {"p50": percentile(app, 50), "p95": percentile(app, 95)},
        "model_ms": {"p50": percentile([1000 * m for _, m, _ in moves], 50)},
        "finished_ids": finished, "posted_by": posted_by,
    }


def check_store(db: str, finished: list[tuple[str, str]], posted_by: dict[str, int]) -> dict[str, Any]:
    """Read the store back: every finished session is there with its record; per session, the
    people's stored moves against the moves the server acknowledged (lost: acknowledged, not
    stored; doubled: stored more often than posted)."""
    from pytest_gameeval.arena.store import FINISHED, Store

    store = Store(db)
    try:
        sessions = {s.id: s for s in store.sessions()}
        by_person = store.person_moves()
    finally:
        store.close()
    missing = [
        sid
        for sid, _ in finished
        if sid not in sessions or sessions[sid].status != FINISHED or not sessions[sid].record
    ]
    lost = sum(max(0, n - by_person.get(sid, 0)) for sid, n in posted_by.items())
    doubled = sum(max(0, by_person.get(sid, 0) - n) for sid, n in posted_by.items())
    return {"sessions_in_store": len(sessions), "finished_missing": len(missing),
            "person_moves_stored": sum(by_person.get(sid, 0) for sid in posted_by),
            "person_moves_posted": sum(posted_by.values()), "lost_moves": lost, "doubled_moves": doubled}


@contextlib.contextmanager
def store_for(db: str | None, tmp: str):
    """The store's URL: a fresh SQLite file by default; `postgresql` alone: a throwaway cluster."""
    if db != "postgresql":
        yield db or str(Path(tmp) / "arena.db")
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pg_cluster import Cluster

    with Cluster.started(max_connections=400) as cluster:
        yield cluster.url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--db", help="a SQLite file or postgresql:// URL; `postgresql` alone starts a throwaway "
                                     "cluster (default: a fresh SQLite file in a temporary directory)")
    parser.add_argument("--servers", type=int, default=1, help="`gameeval arena` servers on one store, each on its "
                        "own port; every person's requests go to them in turn (more than 1: PostgreSQL)")
    parser.add_argument("--workers", type=int, default=1, help="each server's --workers (more than 1: PostgreSQL)")
    parser.add_argument("--long", action="store_true", help="the games' default lengths (Taboo 5 rounds, Akinator "
                        "20 questions, Bluffing 5) instead of 3")
    parser.add_argument("--model", default="gameeval/scripted")
    parser.add_argument("--deadline", type=float, default=900.0, help="seconds before the run stops itself")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arena-load-") as tmp, store_for(args.db, tmp) as db:
        extra = ([] if args.long else FAST_OPTIONS) + ["--workers", str(args.workers)]
        servers = [ArenaServer(db, (args.model,), extra, Path(tmp) / f"server-{k}.log") for k in range(args.servers)]
        try:
            for server in servers:
                server.start()
            cpu_before = sum(server.cpu_seconds() for server in servers)
            result = asyncio.run(load([server.url for server in servers], args.players, args.sessions, args.deadline))
            server_cpu = sum(server.cpu_seconds() for server in servers) - cpu_before
        finally:
            for server in servers:
                server.stop()
        requests = result["moves"] + 3 * result["sessions_finished"]  # each game: home page, start form, first page
        # load-independent: the servers' CPU per request, the (scripted) model's calls through inspect included
        result["server_cpu_ms_per_request"] = round(1000 * server_cpu / requests, 2) if requests else None
        result["store"] = check_store(db, result.pop("finished_ids"), result.pop("posted_by"))
        result["backend"] = "postgresql" if db.startswith("postgres") else "sqlite"
    result.update(servers=args.servers, workers=args.workers, games="default lengths" if args.long else "3 rounds")
    result["load_average"] = os.getloadavg()
    print(json.dumps(result, indent=2))
    ok = (
        not result["errors"]
        and result["sessions_finished"] == args.sessions
        and result["store"]["lost_moves"] == 0
        and result["store"]["doubled_moves"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
