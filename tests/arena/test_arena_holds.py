"""Issue 37's six probes against the real server over HTTP (SQLite, then PostgreSQL where a cluster
starts, its URL carrying a password): each answered with a 4xx and one message, the security
headers on every response, nothing stored half-way, nothing of a person's text, a session id or
the password in any output or log, memory flat over unknown ids, a chunked oversize body refused
while it streams, a foreign Host refused and never echoed. Then the store's text rule in process
(a model's NUL stored replaced, the record says so), the last guard against an unexpected error,
and the password masked in every line `gameeval arena` and `arena export` print."""

from __future__ import annotations

import asyncio
import re
import secrets
import subprocess
import sys

import httpx
import pytest
from arena_support import bench, database, load_bench  # noqa: F401  (fixture)
from conftest import FakePlayer

from pytest_gameeval.arena.guards import SECURITY_HEADERS
from pytest_gameeval.arena.live import advance, new_session
from pytest_gameeval.arena.store import Store, shown_db, storable, unstorable
from pytest_gameeval.games.registry import get_spec

PASSWORD = "Pw" + secrets.token_hex(8)
FORM = {"content-type": "application/x-www-form-urlencoded"}
MARK = "zq" + secrets.token_hex(6)  # in every hostile text: never in a log


def _with_password(db: str) -> str:
    return (
        db.replace("postgresql://postgres@", f"postgresql://postgres:{PASSWORD}@") if db.startswith("postgres") else db
    )


@pytest.fixture(scope="module")
def held(database, tmp_path_factory):  # noqa: F811
    """The server on `database` (a PostgreSQL URL with a password: the test cluster trusts
    127.0.0.1 and ignores it, the server must still never print it), a log of every response."""
    home = tmp_path_factory.mktemp("arena-holds")
    with bench.ArenaServer(
        _with_password(database), extra=bench.FAST_OPTIONS, log=home / "server.log", cwd=home
    ) as running:
        running.responses = []
        yield running


def _client(server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=60, event_hooks={"response": [server.responses.append]})


def _session(client: httpx.Client, game: str = "taboo") -> tuple[str, str, str]:
    """A new game: (session id, the move form's token, its move number)."""
    home = client.get("/")
    csrf = bench.CSRF.search(home.text).group(1)
    started = client.post("/new", data={"csrf": csrf, "game": game})
    assert started.status_code == 303, started.text
    sid = started.headers["location"].rsplit("/", 1)[1]
    page = client.get(f"/s/{sid}").text
    return sid, bench.CSRF.search(page).group(1), bench.SEQ.search(page).group(1)


def _person_moves(server, sid: str) -> list[str]:
    store = Store(server.db)
    try:
        return [m.text for m in store.get(sid).history if m.by_person]
    finally:
        store.close()


def _session_count(server) -> int:
    store = Store(server.db)
    try:
        return len(store.sessions())
    finally:
        store.close()


def _says(response: httpx.Response, text: str) -> bool:
    return text in response.text.replace("&#39;", "'")


def test_text_no_store_can_hold_is_refused_alike_on_every_store(held):
    client = _client(held)
    sid, token, seq = _session(client)
    raw = f"csrf={token}&seq={seq}&text=".encode()
    nul = client.post(f"/s/{sid}/move", data={"csrf": token, "seq": seq, "text": f"Yes\x00{MARK}"})
    assert nul.status_code == 400 and _says(
        nul, "Your reply contains a NUL character, which cannot be stored. Nothing was sent."
    )
    for body in (raw + f"{MARK}%ED%A0%80".encode(),  # a lone surrogate, as UTF-8 would spell it
                 raw + f"{MARK}%FF%FE".encode(),  # invalid UTF-8, percent-encoded
                 raw + MARK.encode() + b"\xc3\x28"):  # invalid UTF-8, raw
        refused = client.post(f"/s/{sid}/move", content=body, headers=FORM)
        assert refused.status_code == 400 and _says(refused, "The form is not valid UTF-8 text"), body
    assert _person_moves(held, sid) == []  # nothing stored half-way
    fine = client.post(
        f"/s/{sid}/move", data={"csrf": token, "seq": seq, "text": "Something found in a city, ünïcode ok."}
    )
    assert fine.status_code == 303
    assert _person_moves(held, sid) == ["Something found in a city, ünïcode ok."]


