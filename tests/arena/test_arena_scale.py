"""The arena on several processes over one PostgreSQL store (docs/arena.md, "Several processes"):
`gameeval arena --workers N` and several servers on one `postgresql://` store; a page served by
one process is accepted by another; two processes racing for one turn ask the model once; a
worker or a server killed with SIGKILL, or PostgreSQL restarted, while people play: every
acknowledged move stored exactly once, every session finished on what is left.

The servers are the real command (benchmarks/arena_load.py's ArenaServer), PostgreSQL a real
throwaway cluster (benchmarks/pg_cluster.py), the people httpx clients doing what the page asks."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import signal
import subprocess
import sys

import httpx
import pytest
from arena_support import bench, pg_cluster
from conftest import loopback_server

from pytest_gameeval.arena.store import FINISHED, Store

GAMES = ("akinator", "taboo", "bluffing")
_names = itertools.count()


@pytest.fixture(scope="module")
def cluster():
    try:
        with pg_cluster.Cluster.started(max_connections=400) as running:
            yield running
    except RuntimeError as e:
        pytest.skip(f"no PostgreSQL server could be started: {e}")


@pytest.fixture
def db(cluster):
    """A fresh database on the module's cluster for each test."""
    return cluster.create_database(f"arena{next(_names)}")


def _servers(db, tmp_path, count, *extra, models=("gameeval/scripted",)):
    return [bench.ArenaServer(db, models, [*bench.FAST_OPTIONS, *extra], tmp_path / f"server-{k}.log")
            for k in range(count)]


def test_sqlite_refuses_several_workers_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pytest_gameeval.cli", "arena", "--model", "gameeval/scripted",
                           "--db", str(tmp_path / "a.db"), "--workers", "2"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "gameeval: error: --workers 2: a SQLite --db is served by one process (it has no lock that another process "
        "could wait on, so two could ask the model for the same turn); give a postgresql:// --db for several"]
    assert not (tmp_path / "a.db").exists()


