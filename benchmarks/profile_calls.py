"""CPU per model call by function, from a cProfile of a front end (http_concurrency.py --profile).

    python benchmarks/profile_calls.py PROFILE --calls N [--top 25] [--markdown]

cProfile sees the main thread only (where inspect and the plugin run the games' event loop; log
writing in worker threads is not in it) and slows what it measures, so read the shares and the
ranking; the milliseconds are under the profiler. Self time is grouped by who owns the code
(`AREAS`, first match on the file path; a builtin's time goes to its callers' owners); our own
functions are also listed by cumulative time.
"""

from __future__ import annotations

import argparse
import json
import pstats
from typing import Any

AREAS = (  # (area, path fragment): first match wins
    ("gameeval", "pytest_gameeval/"), ("inspect_ai", "inspect_ai/"), ("openai SDK", "/openai/"),
    ("pydantic", "/pydantic"), ("httpx/httpcore", "/http"), ("anyio/sniffio", "/anyio/"), ("h11", "/h11/"),
    ("asyncio event loop", "/asyncio/"), ("json", "/json/"), ("pytest", "/_pytest/"), ("shortuuid/uuid", "uuid"),
    ("typing", "/typing"), ("other library", "site-packages/"),
)
OURS_SHOWN = 20  # our functions listed by cumulative time


def area_of(path: str) -> str:
    for area, fragment in AREAS:
        if fragment in path:
            return area
    return "builtins" if path == "~" else "other stdlib"


def _name(func: tuple[str, int, str]) -> str:
    path, line, name = func
    if path == "~":
        return name
    short = path.split("site-packages/")[-1].split("pytest_gameeval/")[-1]
    return f"{short}:{line}({name})"


def summarize(path: str, calls: int, top: int = 25) -> dict[str, Any]:
    """Self time by area and the `top` functions by self time, ms per model call; our functions by
    cumulative time (what each costs with everything it calls)."""
    stats = pstats.Stats(path).stats  # type: ignore[attr-defined]
    total = sum(s[2] for s in stats.values())
    areas: dict[str, float] = {}
    for func, (_, _, tottime, _, callers) in stats.items():
        # a builtin's (C) time is its callers': split by the time spent under each caller
        parts = [(c[0], t[2]) for c, t in callers.items()] if func[0] == "~" and callers else [(func[0], tottime)]
        for where, seconds in parts:
            areas[area_of(where)] = areas.get(area_of(where), 0.0) + seconds

    def row(seconds: float) -> dict[str, float]:
        return {"ms_per_call": round(1000 * seconds / calls, 3), "share": round(seconds / total, 4)}

    by_self = sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]
    ours = sorted(((f, s) for f, s in stats.items() if "pytest_gameeval/" in f[0]), key=lambda kv: -kv[1][3])
    return {
        "profiled_cpu_s": round(total, 2), "model_calls": calls, "ms_per_call": round(1000 * total / calls, 3),
        "by_area": {a: row(t) for a, t in sorted(areas.items(), key=lambda kv: -kv[1])},
        "top_self": {_name(f): {**row(s[2]), "calls": s[1]} for f, s in by_self},
        "ours_cumulative": {_name(f): {**row(s[3]), "calls": s[1]} for f, s in ours[:OURS_SHOWN]},
    }


def markdown(summary: dict[str, Any]) -> str:
    lines = [f"{summary['ms_per_call']} ms per call under the profiler ({summary['model_calls']} calls)", "",
             "| area (self time) | ms per call | share |", "|---|---|---|"]
    lines += [f"| {a} | {r['ms_per_call']} | {r['share']:.1%} |" for a, r in summary["by_area"].items()]
    lines += ["", "| function (self time) | ms per call | share |", "|---|---|---|"]
    lines += [f"| `{f}` | {r['ms_per_call']} | {r['share']:.1%} |" for f, r in summary["top_self"].items()]
    lines += ["", "| ours (cumulative) | ms per call | share |", "|---|---|---|"]
    lines += [f"| `{f}` | {r['ms_per_call']} | {r['share']:.1%} |" for f, r in summary["ours_cumulative"].items()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("--calls", type=int, required=True, help="model calls the profiled run made")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    summary = summarize(args.profile, args.calls, args.top)
    print(markdown(summary) if args.markdown else json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