def test_a_non_ascii_token_is_refused_not_a_server_error(held):
    client = _client(held)
    sid, token, seq = _session(client)
    move = client.post(f"/s/{sid}/move", data={"csrf": "ü" * len(token), "seq": seq, "text": "hello"})
    new = client.post("/new", data={"csrf": "ü" * 32, "game": "taboo"})
    other = _client(held)
    cookie = other.post("/new", data={"csrf": "é", "game": "taboo"}, headers={"cookie": "arena_csrf=%C3%A9".encode()})
    raw_cookie = other.post("/new", data={"csrf": "é", "game": "taboo"}, headers={"cookie": b"arena_csrf=\xc3\xa9"})
    assert [r.status_code for r in (move, new, cookie, raw_cookie)] == [403] * 4
    assert all(_says(r, "did not come from this") for r in (move, new, cookie, raw_cookie))
    assert _person_moves(held, sid) == []


def test_memory_stays_flat_over_unknown_session_ids(held):
    """300 requests for sessions that do not exist (every third with a 15,000-character id, every
    tenth with a move posted), as benchmarks/arena_memory.py sends them: the server's resident
    memory grows by less than 1 MB (+1.5 MB over 300 before issue 37's fix, measured there)."""
    measured = load_bench("arena_memory").unknown_ids(held.url, held.proc.pid, 300)
    assert set(measured["statuses"]) == {"404", "403"}
    assert measured["rss_kb_grown"] < 1024, measured


def test_an_oversize_body_is_refused_while_it_streams(held):
    """A chunked body (no Content-Length) past the limit gets 413 on every posting route, with
    nothing created; a declared oversize length gets 413 on any route without being read."""
    client = _client(held)
    sid, token, seq = _session(client)
    home = client.get("/")
    csrf = bench.CSRF.search(home.text).group(1)
    sessions = _session_count(held)

    def chunked(head: str):
        yield head.encode()
        for _ in range(64):
            yield MARK.encode() * 1000

    new = client.post("/new", content=chunked(f"csrf={csrf}&game=taboo&nickname="), headers=FORM)
    move = client.post(f"/s/{sid}/move", content=chunked(f"csrf={token}&seq={seq}&text="), headers=FORM)
    declared = [client.request(method, path, content=b"x" * 20_000, headers=FORM)
                for method, path in (("POST", "/new"), ("POST", f"/s/{sid}/move"), ("GET", "/"), ("POST", "/results"))]
    assert new.status_code == move.status_code == 413 and _says(new, "larger than the 16384 bytes")
    assert [r.status_code for r in declared] == [413] * 4
    assert _session_count(held) == sessions and _person_moves(held, sid) == []


def test_a_foreign_host_is_refused_and_never_echoed(held):
    client = _client(held)
    home = client.get("/")
    csrf = bench.CSRF.search(home.text).group(1)
    sessions = _session_count(held)
    evil = "evil.example"
    answers = [
        client.get("/", headers={"host": evil}),
        client.get("/results/", headers={"host": evil}),
        client.get("/results/", headers={"host": f"{evil}:{held.port}"}),
        client.post("/new", data={"csrf": csrf, "game": "taboo"}, headers={"host": evil, "origin": f"http://{evil}"}),
    ]
    assert [r.status_code for r in answers] == [400] * 4
    assert _session_count(held) == sessions  # the rebinding page's post created nothing
    slash = client.get("/results/")  # our own host: no slash redirect built from the Host
    assert slash.status_code == 404 and "location" not in slash.headers
    local = client.get("/", headers={"host": f"localhost:{held.port}"})
    assert local.status_code == 200
    for r in [*answers, slash, local]:
        assert evil not in r.text and not any(evil in v for v in r.headers.values())


def test_every_response_carries_the_security_headers_and_the_log_holds_nothing(held):
    """Every response of this server, errors included, has the headers: this test's own probe of
    each status (so it holds in any order), and every response the other tests of the module got
    before it. The server's log has no traceback, no person's text, no session id and no password."""
    client = _client(held)
    sid, token, seq = _session(client)  # 200s and a 303
    client.get("/", headers={"host": "evil.example"})  # 400
    client.post(f"/s/{sid}/move", data={"csrf": "x" + token[1:], "seq": seq, "text": MARK})  # 403
    client.get("/new")  # 405
    client.get("/no/such/page")  # 404
    client.post("/new", content=b"x" * 20_000, headers=FORM)  # 413
    client.post("/s/" + "A" * 43 + "/move", files={"text": ("a.txt", MARK.encode())})  # not a form: 415
    statuses = {r.status_code for r in held.responses}
    assert not [s for s in statuses if s >= 500] and {200, 303, 400, 403, 404, 405, 413, 415} <= statuses
    for r in held.responses:
        missing = [k for k, v in SECURITY_HEADERS.items() if r.headers.get(k) != v]
        assert not missing, f"{r.request.method} {r.status_code}: no {missing}"
    log = held.log.read_text(errors="replace")
    assert "Traceback" not in log and MARK not in log and PASSWORD not in log
    assert not re.search(r"[A-Za-z0-9_-]{43}", log), "a session id in the log"
    assert "store:" in log and (not held.db.startswith("postgres") or "postgres:***@" in log)


