"""CPU per model call by function, from a cProfile of a front end (http_concurrency.py --profile).

    python benchmarks/profile_calls.py PROFILE --calls N [--top 25] [--markdown]

cProfile sees the main thread only (where inspect and the plugin run the games' event loop; log
writing in worker threads is not in it) and slows what it measures, so read the shares and the
ranking; the milliseconds are under the profiler. Self time is grouped by who owns the code
(`AREAS`, first match on the file path); the time of builtins, the standard library, typing and json
goes to whoever called them (the openai SDK's transform spends most of its time in typing), split
by the time spent under each caller. Our own functions are also listed by cumulative time.
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
PASSED_ON = ("builtins", "other stdlib", "typing", "json")  # work done for whoever called it
OURS_SHOWN = 20  # our functions listed by cumulative time
FEATURES = (  # (what, file under pytest_gameeval/, functions): our per-call work by what it is for
    ("rendering the seat's prompt (views.render)", "engine/views.py", ("render",)),
    ("the seat's view (visible_events)", "engine/views.py", ("visible_events",)),
    ("echo check", "engine/echo.py", ("check_not_echo",)),
    ("degenerate-move check (check_move, words_of)", "engine/degenerate.py", ("check_move", "words_of")),
    ("retracting settled corrections (_settled)", "engine/runner.py", ("_settled",)),
    ("the game's rules (pending, apply)", "games/", ("pending", "apply")),
    ("live registry for progress lines (register, unregister)", "engine/live.py", ("register", "unregister")),
    ("prompt as inspect messages (InspectConversation.convert)", "players/model.py", ("convert",)),
    ("config and sampling record of a call (ModelPlayer._config)", "players/model.py", ("_config",)),
    ("transcript story (observer: events, turn spans made, rounds)", "inspect_ext/observer.py",
     ("event", "turn", "round_started", "round_ended")),
    ("inspect display counters (GameProgress)", "inspect_ext/progress.py", ("event", "round_played")),
    ("progress-line tallies (per game)", "engine/progress.py", ("game_started", "game_finished")),
    ("the game's record as JSON (per game)", "engine/record.py", ("to_dict",)),
    ("scoring (per game)", "engine/spec.py", ("score",)),
)


def area_of(path: str) -> str:
    for area, fragment in AREAS:
        if fragment in path:
            return area
    return "builtins" if path == "~" else "other stdlib"


def _owner_shares(stats: dict) -> Any:
    """shares(func) -> {owner: fraction of func's self time}, walking up through PASSED_ON callers
    (a caller already on the walk, as in typing's recursive __hash__, is left out of it)."""
    memo: dict[Any, dict[str, float]] = {}
    walking: set[Any] = set()

    def shares(func: Any) -> tuple[dict[str, float], bool]:
        if func in memo:
            return memo[func], True
        area, callers = area_of(func[0]), stats[func][4] if func in stats else {}
        callers = {c: t for c, t in callers.items() if c not in walking}
        complete = len(callers) == len(stats[func][4]) if func in stats else True
        if area not in PASSED_ON or not callers:
            return {area: 1.0}, complete
        walking.add(func)
        weights = {c: t[2] for c, t in callers.items()}
        if not sum(weights.values()):
            weights = {c: t[3] for c, t in callers.items()}
        total, out = sum(weights.values()) or 1.0, {}
        for caller, weight in weights.items():
            parts, whole = shares(caller)
            complete = complete and whole
            for owner, part in parts.items():
                out[owner] = out.get(owner, 0.0) + part * weight / total
        walking.discard(func)
        memo[func] = out  # kept even when a caller on the walk was left out: linear, and close enough
        return out, complete

    return lambda func: shares(func)[0]


def _name(func: tuple[str, int, str]) -> str:
    path, line, name = func
    if path == "~":
        return name
    short = path.split("site-packages/")[-1].split("pytest_gameeval/")[-1]
    return f"{short}:{line}({name})"


def _cumulative(stats: dict, where: str, names: tuple[str, ...]) -> float:
    return sum(s[3] for (path, _, name), s in stats.items() if name in names and "pytest_gameeval/" + where in path)


def summarize(path: str, calls: int, top: int = 25) -> dict[str, Any]:
    """Self time by area and the `top` functions by self time, ms per model call; our functions by
    cumulative time (what each costs with everything it calls)."""
    stats = pstats.Stats(path).stats  # type: ignore[attr-defined]
    total = sum(s[2] for s in stats.values())
    areas: dict[str, float] = {}
    shares = _owner_shares(stats)
    for func, (_, _, tottime, _, _) in stats.items():
        for owner, part in shares(func).items():
            areas[owner] = areas.get(owner, 0.0) + tottime * part

    def row(seconds: float) -> dict[str, float]:
        return {"ms_per_call": round(1000 * seconds / calls, 3), "share": round(seconds / total, 4)}

    by_self = sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]
    features = {what: row(_cumulative(stats, where, names)) for what, where, names in FEATURES}
    # the turn loop's own work: a turn's cumulative time less the model seat's call
    features["a turn's own work, less the call (runner._ask less ModelPlayer.act: the first five rows and the "
             "transcript events written during the turn are in it)"] = row(
        _cumulative(stats, "engine/runner.py", ("_ask",)) - _cumulative(stats, "players/model.py", ("act",)))
    ours = sorted(((f, s) for f, s in stats.items() if "pytest_gameeval/" in f[0]), key=lambda kv: -kv[1][3])
    return {
        "profiled_cpu_s": round(total, 2), "model_calls": calls, "ms_per_call": round(1000 * total / calls, 3),
        "by_area": {a: row(t) for a, t in sorted(areas.items(), key=lambda kv: -kv[1])},
        "top_self": {_name(f): {**row(s[2]), "calls": s[1]} for f, s in by_self},
        "ours_by_feature": features,
        "ours_cumulative": {_name(f): {**row(s[3]), "calls": s[1]} for f, s in ours[:OURS_SHOWN]},
    }


def side_by_side(summaries: dict[str, dict[str, Any]], part: str, rows: list[str] | None = None) -> str:
    """One table of `part` ("by_area", "ours_by_feature", ...) with a column pair per profiled run."""
    names = list(summaries)
    keys = rows or list(dict.fromkeys(k for s in summaries.values() for k in s[part]))
    lines = ["| | " + " | ".join(f"{n}: ms per call | share" for n in names) + " |",
             "|---|" + "---|---|" * len(names)]
    for key in keys:
        cells = [summaries[n][part].get(key) for n in names]
        lines.append(
            f"| {key} | " + " | ".join(f"{c['ms_per_call']} | {c['share']:.1%}" if c else "– | –" for c in cells) + " |"
        )
    return "\n".join(lines)


def markdown(summary: dict[str, Any]) -> str:
    lines = [f"{summary['ms_per_call']} ms per call under the profiler ({summary['model_calls']} calls)", "",
             "| owner (self time) | ms per call | share |", "|---|---|---|"]
    lines += [f"| {a} | {r['ms_per_call']} | {r['share']:.1%} |" for a, r in summary["by_area"].items()]
    lines += ["", "| function (self time) | ms per call | share |", "|---|---|---|"]
    lines += [f"| `{f}` | {r['ms_per_call']} | {r['share']:.1%} |" for f, r in summary["top_self"].items()]
    lines += ["", "| ours, by what it is for (cumulative) | ms per call | share |", "|---|---|---|"]
    lines += [f"| {f} | {r['ms_per_call']} | {r['share']:.1%} |" for f, r in summary.get("ours_by_feature", {}).items()]
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
