"""The arena's web app (Starlette): server-rendered pages that work without JavaScript; with it,
arena.js posts a move and swaps in the returned game panel (no reload).

Safety: a session is reached only through its unguessable id (32 random bytes) in the URL; every
post carries a token bound to its session (HMAC with the server's key kept in the store) and,
when the browser sends one, an Origin equal to the server's own; the page only ever shows what
the person's seat may see (its card, the host's messages to it, both seats' public words) until
the game ends; the person's text is bounded (MAX_PERSON_CHARS), goes through the engine as the
user seat's reply (quoted by the engine like any player's words, HTML-escaped here) and is
written nowhere but the store (no access log). Pages are never cached, and their
address (with the session id) is never sent to another site as a Referer.

Hostile requests get a 4xx with one message and the same headers (guards.py): a Host not served
(TrustedHostMiddleware; no redirect ever builds an address from the Host), a body past MAX_BODY
(counted while it streams in), a form that is not UTF-8, text no store can hold, a malformed
session id (refused before any lookup; per-session locks live only while a request holds one).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import re
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any, AsyncIterator
from urllib.parse import parse_qsl

import jinja2
import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from pytest_gameeval.arena import results as arena_results
from pytest_gameeval.arena.guards import BodyLimit, BodyTooLarge, Guard, SecurityHeaders
from pytest_gameeval.arena.live import (
    ARENA_GAMES,
    MAX_PERSON_CHARS,
    ModelFailed,
    MoveConflict,
    Played,
    advance,
    case_row,
    new_session,
)
from pytest_gameeval.arena.store import FINISHED, POOL_OVERFLOW, POOL_SIZE, Session, Store, unstorable
from pytest_gameeval.engine.events import HOST_MSG, REPLY, SPEECH
from pytest_gameeval.games.akinator.prompts import ANSWERS
from pytest_gameeval.games.arena.person import outcome_for_the_person, turn_counter
from pytest_gameeval.games.arena.rules import RETRO, USER
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.taboo.prompts import MAX_CLUE
from pytest_gameeval.inspect_ext.decoding import model_player

MAX_NICK = 24
NICKNAME = re.compile(rf"^[A-Za-z0-9_\-]{{1,{MAX_NICK}}}$")
MAX_BODY = 16_384  # bytes of a form post; a reply is at most MAX_PERSON_CHARS characters
MAX_FIELDS = 8
FORM_TYPE = "application/x-www-form-urlencoded"
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)
FORM_COOKIE = re.compile(r"[A-Za-z0-9_-]{32}")  # secrets.token_urlsafe(24)
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
HOW_TO = {
    "akinator": "Keep the object on your card in mind. The model asks yes/no questions and tries to guess it; "
    "answer each question with one of the buttons.",
    "taboo": f"Make the model say the word on your card without writing it yourself: one message per round, "
    f"at most {MAX_CLUE} characters. The model wins if it guesses the word or lasts every round without saying it.",
    "bluffing": "Defend the statement on your card, true or false as the card says. The model asks questions, "
    "then says whether it believes you.",
}


class Arena:
    """What the web app serves: the store, the models, the game settings."""

    def __init__(self, store: Store, models: dict[str, Any], *, task_args: dict[str, str] | None = None,
                 model_timeout: float = 60.0, abandon_after: float = 1800.0):
        self.store = store
        self.models = models
        self.task_args = task_args or {}
        self.model_timeout = model_timeout
        self.abandon_after = abandon_after
        self.key = store.secret()
        self.locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}  # only while a request holds or awaits one
        # how long a request waits for a session another process is playing: the longest request
        # is a few model replies (a question and its probe), each bounded by model_timeout
        self.claim_wait = 3 * model_timeout + 5
        # turns played at once in this process, each on its claim's connection and a store thread:
        # fewer than the pool holds, so the other pages always find a connection and a thread (a
        # request waiting for a connection in a thread while every thread's holder needs one
        # more would stall them all until the pool's timeout)
        self.turns = asyncio.Semaphore(POOL_SIZE + POOL_OVERFLOW - 8)

    def token(self, purpose: str) -> str:
        return hmac.new(self.key, purpose.encode(), hashlib.sha256).hexdigest()

    @contextlib.asynccontextmanager
    async def lock(self, sid: str) -> AsyncIterator[None]:
        """One request at a time per session: in this process (an asyncio lock; the entry goes with
        its last user), then across processes on a shared store (the store's claim)."""
        lock, users = self.locks.setdefault(sid, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                if not self.store.shared:
                    yield
                    return
                async with self.turns:
                    claimed = await self._claim(sid)
                    try:
                        with self.store.holding(claimed):
                            yield
                    finally:
                        await asyncio.to_thread(self.store.release, claimed, sid)
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self.locks[sid]

    async def _claim(self, sid: str) -> Any:
        """The session's cross-process claim, tried until claim_wait has passed. Polled, not
        waited for in a thread: a blocked thread per waiting request would empty the thread pool
        every store call of this process uses."""
        deadline = time.monotonic() + self.claim_wait
        pause = 0.01
        while (claimed := await asyncio.to_thread(self.store.claim, sid)) is None:
            if time.monotonic() > deadline:
                raise BUSY
            await asyncio.sleep(pause)
            pause = min(2 * pause, 0.25)
        return claimed

    async def play(self, session: Session, text: str | None) -> tuple[Played, float]:
        spec = get_spec(session.game)
        player = model_player(self.models[session.model], session.options.structured)
        try:
            return await advance(spec, session, self.store, player, text, timeout=self.model_timeout)
        except ModelFailed:
            await asyncio.to_thread(self.store.note_model_error, session.id)
            raise


_templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(resources.files("pytest_gameeval.arena") / "templates")),
    autoescape=True, undefined=jinja2.StrictUndefined,
)