# -- in process ------------------------------------------------------------------------------------

def test_the_text_rule_is_one_rule():
    assert unstorable("ok") is None and unstorable("a\x00b") == "a NUL character"
    assert unstorable("a\ud800") == "a lone surrogate (not valid Unicode)"
    assert storable("a\x00b\udfffc") == (
        "a\ufffdb\ufffdc",
        "2 character(s) no store can hold (NUL, lone surrogate) replaced by U+FFFD",
    )
    assert storable("ünïcode\t\n") == ("ünïcode\t\n", None)


def test_a_models_unstorable_text_is_stored_replaced_and_the_record_says_so(database, tmp_path):  # noqa: F811
    """The same on SQLite and PostgreSQL: a model reply holding NUL and a lone surrogate is stored
    with both replaced, the game plays the stored text (a replay is the same game) and the
    finished record's notes name the move."""
    db = database if database.startswith("postgres") else str(tmp_path / "arena.db")
    spec = get_spec("taboo")
    store = Store(db)
    try:
        session = new_session(spec, "m", None, {"max_rounds": "1", "retrospective": "false"})
        store.create(session)
        model = FakePlayer(lambda ctx: "GUESS: sh\x00op\ud800", label="garbage-stand-in")
        played, _ = asyncio.run(advance(spec, store.get(session.id), store, model, "A place to buy things."))
        stored = store.get(session.id)
        model_moves = [m for m in stored.history if not m.by_person]
        assert model_moves and all("\x00" not in m.text and "\ud800" not in m.text for m in model_moves)
        assert model_moves[0].text == "GUESS: sh\ufffdop\ufffd" and model_moves[0].changed.startswith("2 character(s)")
        record = played.record or asyncio.run(advance(spec, stored, store, model))[0].record
        assert record is not None
        assert any(n.startswith(f"move {model_moves[0].seq} (") and "replaced by U+FFFD" in n for n in record.notes)
        assert store.get(session.id).record["notes"] == record.to_dict()["notes"]
    finally:
        store.close()


def test_an_unexpected_error_is_a_500_page_with_headers_and_one_log_line(tmp_path, capfd):
    from pytest_gameeval.arena.web import Arena, create_app

    store = Store(str(tmp_path / "arena.db"))
    arena = Arena(store, {"gameeval/scripted": object()})

    def broken(sid: str):
        raise RuntimeError(f"driver detail with {sid} and {MARK}")

    store.get = broken

    async def ask() -> httpx.Response:
        transport = httpx.ASGITransport(app=create_app(arena))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.get("/s/" + "B" * 43)

    response = asyncio.run(ask())
    store.close()
    err = capfd.readouterr().err
    assert response.status_code == 500 and "Something went wrong" in response.text
    assert all(response.headers.get(k) == v for k, v in SECURITY_HEADERS.items())
    assert err.strip() == ("arena: error RuntimeError answering GET /s/{sid} "
                           "(details withheld: they may hold a person's text)")


@pytest.mark.parametrize("command, db", [
    (["arena", "--model", "gameeval/scripted"], "postgresql://someone:{password}@127.0.0.1:1/arena"),
    (["arena", "export", "out.eval"], "postgresql://127.0.0.1:1/arena?user=a&password={password}"),
], ids=["serve-password-in-user-part", "export-password-in-query"])  # ids: the same on every xdist worker
def test_a_database_password_is_never_printed(command, db, tmp_path):
    """A PostgreSQL URL nobody answers at: the error line shows the URL with the password masked
    (in the user part, or as a query parameter, which libpq also takes)."""
    db = db.format(password=PASSWORD)
    done = subprocess.run([sys.executable, "-m", "pytest_gameeval.cli", *command, "--db", db], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert PASSWORD not in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert done.stderr.startswith("gameeval: error: --db postgresql://") and "***" in done.stderr
    assert shown_db("postgresql://u:p%40ss@h/db") == "postgresql://u:***@h/db" and shown_db("arena.db") == "arena.db"
