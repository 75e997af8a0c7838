"""The arena's database: every session and every move, SQLite by default, PostgreSQL by URL.

One code path for both through SQLAlchemy Core (SQLite through Python's sqlite3, PostgreSQL
through psycopg 3): the same tables, statements and transactions; only the connection set-up
differs (SQLite: WAL journal, full sync, a busy timeout so concurrent writers wait instead of
failing). Alembic runs the versioned migrations in migrations/versions/ on start.

Each move is one transaction: insert the move and advance the session's move counter, on the
condition that the counter still equals the move's number. A second request racing for the same
move (two tabs, a double click, two server processes) finds the counter moved and stores
nothing, so a move is never stored twice nor lost silently.

Several server processes share one PostgreSQL store (docs/arena.md, "Several processes"): the
signing key lives in the store; a session's turn is played by one request at a time across all
of them (`claim`: a PostgreSQL advisory lock, so the model is never asked twice for one turn);
migrations run once however many processes start together (an advisory lock around them).
A SQLite file is served by one process: it has no lock another process could wait on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote, quote_plus

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.options import GameOptions
from pytest_gameeval.games.registry import get_spec

DEFAULT_DB = "gameeval-arena.db"
# connections a server process keeps (8) and may open besides (32): at most 40 requests of one
# process play a turn at once (each holds one connection while it does); the rest wait for one
POOL_SIZE, POOL_OVERFLOW = 8, 32
LIVE, FINISHED = "live", "finished"

metadata = sa.MetaData()
meta_table = sa.Table(
    "arena_meta", metadata, sa.Column("key", sa.String(64), primary_key=True), sa.Column("value", sa.Text)
)
sessions_table = sa.Table(
    "arena_sessions", metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(32)), sa.Column("model", sa.String(200)), sa.Column("row_id", sa.String(200)),
    sa.Column("seed", sa.BigInteger), sa.Column("options", sa.Text), sa.Column("player", sa.String(40)),
    sa.Column("status", sa.String(16)), sa.Column("moves", sa.Integer), sa.Column("model_errors", sa.Integer),
    sa.Column("created_at", sa.Float), sa.Column("updated_at", sa.Float), sa.Column("finished_at", sa.Float),
    sa.Column("outcome", sa.String(32)), sa.Column("record", sa.Text),
)
moves_table = sa.Table(
    "arena_moves", metadata,
    sa.Column("session_id", sa.String(64), primary_key=True), sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("seat", sa.String(64)), sa.Column("action", sa.String(32)), sa.Column("text", sa.Text),
    sa.Column("by_person", sa.Boolean), sa.Column("created_at", sa.Float), sa.Column("model_ms", sa.Float),
    sa.Column("changed", sa.String(200)),
)
# what neither store can hold the same way: PostgreSQL refuses NUL in text, SQLite keeps it; neither
# driver encodes a lone surrogate (invalid UTF-8 never gets this far: the web form refuses it)
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


@dataclass
class Move:
    seq: int
    seat: str
    action: str
    text: str
    by_person: bool
    created_at: float = 0.0
    model_ms: float | None = None
    changed: str | None = None  # what storable() changed in the text as received, else None


def unstorable(text: str) -> str | None:
    """What in `text` no store can hold (a person's reply with it is refused), or None."""
    found = UNSTORABLE.search(text)
    if found is None:
        return None
    return "a NUL character" if found.group() == "\x00" else "a lone surrogate (not valid Unicode)"


def storable(text: str) -> tuple[str, str | None]:
    """(`text` with every character no store can hold replaced by U+FFFD, what was changed or None)."""
    cleaned, n = UNSTORABLE.subn("\ufffd", text)
    return cleaned, (f"{n} character(s) no store can hold (NUL, lone surrogate) replaced by U+FFFD" if n else None)


@dataclass
class Session:
    id: str
    game: str
    model: str
    row_id: str
    seed: int
    options: GameOptions  # stored as its as_dict() JSON, typed again when read
    player: str | None  # a consenting nickname, else None (the anonymous population)
    status: str = LIVE
    moves: int = 0
    model_errors: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None
    outcome: str | None = None
    record: dict[str, Any] | None = None
    history: list[Move] = field(default_factory=list)


def shown_db(given: str) -> str:
    """`--db` as it may be printed: a URL's password (in its user part or its query) masked."""
    if "://" not in given:
        return given
    try:
        url = make_url(given)
    except (sa.exc.ArgumentError, ValueError):
        return "(a database URL that could not be read)"
    if "password" in url.query:  # libpq takes one there too
        url = url.update_query_dict({"password": "***"})
    return url.render_as_string(hide_password=True).replace("%2A%2A%2A", "***")


def _secrets_of(given: str) -> list[str]:
    """The password of a URL, as given and as decoded, to scrub from a driver's message."""
    try:
        url = make_url(given) if "://" in given else None
    except (sa.exc.ArgumentError, ValueError):
        return [given]
    found = [url.password, url.query.get("password")] if url is not None else []
    words = {str(w) for w in found if w and isinstance(w, str)}
    return sorted(words | {quote(w, safe="") for w in words} | {quote_plus(w) for w in words}, key=len, reverse=True)


def scrubbed(message: str, given: str) -> str:
    """A driver's message with the URL's password masked (libpq never prints it; this makes sure)."""
    for secret in _secrets_of(given):
        message = message.replace(secret, "***")
    return message


def database_url(given: str) -> str:
    """A SQLAlchemy URL from what the user typed: a URL, or a path to a SQLite file."""
    if "://" not in given:
        return f"sqlite:///{Path(given).expanduser().absolute()}"
    try:
        url = make_url(given)
    except (sa.exc.ArgumentError, ValueError):
        raise GameEvalError(f"--db {shown_db(given)}: give a SQLite file or a postgresql:// URL") from None
    if url.drivername in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    if url.drivername not in ("sqlite", "postgresql+psycopg"):
        raise GameEvalError(f"--db {shown_db(given)}: give a SQLite file or a postgresql:// URL")
    return given


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")  # a committed move survives a kill of the server
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def connect(given: str) -> Engine:
    url = database_url(given)
    if url.startswith("sqlite"):
        path = Path(make_url(url).database or "")
        if not path.parent.is_dir():
            raise GameEvalError(f"--db {given}: directory {path.parent} does not exist")
        engine = sa.create_engine(url, connect_args={"timeout": 30}, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW,
                                  hide_parameters=True)
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise GameEvalError("PostgreSQL needs psycopg: pip install 'pytest-gameeval[arena]'") from None
    # hide_parameters: a statement's error never prints its bound values (a person's text, a session id)
    return sa.create_engine(url, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW, pool_pre_ping=True,
                            hide_parameters=True)


# PostgreSQL advisory lock keys (64-bit): one for migrations, one per session (LOCK_SPACE + its id's hash)
MIGRATION_LOCK = 0x67616D65_6576616C  # "gameeval"
LOCK_SPACE = 1  # pg_advisory_lock(int4, int4): the session locks' own key space, apart from MIGRATION_LOCK


def shared(engine: Engine) -> bool:
    """Whether several server processes may share this store (PostgreSQL: it has the locks)."""
    return engine.dialect.name == "postgresql"


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest version (Alembic, versions in migrations/versions/). On
    PostgreSQL under a transaction-scoped advisory lock: processes starting together wait in turn,
    and the ones after the first find the schema at head and change nothing."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resources.files("pytest_gameeval.arena") / "migrations"))
    with engine.begin() as connection:
        if shared(engine):
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


_HELD: ContextVar[Any] = ContextVar("arena_claimed_connection", default=None)


def _session_key(session_id: str) -> int:
    """A session's advisory lock key: 31 bits of its id's hash (int4; a clash only makes two
    sessions wait for each other, never share a move)."""
    return int.from_bytes(hashlib.sha256(session_id.encode()).digest()[:4], "big") & 0x7FFFFFFF


class Store:
    def __init__(self, given: str = DEFAULT_DB):
        self.engine = connect(given)
        try:
            migrate(self.engine)
        except sa.exc.SQLAlchemyError as e:
            reason = str(getattr(e, "orig", None) or type(e).__name__).strip().splitlines()[:1] or [type(e).__name__]
            raise GameEvalError(
                f"--db {shown_db(given)}: cannot open the database: {scrubbed(reason[0], given)}"
            ) from None

    def close(self) -> None:
        self.engine.dispose()

    @property
    def shared(self) -> bool:
        return shared(self.engine)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        """A transaction on the connection holding this request's claim (`holding`), else on a
        connection of the pool: a request that holds a claim needs no second connection, so
        requests waiting for one can never hold every connection the claimed ones need."""
        held = _HELD.get()
        if held is None:
            with self.engine.begin() as c:
                yield c
            return
        with held.begin():
            yield held

    @contextlib.contextmanager
    def holding(self, connection: Any) -> Iterator[None]:
        """Within this block (and the threads it hands store calls to: asyncio.to_thread copies
        the context) the store works on `connection`, the one holding the session's claim."""
        token = _HELD.set(connection)
        try:
            yield
        finally:
            _HELD.reset(token)

    def claim(self, session_id: str) -> Any | None:
        """Try to take the session's turn across processes (PostgreSQL: a session-level advisory
        lock on a connection held until `release`); the connection, or None if another process
        holds it. Never waits: the caller decides how long to keep trying."""
        connection = self.engine.connect()
        try:
            taken = connection.execute(sa.text("SELECT pg_try_advisory_lock(:space, :key)"),
                                       {"space": LOCK_SPACE, "key": _session_key(session_id)}).scalar()
            connection.commit()
        except BaseException:
            connection.close()
            raise
        if not taken:
            connection.close()
            return None
        return connection

    def release(self, connection: Any, session_id: str) -> None:
        """Give the session's turn back; a connection that cannot say so is dropped from the pool
        (PostgreSQL frees a dead connection's locks itself)."""
        try:
            connection.execute(sa.text("SELECT pg_advisory_unlock(:space, :key)"),
                               {"space": LOCK_SPACE, "key": _session_key(session_id)})
            connection.commit()
        except sa.exc.DBAPIError:
            connection.invalidate()
        finally:
            connection.close()

    def secret(self) -> bytes:
        """The server's signing key (CSRF tokens), made once and kept in the store so tokens stay
        valid across restarts and server processes."""
        with self.engine.begin() as c:
            value = c.execute(sa.select(meta_table.c.value).where(meta_table.c.key == "secret")).scalar()
            if value is None:
                value = secrets.token_hex(32)
                try:
                    with c.begin_nested():
                        c.execute(meta_table.insert().values(key="secret", value=value))
                except sa.exc.IntegrityError:  # another process made it first
                    value = c.execute(sa.select(meta_table.c.value).where(meta_table.c.key == "secret")).scalar()
        return bytes.fromhex(value)

    def create(self, session: Session) -> None:
        now = time.time()
        session.created_at = session.updated_at = now
        with self.engine.begin() as c:
            c.execute(
                sessions_table.insert().values(
                    id=session.id,
                    game=session.game,
                    model=session.model,
                    row_id=session.row_id,
                    seed=session.seed,
                    options=json.dumps(session.options.as_dict()),
                    player=session.player,
                    status=LIVE,
                    moves=0,
                    model_errors=0,
                    created_at=now,
                    updated_at=now,
                )
            )

    def add_move(self, session_id: str, move: Move) -> bool:
        """Store one move in one transaction; False if move `seq` is already taken (nothing stored)."""
        move.created_at = time.time()
        with self._transaction() as c:
            advanced = c.execute(
                sessions_table.update()
                .where(
                    sessions_table.c.id == session_id,
                    sessions_table.c.moves == move.seq,
                    sessions_table.c.status == LIVE,
                )
                .values(moves=move.seq + 1, updated_at=move.created_at)
            )
            if advanced.rowcount != 1:
                c.rollback()
                return False
            c.execute(moves_table.insert().values(
                session_id=session_id, seq=move.seq, seat=move.seat, action=move.action, text=move.text,
                by_person=move.by_person, created_at=move.created_at, model_ms=move.model_ms, changed=move.changed))
        return True

    def finish(self, session_id: str, record: dict[str, Any]) -> None:
        now = time.time()
        with self._transaction() as c:
            c.execute(sessions_table.update().where(sessions_table.c.id == session_id, sessions_table.c.status == LIVE)
                      .values(status=FINISHED, finished_at=now, updated_at=now, outcome=record["outcome"]["label"],
                              record=json.dumps(record)))

    def note_model_error(self, session_id: str) -> None:
        with self._transaction() as c:
            c.execute(sessions_table.update().where(sessions_table.c.id == session_id)
                      .values(model_errors=sessions_table.c.model_errors + 1))

    def get(self, session_id: str) -> Session | None:
        with self._transaction() as c:
            row = c.execute(sa.select(sessions_table).where(sessions_table.c.id == session_id)).mappings().first()
            if row is None:
                return None
            moves = c.execute(sa.select(moves_table).where(moves_table.c.session_id == session_id)
                              .order_by(moves_table.c.seq)).mappings().all()
        session = _session(row)
        session.history = [Move(m["seq"], m["seat"], m["action"], m["text"], bool(m["by_person"]), m["created_at"],
                                m["model_ms"], m["changed"]) for m in moves]
        return session

    def sessions(self, status: str | None = None) -> list[Session]:
        """Every session (without its moves), oldest first."""
        query = sa.select(sessions_table).order_by(sessions_table.c.created_at, sessions_table.c.id)
        if status:
            query = query.where(sessions_table.c.status == status)
        with self.engine.connect() as c:
            return [_session(row) for row in c.execute(query).mappings()]

    def person_moves(self) -> dict[str, int]:
        """Moves made by people, per session."""
        query = (sa.select(moves_table.c.session_id, sa.func.count()).where(moves_table.c.by_person.is_(True))
                 .group_by(moves_table.c.session_id))
        with self.engine.connect() as c:
            return {sid: n for sid, n in c.execute(query)}


def _session(row: Any) -> Session:
    return Session(
        id=row["id"],
        game=row["game"],
        model=row["model"],
        row_id=row["row_id"],
        seed=row["seed"],
        options=get_spec(row["game"]).parse_options(json.loads(row["options"])),
        player=row["player"],
        status=row["status"],
        moves=row["moves"],
        model_errors=row["model_errors"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        finished_at=row["finished_at"],
        outcome=row["outcome"],
        record=json.loads(row["record"]) if row["record"] else None,
    )