def _html(name: str, status: int = 200, headers: dict[str, str] | None = None, **values: Any) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(name).render(**values), status_code=status, headers=headers)


def _message(heading: str, message: str, status: int) -> HTMLResponse:
    return _html("message.html", status, heading=heading, message=message)


class Refused(Exception):
    """A request answered with a message page and a 4xx; nothing was stored."""

    def __init__(self, status: int, heading: str, message: str):
        super().__init__(message)
        self.status, self.heading, self.message = status, heading, message


BUSY = Refused(503, "Busy", "Another request is playing this game's turn right now and has not finished; "
               "reload in a moment to see the game as it stands.")
FOREIGN = Refused(403, "Refused", "This post did not come from this site's page; start again from the home page.")
NO_GAME = Refused(404, "No such game", "This address leads to no game.")


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


def _equal(a: str, b: str) -> bool:
    """Constant-time comparison of any two strings (compare_digest takes str only when ASCII)."""
    return hmac.compare_digest(a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass"))


def _transcript(events: list[Any]) -> list[tuple[str, str, str]]:
    """(css class, speaker, text) of every line the person's seat may see; the person's own
    replies as typed (a refused one stays, followed by the host's reason)."""
    lines = []
    for e in events:
        if not e.visible_to(USER):
            continue
        if e.kind == REPLY and e.speaker == USER:
            lines.append(("you", "You", e.text))
        elif e.kind == SPEECH and e.speaker != USER:
            lines.append(("model", e.speaker, e.text))
        elif e.kind == HOST_MSG:
            lines.append(("host", "Host", e.text))
    return lines


def game_values(arena: Arena, session: Session, played: Played | None, error: str | None = None) -> dict[str, Any]:
    """What the game panel shows; nothing the person's seat may not see before the end."""
    spec = get_spec(session.game)
    game, _ = spec.setup(case_row(spec, session), 0, session.options)
    values: dict[str, Any] = {
        "sid": session.id, "title": spec.title, "how": HOW_TO[session.game], "card": game.system_prompt(USER),
        "error": error, "finished": False, "waiting": False, "lines": [],
    }
    if played is not None and played.record is not None:
        record = played.record
        values.update(finished=True, lines=_transcript(record.events), model=session.model,
                      outcome=outcome_for_the_person(record, spec, USER).split(" (the model's")[0] + ".",
                      probes=[(e.round, e.text.split(": ", 1)[-1]) for e in record.events
                              if e.kind == "action" and e.data.get("probe") == RETRO])
    elif played is not None and played.ctx is not None:
        ctx = played.ctx
        values.update(waiting=True, lines=_transcript(ctx.events), csrf=arena.token(f"move:{session.id}"),
                      seq=len(session.history), counter=turn_counter(ctx), max_chars=MAX_PERSON_CHARS,
                      choices=list(ANSWERS) if (session.game, ctx.turn.action) == ("akinator", "answer") else None,
                      hint=f"at most {MAX_CLUE} characters, without the word" if ctx.turn.action == "clue" else None)
    return values


def _timing(started: float, model_seconds: float) -> dict[str, str]:
    total = time.perf_counter() - started
    return {"Server-Timing": f"app;dur={1000 * (total - model_seconds):.2f}, model;dur={1000 * model_seconds:.2f}"}


class Pages:
    """The arena's pages and posts over one Arena (create_app routes to them)."""

    def __init__(self, arena: Arena):
        self.arena = arena

    async def home(self, request: Request) -> Response:
        csrf = request.cookies.get("arena_csrf", "")
        csrf = csrf if FORM_COOKIE.fullmatch(csrf) else secrets.token_urlsafe(24)
        resume = request.cookies.get("arena_last", "")
        if SESSION_ID.fullmatch(resume):
            session = await asyncio.to_thread(self.arena.store.get, resume)
            resume = resume if session is not None and session.status != FINISHED else None
        response = _html(
            "home.html",
            csrf=csrf,
            resume=resume or None,
            models=sorted(self.arena.models),
            max_nick=MAX_NICK,
            games=[(g, get_spec(g).title) for g in ARENA_GAMES],
        )
        response.set_cookie("arena_csrf", csrf, httponly=True, samesite="strict")
        return response

    async def new(self, request: Request) -> Response:
        cookie = request.cookies.get("arena_csrf", "")
        if not _same_origin(request) or not FORM_COOKIE.fullmatch(cookie):  # before the body is read
            raise FOREIGN
        form = await _form(request)
        if not _equal(cookie, form.get("csrf", "")):
            raise FOREIGN
        game = form.get("game", "random")
        game = secrets.choice(ARENA_GAMES) if game == "random" else game
        model = form.get("model", "random")
        model = secrets.choice(sorted(self.arena.models)) if model not in self.arena.models else model
        if game not in ARENA_GAMES:
            return _message("Unknown game", f"Choose one of {', '.join(ARENA_GAMES)}.", 400)
        nickname = form.get("nickname", "").strip()
        player = nickname if form.get("consent") == "yes" and NICKNAME.fullmatch(nickname) else None
        session = new_session(get_spec(game), model, player, self.arena.task_args)
        await asyncio.to_thread(self.arena.store.create, session)
        response = RedirectResponse(f"/s/{session.id}", status_code=303)  # relative: never the request's Host
        response.set_cookie("arena_last", session.id, max_age=30 * 86400, httponly=True, samesite="strict")
        return response

    async def show(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        started = time.perf_counter()
        if not SESSION_ID.fullmatch(sid):
            raise NO_GAME
        async with self.arena.lock(sid):
            session = await asyncio.to_thread(self.arena.store.get, sid)
            if session is None:
                raise NO_GAME
            return await self._respond(request, session, None, started, full_page=True)

    async def move(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        started = time.perf_counter()
        if not _same_origin(request):  # before the body is read
            raise FOREIGN
        if not SESSION_ID.fullmatch(sid):
            raise NO_GAME
        form = await _form(request)
        if not _equal(self.arena.token(f"move:{sid}"), form.get("csrf", "")):
            raise Refused(403, "Refused", "This move did not come from this game's page.")
        text = form.get("text", "")
        async with self.arena.lock(sid):
            session = await asyncio.to_thread(self.arena.store.get, sid)
            if session is None:
                raise NO_GAME
            refused = _refuse_text(text)
            if refused:
                return await self._respond(request, session, None, started, status=400, error=refused)
            if session.status == FINISHED or form.get("seq") != str(session.moves):
                return await self._respond(
                    request,
                    session,
                    None,
                    started,
                    status=409,
                    error="That move was already sent (from another tab?). Here is the game as it stands.",
                )
            return await self._respond(request, session, text, started)

    async def _respond(self, request: Request, session: Session, text: str | None, started: float, *, status: int = 200,
                       error: str | None = None, full_page: bool = False) -> Response:
        model_seconds = 0.0
        try:
            played, model_seconds = await self.arena.play(session, text)
        except ModelFailed as failed:
            played, status = Played(), 503
            error = f"{failed} Your moves so far are saved; try again."
        except MoveConflict:
            played, status = Played(), 409
            error = "That move was already sent (from another tab?). Reload to see the game as it stands."
        fetch = request.headers.get("x-arena-fetch") == "1"
        if not full_page and not fetch and status == 200:
            return RedirectResponse(f"/s/{session.id}", status_code=303, headers=_timing(started, model_seconds))
        values = game_values(self.arena, session, played, error)
        headers = _timing(started, model_seconds)
        if fetch:
            headers["X-Arena-Fragment"] = "1"
            return _html("game.html", status, headers, **values)
        return _html("session.html", status, headers, **values)

    async def results_page(self, request: Request) -> Response:
        summary = await asyncio.to_thread(arena_results.compute, self.arena.store, self.arena.abandon_after)
        return _html("results.html", summary=summary, fmt=arena_results.fmt, interval=arena_results.interval)

    async def results_json(self, request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(arena_results.compute, self.arena.store, self.arena.abandon_after))

    async def results_png(self, request: Request) -> Response:
        summary = await asyncio.to_thread(arena_results.compute, self.arena.store, self.arena.abandon_after)
        return Response(await asyncio.to_thread(arena_results.plot, summary), media_type="image/png")


@contextlib.asynccontextmanager
async def _store_threads(app: Any) -> AsyncIterator[None]:
    """Store calls run in threads (asyncio.to_thread), each waiting on the database, not the CPU:
    the default pool's cpu count + 4 threads would queue requests behind a few waits, so there is
    a thread for every connection the store may open."""
    asyncio.get_running_loop().set_default_executor(
        ThreadPoolExecutor(max_workers=POOL_SIZE + POOL_OVERFLOW, thread_name_prefix="arena-store"))
    yield


def create_app(arena: Arena, allowed_hosts: tuple[str, ...] = LOCAL_HOSTS) -> Any:
    """The ASGI app: the pages (Pages) inside the guards (guards.py) and TrustedHostMiddleware."""
    pages = Pages(arena)
    app = Starlette(
        lifespan=_store_threads,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False),
            Middleware(BodyLimit, max_body=MAX_BODY, too_large=_too_large_page),
        ],
        exception_handlers={
            Refused: _refused,
            HTTPException: _http_error,
            BodyTooLarge: _too_large,
            ClientDisconnect: _cut_off,
            sa.exc.OperationalError: _store_down,
            sa.exc.InterfaceError: _store_down,
            sa.exc.TimeoutError: _store_down,
            Exception: _server_error,
        },
        routes=[
            Route("/", pages.home),
            Route("/new", pages.new, methods=["POST"]),
            Route("/s/{sid}", pages.show),
            Route("/s/{sid}/move", pages.move, methods=["POST"]),
            Route("/results", pages.results_page),
            Route("/results.json", pages.results_json),
            Route("/results.png", pages.results_png),
            Mount(
                "/static",
                StaticFiles(directory=str(resources.files("pytest_gameeval.arena") / "static")),
                name="static",
            ),
        ],
    )
    app.router.redirect_slashes = False  # Starlette's slash redirect is an absolute URL built from the Host header
    return SecurityHeaders(Guard(app))


def _refuse_text(text: str) -> str | None:
    """Why a person's reply is refused before it reaches the game (nothing stored), or None."""
    if len(text) > MAX_PERSON_CHARS:
        return f"Your reply has {len(text)} characters; the limit is {MAX_PERSON_CHARS}. Nothing was sent."
    problem = unstorable(text)
    if problem:
        return f"Your reply contains {problem}, which cannot be stored. Nothing was sent."
    return None


async def _form(request: Request) -> dict[str, str]:
    """The posted form, the last value of each field. The body is at most MAX_BODY bytes (BodyLimit
    stops it while it streams in). Decoded strictly: Starlette's form parser turns invalid UTF-8
    into U+FFFD without a word, so the person's text would be stored changed."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != FORM_TYPE:
        raise Refused(415, "Not a form", "Post the page's form as it is sent (application/x-www-form-urlencoded).")
    body = await request.body()
    try:
        return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FIELDS,
                              encoding="utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError):
        raise Refused(
            400, "Not readable", "The form is not valid UTF-8 text or has too many fields. Nothing was sent."
        ) from None


async def _too_large_page(scope: Any, receive: Any, send: Any) -> None:
    await _too_large(None, None)(scope, receive, send)


def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return _message(exc.heading, exc.message, exc.status)


def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return _message("Not found", "There is no page at this address.", 404)
    response = _message("Refused", f"This address does not answer that request ({exc.status_code}).", exc.status_code)
    response.headers.update(exc.headers or {})  # a 405's Allow
    return response


def _too_large(request: Request | None, exc: Exception | None) -> Response:
    return _message("Too long", f"That post is larger than the {MAX_BODY} bytes any move needs. Nothing was sent.", 413)


def _cut_off(request: Request, exc: Exception) -> Response:
    return _message("Cut off", "The request ended before its body did. Nothing was sent.", 400)


def _store_down(request: Request, exc: Exception) -> Response:
    """The database went away (restarted, unreachable, or every connection busy): a move's one
    transaction either committed before or did not happen, so nothing is half-written."""
    return _message("Try again in a moment", "The game store is not answering right now. Your game's moves "
                    "before this one are saved; reload in a moment.", 503)


def _server_error(request: Request, exc: Exception) -> Response:
    return _message("Something went wrong", "The server could not answer this request. Your game's moves "
                    "before it are saved; try again.", 500)
