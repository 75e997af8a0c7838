"""Memory of `gameeval arena` under requests for sessions that do not exist (issue 37: every
unknown id used to leave a lock behind, +2.3 MB over 200 requests).

    python benchmarks/arena_memory.py --requests 300 [--db URL]

Starts the arena server (the real command, against a fresh SQLite file unless --db says
otherwise), warms it up, then sends --requests GETs of /s/<id> for random ids that name no session
(every third one 15,000 characters long) and, every tenth, a move posted to such an id. Prints one
JSON object: the server's resident memory (VmRSS, Linux /proc) before and after, its growth, the
status codes seen, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arena_load import ArenaServer  # noqa: E402


def rss_kb(pid: int) -> int:
    return int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1))


def unknown_ids(url: str, pid: int, requests: int, warm_up: int = 60) -> dict[str, Any]:
    """Requests for ids that name no session: the server's RSS before and after (kB)."""
    with httpx.Client(base_url=url, timeout=60) as client:
        for _ in range(warm_up):  # code paths, pools and caches first
            client.get("/s/" + secrets.token_urlsafe(32))
        before = rss_kb(pid)
        statuses: dict[int, int] = {}
        for i in range(requests):
            sid = secrets.token_urlsafe(32) if i % 3 else secrets.token_urlsafe(11_250)  # 43 or 15,000 characters
            answers = [client.get(f"/s/{sid}")]
            if i % 10 == 0:
                answers.append(client.post(f"/s/{sid}/move", data={"csrf": "x", "seq": "0", "text": "hello"}))
            for r in answers:
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        after = rss_kb(pid)
    return {"requests": requests, "rss_kb_before": before, "rss_kb_after": after, "rss_kb_grown": after - before,
            "statuses": {str(k): v for k, v in sorted(statuses.items())}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--db", help="a PostgreSQL URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with ArenaServer(args.db or str(Path(tmp) / "arena.db"), log=Path(tmp) / "server.log") as server:
            result = unknown_ids(server.url, server.proc.pid, args.requests)
    result["backend"] = "postgresql" if args.db else "sqlite"
    result["load_average"] = list(os.getloadavg())
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
