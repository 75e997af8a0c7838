"""The arena's web app (Starlette): server-rendered pages that work without JavaScript; with it,
arena.js posts a move and swaps in the returned game panel (no reload).

Safety: a session is reached only through its unguessable id (32 random bytes) in the URL; every
post carries a token bound to its session (HMAC with the server's key kept in the store) and,
when the browser sends one, an Origin equal to the server's own; the page only ever shows what
the person's seat may see (its card, the host's messages to it, both seats' public words) until
the game ends; the person's text is bounded (MAX_PERSON_CHARS), goes through the engine as the
user seat's reply (quoted by the engine like any player's words, HTML-escaped here) and is
written nowhere but the store (no access log). Pages are never cached, and their address (with the session id) is never sent to another site as a Referer.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import time
from importlib import resources
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from pytest_gameeval.arena import results as arena_results
from pytest_gameeval.arena.live import (
    ARENA_GAMES, MAX_PERSON_CHARS, ModelFailed, MoveConflict, Played, advance, case_row, new_session,
)
from pytest_gameeval.arena.store import FINISHED, Session, Store
from pytest_gameeval.cli.human_play import outcome_for_the_person, turn_counter
from pytest_gameeval.engine.events import HOST_MSG, REPLY, SPEECH
from pytest_gameeval.games.akinator.prompts import ANSWERS
from pytest_gameeval.games.arena.rules import RETRO, USER
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.taboo.prompts import MAX_CLUE
from pytest_gameeval.inspect_ext.decoding import model_player

MAX_NICK = 24
NICKNAME = re.compile(rf"^[A-Za-z0-9_\-]{{1,{MAX_NICK}}}$")
MAX_BODY = 16_384  # bytes of a form post; a reply is at most MAX_PERSON_CHARS characters
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no address (with its session id) to other sites; Origin kept for our posts
    "Cache-Control": "no-store",
}
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
        self.locks: dict[str, asyncio.Lock] = {}

    def token(self, purpose: str) -> str:
        return hmac.new(self.key, purpose.encode(), hashlib.sha256).hexdigest()

    def lock(self, sid: str) -> asyncio.Lock:
        return self.locks.setdefault(sid, asyncio.Lock())

    async def play(self, session: Session, text: str | None) -> tuple[Played, float]:
        spec = get_spec(session.game)
        player = model_player(self.models[session.model], session.options["structured"])
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


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


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


def create_app(arena: Arena) -> Starlette:
    async def home(request: Request) -> Response:
        csrf = request.cookies.get("arena_csrf") or secrets.token_urlsafe(24)
        resume = request.cookies.get("arena_last")
        if resume:
            session = await asyncio.to_thread(arena.store.get, resume)
            resume = resume if session is not None and session.status != FINISHED else None
        response = _html("home.html", csrf=csrf, resume=resume, models=sorted(arena.models), max_nick=MAX_NICK,
                         games=[(g, get_spec(g).title) for g in ARENA_GAMES])
        response.set_cookie("arena_csrf", csrf, httponly=True, samesite="strict")
        return response

    async def new(request: Request) -> Response:
        form = await _form(request)
        cookie = request.cookies.get("arena_csrf")
        if form is None or not _same_origin(request) or not cookie or not hmac.compare_digest(cookie, str(form.get("csrf", ""))):
            return _message("Refused", "This form is out of date or did not come from this site; start again from the home page.", 403)
        game = str(form.get("game", "random"))
        game = secrets.choice(ARENA_GAMES) if game == "random" else game
        model = str(form.get("model", "random"))
        model = secrets.choice(sorted(arena.models)) if model not in arena.models else model
        if game not in ARENA_GAMES:
            return _message("Unknown game", f"Choose one of {', '.join(ARENA_GAMES)}.", 400)
        nickname = str(form.get("nickname", "")).strip()
        player = nickname if form.get("consent") == "yes" and NICKNAME.match(nickname) else None
        session = new_session(get_spec(game), model, player, arena.task_args)
        await asyncio.to_thread(arena.store.create, session)
        response = RedirectResponse(f"/s/{session.id}", status_code=303)
        response.set_cookie("arena_last", session.id, max_age=30 * 86400, httponly=True, samesite="strict")
        return response

    async def show(request: Request) -> Response:
        sid = request.path_params["sid"]
        started = time.perf_counter()
        async with arena.lock(sid):
            session = await asyncio.to_thread(arena.store.get, sid)
            if session is None:
                return _message("No such game", "This address leads to no game.", 404)
            return await _respond(request, session, None, started, full_page=True)

    async def move(request: Request) -> Response:
        sid = request.path_params["sid"]
        started = time.perf_counter()
        form = await _form(request)
        if form is None:
            return _message("Too long", "That post is too large.", 413)
        if not _same_origin(request) or not hmac.compare_digest(arena.token(f"move:{sid}"), str(form.get("csrf", ""))):
            return _message("Refused", "This move did not come from this game's page.", 403)
        text = str(form.get("text", ""))
        async with arena.lock(sid):
            session = await asyncio.to_thread(arena.store.get, sid)
            if session is None:
                return _message("No such game", "This address leads to no game.", 404)
            if len(text) > MAX_PERSON_CHARS:
                return await _respond(request, session, None, started, status=400,
                                      error=f"Your reply has {len(text)} characters; the limit is {MAX_PERSON_CHARS}. Nothing was sent.")
            if session.status == FINISHED or str(form.get("seq")) != str(session.moves):
                return await _respond(request, session, None, started, status=409,
                                      error="That move was already sent (from another tab?). Here is the game as it stands.")
            return await _respond(request, session, text, started)

    async def _respond(request: Request, session: Session, text: str | None, started: float, *, status: int = 200,
                       error: str | None = None, full_page: bool = False) -> Response:
        model_seconds = 0.0
        try:
            played, model_seconds = await arena.play(session, text)
        except ModelFailed as failed:
            played, status = Played(), 503
            error = f"{failed} Your moves so far are saved; try again."
        except MoveConflict:
            played, status = Played(), 409
            error = "That move was already sent (from another tab?). Reload to see the game as it stands."
        fetch = request.headers.get("x-arena-fetch") == "1"
        if not full_page and not fetch and status == 200:
            return RedirectResponse(f"/s/{session.id}", status_code=303, headers=_timing(started, model_seconds))
        values = game_values(arena, session, played, error)
        headers = _timing(started, model_seconds)
        if fetch:
            headers["X-Arena-Fragment"] = "1"
            return _html("game.html", status, headers, **values)
        return _html("session.html", status, headers, **values)

    async def results_page(request: Request) -> Response:
        summary = await asyncio.to_thread(arena_results.compute, arena.store, arena.abandon_after)
        return _html("results.html", summary=summary, fmt=arena_results.fmt, interval=arena_results.interval)

    async def results_json(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(arena_results.compute, arena.store, arena.abandon_after))

    async def results_png(request: Request) -> Response:
        summary = await asyncio.to_thread(arena_results.compute, arena.store, arena.abandon_after)
        return Response(await asyncio.to_thread(arena_results.plot, summary), media_type="image/png")

    return Starlette(middleware=[Middleware(SecurityHeaders)], routes=[
        Route("/", home), Route("/new", new, methods=["POST"]),
        Route("/s/{sid}", show), Route("/s/{sid}/move", move, methods=["POST"]),
        Route("/results", results_page), Route("/results.json", results_json), Route("/results.png", results_png),
        Mount("/static", StaticFiles(directory=str(resources.files("pytest_gameeval.arena") / "static")), name="static"),
    ])


class SecurityHeaders:
    """Adds SECURITY_HEADERS to every response (plain ASGI: no per-request task)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    headers.setdefault(key, value)
            await send(message)

        await self.app(scope, receive, send_with_headers if scope["type"] == "http" else send)


async def _form(request: Request) -> Any:
    """The posted form, or None when the body is larger than any move needs."""
    if int(request.headers.get("content-length") or 0) > MAX_BODY:
        return None
    return await request.form(max_files=0, max_fields=8)
