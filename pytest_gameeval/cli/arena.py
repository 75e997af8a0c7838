"""`gameeval arena --model M [--model M2 ...] [--db URL] [--host 127.0.0.1] [--port 8000] [--workers N]`
serves the arena; `gameeval arena export --db URL OUT.eval [--report OUT.json]` writes the finished sessions
as an inspect log and a report (cli/arena_export.py; the arena itself: arena/)."""

from __future__ import annotations

import argparse
import ipaddress
import socket

from pytest_gameeval.arena.store import DEFAULT_DB, database_url, shown_db
from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.key_values import key_value_pairs


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def allowed_hosts(host: str, extra: list[str]) -> tuple[str, ...]:
    """The Host names the arena answers to (the rest get 400, against DNS rebinding): the address
    served, its loopback names when it is a loopback address, the machine's names when it listens
    on every address, and each --allowed-host."""
    names = [f"[{host}]" if ":" in host else host]
    every = host in ("0.0.0.0", "::", "")
    if every or _loopback(host):
        names += ["127.0.0.1", "localhost", "[::1]"]
    if every:
        names += [socket.gethostname(), socket.getfqdn()]
    return tuple(dict.fromkeys(n.lower() for n in [*names, *extra] if n))


def _serve_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="gameeval arena",
        description="Serve GameArena's games (akinator, taboo, bluffing) "
        "to people in a browser against --model; every move stored in --db. "
        "`gameeval arena export --help`: the stored sessions as an inspect log and a report.",
    )
    parser.add_argument("--model", action="append", required=True, help="a model people play against (repeatable: "
                        "each new game is assigned one at random unless the person picks)")
    parser.add_argument("-M", "--model-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="model argument for every model (repeatable)")
    parser.add_argument("-T", "--task-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="game option, as for inspect: KEY=VALUE for every game that has KEY, GAME.KEY=VALUE "
                             "for one (repeatable)")
    parser.add_argument("--db", default=DEFAULT_DB,
                        help=f"a SQLite file or a postgresql:// URL (default: {DEFAULT_DB})")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a host name people reach the arena by, besides the address served (repeatable; "
                             "a request for any other Host is refused)")
    parser.add_argument("--model-timeout", type=float, default=60.0,
                        help="seconds to wait for one model reply (default 60)")
    parser.add_argument("--abandon-after", type=float, default=30.0,
                        help="minutes after which an untouched game counts as abandoned (default 30)")
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes on this port (uvicorn's workers; default 1). More than one needs a "
                             "postgresql:// --db, which every process shares")
    return parser


def _check_workers(workers: int, db: str) -> None:
    if workers < 1:
        raise GameEvalError(f"--workers {workers}: give 1 or more")
    if workers > 1 and database_url(db).startswith("sqlite"):
        raise GameEvalError(f"--workers {workers}: a SQLite --db is served by one process (it has no lock that "
                            "another process could wait on, so two could ask the model for the same turn); "
                            "give a postgresql:// --db for several")


def serve_main(argv: list[str]) -> int:
    parser = _serve_parser()
    args = parser.parse_args(argv)

    import uvicorn

    from pytest_gameeval.arena.live import ARENA_GAMES, check_task_args
    from pytest_gameeval.arena.serve import Settings, build, settings_to_env
    from pytest_gameeval.games.registry import check_scripted_model, get_spec

    _check_workers(args.workers, args.db)
    task_args = dict(key_value_pairs(args.task_arg, "-T", allow_empty_value=True))
    check_task_args(task_args)  # a bad option or scripted strength: one line now, not an error page later
    for game in ARENA_GAMES:
        for model in args.model:
            check_scripted_model(model, get_spec(game))
    hosts = allowed_hosts(args.host, args.allowed_host)
    settings = Settings(models=args.model, db=args.db, hosts=list(hosts),
                        model_args=dict(key_value_pairs(args.model_arg, "-M", allow_empty_value=True)),
                        task_args=task_args, model_timeout=args.model_timeout, abandon_after=60 * args.abandon_after)
    app, store = build(settings)  # here first: a bad model or store is one line before any worker starts
    if not _loopback(args.host):
        print(f"arena: listening on {args.host}: anyone who can reach this address can play; "
              f"answering requests for {', '.join(hosts)} (--allowed-host adds a name)")
    workers = f"; {args.workers} worker processes" if args.workers > 1 else ""
    print(f"arena: http://{hosts[0]}:{args.port}/  (store: {shown_db(args.db)}{workers}; Ctrl-C stops)", flush=True)
    # no access log: addresses hold session ids, and nothing about a session is logged outside the store
    served = dict(host=args.host, port=args.port, access_log=False, log_level="warning", server_header=False)
    if args.workers == 1:
        uvicorn.run(app, **served)
        store.close()
        return 0
    store.close()
    settings_to_env(settings)
    uvicorn.run("pytest_gameeval.arena.serve:app_from_env", factory=True, workers=args.workers, **served)
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["export"]:
        from pytest_gameeval.cli.arena_export import main as export_main

        return export_main(argv[1:])
    return serve_main(argv)