def test_processes_starting_together_migrate_once(db):
    """Four processes open a new store at the same moment: each starts, the schema is made once."""
    opening = "import sys; from pytest_gameeval.arena.store import Store; Store(sys.argv[1]).close()"
    procs = [subprocess.Popen([sys.executable, "-c", opening, db], stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
    import sqlalchemy as sa

    engine = sa.create_engine(db.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as c:
        assert c.execute(sa.text("SELECT count(*) FROM arena_schema_version")).scalar() == 1
    engine.dispose()


@pytest.mark.slow
def test_people_play_across_two_servers_and_two_workers_and_lose_no_move(db, tmp_path):
    """Every request of a person goes to another process (a server with 2 workers, and a second
    server): the home page's token, the move tokens and the move numbers hold across them."""
    servers = _servers(db, tmp_path, 1, "--workers", "2") + _servers(db, tmp_path, 1)
    try:
        for server in servers:
            server.start()
        assert len(servers[0].worker_pids()) == 2
        result = asyncio.run(bench.load([s.url for s in servers], players=6, sessions=12, deadline=300))
    finally:
        for server in servers:
            server.stop()
    assert result["errors"] == [] and result["sessions_finished"] == 12
    checked = bench.check_store(db, result["finished_ids"], result["posted_by"])
    assert checked["finished_missing"] == checked["lost_moves"] == checked["doubled_moves"] == 0
    assert checked["person_moves_stored"] == result["person_moves_posted"] > 0


@pytest.mark.slow
def test_two_servers_racing_for_one_turn_ask_the_model_once(db, tmp_path):
    """Two servers answer the same Akinator session's first page at once (the model's question is
    due): the model is asked as often as for one request alone, and one question is stored. Then
    the same answer posted to both: one is played, the other says the move was already sent."""
    with loopback_server(300, latency=1.0) as url:
        model = ("openai-api/loopback/bench",)
        extra = ("-M", f"base_url={url}", "-M", "api_key=sk-test")
        servers = _servers(db, tmp_path, 2, *extra, models=model)

        def calls() -> int:
            return len(httpx.get(url.rsplit("/v1", 1)[0] + "/_bench/stats", timeout=10).json()["requests"])

        async def scenario():
            async with httpx.AsyncClient(timeout=120) as client:
                person = bench.Person(client, [servers[0].url])
                alone = await person.start("akinator")
                before = calls()
                await client.get(f"{servers[1].url}/s/{alone}")
                one_request = calls() - before
                raced = await person.start("akinator")
                before = calls()
                pages = await asyncio.gather(*(client.get(f"{s.url}/s/{raced}") for s in servers))
                racing = calls() - before
                page = pages[0].text
                form = {"csrf": bench.page_field(bench.CSRF, page), "seq": bench.page_field(bench.SEQ, page)}
                answers = await asyncio.gather(*(
                    client.post(f"{s.url}/s/{raced}/move", headers={"X-Arena-Fetch": "1"}, data={**form, "text": text})
                    for s, text in zip(servers, ("Yes", "No"))))
                return alone, raced, one_request, racing, pages, answers

        try:
            for server in servers:
                server.start()
            alone, raced, one_request, racing, pages, answers = asyncio.run(scenario())
        finally:
            for server in servers:
                server.stop()
    assert one_request >= 1 and racing == one_request
    assert [p.status_code for p in pages] == [200, 200]
    said = [re.findall(r'<li class="model">(.*?)</li>', p.text, re.S) for p in pages]
    assert said[0] == said[1] and len(said[0]) == 1  # one question, the same on both pages
    assert sorted(a.status_code for a in answers) == [200, 409]
    store = Store(db)
    try:
        first, second = store.get(alone), store.get(raced)
    finally:
        store.close()
    assert [m.by_person for m in second.history[:first.moves]] == [m.by_person for m in first.history]
    assert [m.text for m in second.history if m.by_person] in (["Yes"], ["No"])


async def _play_through(person: bench.Person, game: str, acknowledged: list, moved: asyncio.Event,
                        tries: int = 60) -> str:
    """One whole game as a person who reloads the page whenever a request fails (a connection cut
    by a kill, a 5xx): what a person in a browser does. Each accepted move is noted
    (session, move number, text)."""
    sid = None
    for _ in range(tries):
        try:
            sid = sid or await person.start(game)
            page = await person.page(sid)
            for turn in itertools.count():
                if 'id="outcome"' in page:
                    return sid
                seq = int(bench.page_field(bench.SEQ, page))
                text = bench.person_reply(game, page, turn)
                response = await person.move(sid, page, text)
                if response.status_code != 200:
                    break  # 409 (the move went in before a cut) or 5xx: reload
                acknowledged.append((sid, seq, text))
                moved.set()
                page = response.text
        except httpx.ConnectError as refused:  # a dead server: stop sending it requests, as a proxy would
            dead = f"{refused.request.url.scheme}://{refused.request.url.netloc.decode()}"
            if len(person.servers) > 1 and dead in person.servers:
                person.servers.remove(dead)
        except (httpx.HTTPError, RuntimeError):
            continue
    raise AssertionError(f"{game} session {sid} did not end within {tries} reloads")


def _check_every_acknowledged_move_once(db, sids, acknowledged):
    store = Store(db)
    try:
        sessions = {sid: store.get(sid) for sid in sids}
    finally:
        store.close()
    assert all(s.status == FINISHED and s.record for s in sessions.values())
    for sid, seq, text in acknowledged:
        stored = [m for m in sessions[sid].history if m.seq == seq]
        assert len(stored) == 1 and stored[0].text == text and stored[0].by_person, (sid, seq)
    for s in sessions.values():  # nothing half-written: the counter and the rows agree
        assert [m.seq for m in s.history] == list(range(s.moves))


@pytest.mark.slow
@pytest.mark.parametrize("killed", ["worker", "server"])
def test_kill_9_one_of_two_processes_while_200_people_play(db, tmp_path, killed):
    """200 people play at once across two processes (two workers of one server, or two servers);
    once 100 moves are in, one process is killed with SIGKILL. People whose request it cut reload
    (the survivor answers; uvicorn starts a new worker). Every session ends; every acknowledged
    move is stored exactly once."""
    servers = _servers(db, tmp_path, 1, "--workers", "2") if killed == "worker" else _servers(db, tmp_path, 2)
    acknowledged: list = []

    async def scenario():
        moved = asyncio.Event()
        limits = httpx.Limits(max_connections=400, max_keepalive_connections=0)  # new connections after the kill
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:
            people = [bench.Person(client, [s.url for s in servers]) for _ in range(200)]
            games = [asyncio.create_task(_play_through(p, GAMES[i % 3], acknowledged, moved))
                     for i, p in enumerate(people)]
            while len(acknowledged) < 100:
                moved.clear()
                await asyncio.wait_for(moved.wait(), 300)
            victim = servers[0].worker_pids()[0] if killed == "worker" else servers[1].proc.pid
            os.kill(victim, signal.SIGKILL)
            at_kill = len(acknowledged)
            return await asyncio.gather(*games), at_kill

    try:
        for server in servers:
            server.start()
        sids, at_kill = asyncio.run(scenario())
    finally:
        for server in servers:
            server.stop()
    assert len(sids) == 200 and len(acknowledged) > at_kill
    _check_every_acknowledged_move_once(db, sids, acknowledged)


@pytest.mark.slow
def test_a_postgresql_restart_mid_play_fails_clearly_and_play_resumes(cluster, db, tmp_path):
    """20 people play on two servers; PostgreSQL is stopped: a request gets a 503 page saying the
    store is not answering (no traceback, nothing stored); it is started again: every game plays
    on to its end, every acknowledged move stored once, no session half-written."""
    servers = _servers(db, tmp_path, 2)
    acknowledged: list = []

    async def scenario():
        async with httpx.AsyncClient(timeout=120) as client:
            people = [bench.Person(client, [s.url for s in servers]) for _ in range(20)]
            sids = [await p.start(GAMES[i % 3]) for i, p in enumerate(people)]
            for i, (p, s) in enumerate(zip(people, sids)):  # everyone's first move
                page = await p.page(s)
                if 'id="outcome"' not in page:
                    text = bench.person_reply(GAMES[i % 3], page, 0)
                    if (await p.move(s, page, text)).status_code == 200:
                        acknowledged.append((s, int(bench.page_field(bench.SEQ, page)), text))
            await asyncio.to_thread(cluster.stop)
            down = [await client.get(f"{s.url}/s/{sids[0]}") for s in servers]
            await asyncio.to_thread(cluster.start)
            await asyncio.gather(*(_resume(p, s, GAMES[i % 3], acknowledged)
                                   for i, (p, s) in enumerate(zip(people, sids))))
            return sids, down

    try:
        for server in servers:
            server.start()
        sids, down = asyncio.run(scenario())
    finally:
        for server in servers:
            server.stop()
    assert [r.status_code for r in down] == [503, 503]
    assert all("The game store is not answering right now" in r.text for r in down)
    assert len(acknowledged) > 20
    _check_every_acknowledged_move_once(db, sids, acknowledged)
    for server in servers:
        assert "Traceback" not in server.log.read_text()


async def _resume(person, sid, game, acknowledged, tries: int = 60) -> None:
    """Play a started session to its end, reloading after any failed request."""
    for turn in range(tries):
        try:
            page = await person.page(sid)
            if 'id="outcome"' in page:
                return
            seq = int(bench.page_field(bench.SEQ, page))
            text = bench.person_reply(game, page, turn + 1)
            response = await person.move(sid, page, text)
            if response.status_code == 200:
                acknowledged.append((sid, seq, text))
        except httpx.HTTPError:
            continue
    raise AssertionError(f"session {sid} did not end within {tries} requests")


@pytest.mark.slow
def test_the_docs_several_processes_command_runs_with_its_workers(db, tmp_path):
    """docs/arena.md's `--workers` command as written, on this test's database and a free port:
    two workers answer, and a game plays through them."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "arena.md").read_text(encoding="utf-8")
    several = re.findall(r"^```bash\n(.*?)^```", doc, re.S | re.M)[2].strip()
    assert "--workers 2" in several
    server = bench.ArenaServer(db, log=tmp_path / "server.log")
    argv = several.split()[1:]  # after `gameeval`
    argv[argv.index("--db") + 1], argv[argv.index("--port") + 1] = db, str(server.port)
    log = open(tmp_path / "server.log", "ab")
    server.proc = subprocess.Popen([sys.executable, "-m", "pytest_gameeval.cli", *argv], stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        async def play():
            for _ in range(600):  # the port answers once the workers are up
                try:
                    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
                        return await bench.Person(client).play("taboo")
                except httpx.ConnectError:
                    await asyncio.sleep(0.1)
            raise AssertionError("the server never answered")

        sid, page = asyncio.run(play())
        assert 'id="outcome"' in page and len(server.worker_pids()) == 2
        assert "2 worker processes" in (tmp_path / "server.log").read_text()
    finally:
        server.stop()
        log.close()
