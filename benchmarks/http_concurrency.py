"""Both front ends over real HTTP: Ask-Guess against a loopback OpenAI-compatible server.

    python benchmarks/http_concurrency.py --front inspect --latency 1.0 --connections 64 --games 128 --rounds 30
    python benchmarks/http_concurrency.py --front pytest  --latency 1.0 --connections 64 --games 128 --rounds 30
    python benchmarks/http_concurrency.py --front pytest  --latency 0.1 --connections 64 --games 128 --rounds 10 \
        --workers 2
    python benchmarks/http_concurrency.py --front inspect --latency 1.0 --connections 64 --games 128 --rounds 30 \
        --workers 2
    python benchmarks/http_concurrency.py --startup
    python benchmarks/http_concurrency.py --matrix            # every configuration in MATRIX, ~15 min idle
    python benchmarks/http_concurrency.py --front pytest --games 64 --rounds 30 --profile pytest.prof
        # (CPU per call by function)
    python benchmarks/http_concurrency.py --table             # the saved runs; --profiles: the saved profiles

Each run starts `loopback_openai.py` (127.0.0.1, a fixed latency, bounded lifetime), then the front end
exactly as a user types it, in its own process, with inspect's `openai-api/loopback/bench` provider:
the real openai SDK and HTTP. Both seats play over HTTP (opponents=self) and the server's replies
are legal moves that never end a game, so every game has exactly `calls_per_game(rounds)` = 2 x rounds
calls (a test plays the games against the server's replies to keep it so) and the latency-bound
ideal is max(2 x rounds, ceil(calls / connections)) x latency.

Per run it reports: the client's CPU per call (whole process tree, from wait4: start-up and log
writing included; and over the play span only); start-up (process start -> first request);
ideal / wall for the whole run and for the play span (first request -> last reply); calls per
second per client process; CPU per call by game round (the client's CPU between request arrivals,
sampled by the server, booked to the round of the arriving request); the load average before and
after; the server's own CPU. Results are merged into `--out` (default
benchmarks/results/http_concurrency.json, keyed by configuration) and printed.

`--startup`: time to the first request of `inspect eval tasks/askguess.py` against that of a
one-sample task that imports nothing but inspect (inspect's own start-up), and the wall time of a
pytest run that does not use the plugin, with it and with `-p no:gameeval`.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import math
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loopback_openai import reply_for  # noqa: E402  (the server's replies)
from profile_calls import side_by_side, summarize  # noqa: E402

from pytest_gameeval.transport import fast_path, heap  # noqa: E402  (the call-path switches)

try:  # absent from code before issue 62 (an A/B runs it with PYTHONPATH on a worktree of main)
    from pytest_gameeval.transport import preload
except ImportError:
    preload = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "http_concurrency.json"
MODEL = "openai-api/loopback/bench"  # inspect reads LOOPBACK_BASE_URL / LOOPBACK_API_KEY
OPTIONS = {"opponents": "self"}  # both seats over HTTP: the Answerer too, not the reference policy
HTTP_SEATS = 2  # seats whose every turn is a call to the server


def game_options(rounds: int) -> dict[str, Any]:
    """The Ask-Guess options every run plays with."""
    return {"max_rounds": rounds, **OPTIONS}


def calls_per_game(rounds: int) -> int:
    """What the ideal assumes: every seat on the server is asked once a round, no re-prompt, no early end."""
    return HTTP_SEATS * rounds


LOG_OPTIONS = ["--no-log-realtime", "--no-log-samples", "--log-buffer 64", "--display none"]
MATRIX = [  # (front, latency, connections, games, rounds, workers); ~15 min on an idle 2-core machine
    *[(front, lat, 64, 64, 10, 0) for front in ("inspect", "pytest") for lat in (0.1, 1.0, 2.0)],
    *[(front, 1.0, conns, conns, 10, 0) for front in ("inspect", "pytest") for conns in (16, 256)],
    *[(front, 1.0, 64, 64, 30, 0) for front in ("inspect", "pytest")],  # all in step: CPU per call by round
    *[(front, 1.0, 64, 128, 30, 0) for front in ("inspect", "pytest")],  # the target run
    *[("pytest", 0.1, 64, 128, 10, workers) for workers in (0, 2)],  # CPU-bound: does -n 2 add throughput?
    *[("inspect", 0.1, 64, 64, 10, 0, extra) for extra in LOG_OPTIONS],  # what each log option saves
]



# -- the loopback server ----------------------------------------------------------------------------


class Loopback:
    def __init__(self, latency: float, max_seconds: float):
        cmd = [sys.executable, str(HERE / "loopback_openai.py"), "--latency", str(latency), "--port", "0",
               "--max-seconds", str(max_seconds)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if "listening on" not in line:
            self.proc.kill()
            raise SystemExit(f"loopback server did not start: {line!r}")
        self.base_url = line.split()[-1]

    def _call(self, path: str, body: dict | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url.removesuffix("/v1") + path, data=data,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def watch(self, pid: int) -> None:
        self._call("/_bench/watch", {"pid": pid})

    def stats(self) -> dict[str, Any]:
        return self._call("/_bench/stats")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def client_env(server: Loopback) -> dict[str, str]:
    return {**os.environ, "LOOPBACK_BASE_URL": server.base_url, "LOOPBACK_API_KEY": "unused"}


def run_client(cmd: list[str], server: Loopback, timeout: float, cwd: Path = ROOT) -> tuple[float, float, Any, str]:
    """Run a front end; (spawn time, exit time, the resource usage of its whole tree, output tail)."""
    with tempfile.TemporaryFile("w+") as out:
        spawned = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=cwd, env=client_env(server), stdout=out, stderr=subprocess.STDOUT)
        server.watch(proc.pid)
        deadline = spawned + timeout
        while True:  # wait4 gives the CPU of the process and every descendant it reaped
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit(f"{' '.join(cmd)}: no result within {timeout} s")
            time.sleep(0.05)
        ended = time.monotonic()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        tail = out.read()[-3000:]
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{tail}")
    return spawned, ended, usage, tail


# -- front ends -------------------------------------------------------------------------------------


def split_games(games: int) -> tuple[int, int]:
    """(rows, epochs) with rows x epochs = games and rows <= 100 (the word list's length)."""
    for epochs in range(1, games + 1):
        if games % epochs == 0 and games // epochs <= 100:
            return games // epochs, epochs
    raise ValueError(games)


GAME_TASK = "tasks/askguess.py"
FLOOR_TASK = "benchmarks/inspect_floor.py"  # the same calls without a game: inspect's own cost (issue 62)


def inspect_command(
    rounds: int, limit: str, epochs: int, connections: int, log_dir: str, extra: list[str], task_file: str = GAME_TASK
) -> list[str]:
    """`limit`: inspect's --limit, a row count ("64") or a range of rows ("33-64")."""
    return [
        str(Path(sys.executable).with_name("inspect")),
        "eval",
        task_file,
        "--model",
        MODEL,
        *[a for k, v in game_options(rounds).items() for a in ("-T", f"{k}={v}")],
        "--limit",
        limit,
        "--epochs",
        str(epochs),
        "--max-connections",
        str(connections),
        "--max-samples",
        str(connections),
        "--log-dir",
        log_dir,
        *extra,
    ]


def sharded_inspect_command(rounds: int, rows: int, epochs: int, connections: int, log_dir: str, extra: list[str],
                            shards: int) -> list[str]:
    """docs/performance.md's recipe for one evaluation over several processes: `shards` `inspect eval`
    processes on disjoint row ranges, started together by one shell (so wait4 counts them all)."""
    per_shard, bounds = math.ceil(connections / shards), [round(rows * k / shards) for k in range(shards + 1)]
    parts = []
    for k in range(shards):
        cmd = inspect_command(
            rounds, f"{bounds[k] + 1}-{bounds[k + 1]}", epochs, per_shard, f"{log_dir}/shards/{k + 1}", extra
        )
        parts.append(" ".join(shlex.quote(c) for c in cmd) + f" > {log_dir}/shard{k + 1}.out 2>&1 & p{k}=$!")
    waits = " && ".join(f"wait $p{k}" for k in range(shards))
    return ["sh", "-c", "; ".join(parts) + f"; {waits}"]


def merge_shards(log_dir: str) -> float:
    """`gameeval merge-logs` over the shards' logs, as a user runs it; its wall time in seconds."""
    logs = sorted(str(p) for p in Path(log_dir, "shards").glob("*/*.eval"))
    start = time.monotonic()
    subprocess.run(
        [str(Path(sys.executable).with_name("gameeval")), "merge-logs", f"{log_dir}/merged/askguess.eval", *logs],
        check=True,
    )
    return time.monotonic() - start


def pytest_command(
    rounds: int, rows: int, epochs: int, connections: int, workers: int, report: str, extra: list[str]
) -> list[str]:
    per_worker = math.ceil(connections / max(1, workers))
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--gameeval-only",
            "--gameeval-model", MODEL, "--gameeval-games", "askguess",
            *[a for k, v in game_options(rounds).items() for a in ("--gameeval-option", f"{k}={v}")],
            "--gameeval-limit", str(rows), "--gameeval-trials", str(epochs),
            "--gameeval-concurrency", str(per_worker), "--gameeval-max-connections", str(per_worker),
            "--gameeval-report", report, "-n", str(workers), *extra]


def check_inspect_log(log_dir: str, games: int) -> None:
    from inspect_ai.log import list_eval_logs, read_eval_log

    (info,) = list_eval_logs(log_dir)
    log = read_eval_log(info, header_only=True)
    if log.status != "success" or log.results is None or log.results.completed_samples != games:
        raise SystemExit(
            f"inspect eval: status {log.status}, {log.results and log.results.completed_samples} of {games} games"
        )


def check_pytest_report(report: str, games: int) -> None:
    cases = json.loads(Path(report).read_text())["cases"]
    played = [c for c in cases if c["status"] == "played"]
    if len(played) != games:
        raise SystemExit(f"pytest: {len(played)} of {games} games played")


# -- one run --------------------------------------------------------------------------------------


def per_round_cpu(requests: list[list[Any]]) -> dict[int, float]:
    """CPU ms per call by round: the client's CPU between consecutive arrivals, booked to the
    round of the later one (games move almost in step at a fixed latency)."""
    sampled = sorted((r for r in requests if r[2] is not None), key=lambda r: r[0])
    cpu: dict[int, float] = {}
    calls: dict[int, int] = {}
    for before, after in zip(sampled, sampled[1:]):
        cpu[after[1]] = cpu.get(after[1], 0.0) + after[2] - before[2]
        calls[after[1]] = calls.get(after[1], 0) + 1
    return {r: round(1000 * cpu[r] / calls[r], 3) for r in sorted(cpu)}


def round_growth(by_round: dict[int, float], rounds: int) -> dict[str, Any]:
    """CPU per call early (rounds 2-4) and late (the last three rounds) in the game. Round 1 is left
    out: its requests are booked only the CPU between them (the other games' start-up), not a
    whole call cycle. Meaningful only when all games run at once (games <= connections)."""
    early = [by_round[r] for r in range(2, min(5, rounds + 1)) if r in by_round]
    late = [by_round[r] for r in range(max(2, rounds - 2), rounds + 1) if r in by_round]
    if not early or not late or rounds < 6:
        return {}
    first, last = statistics.mean(early), statistics.mean(late)
    return {"early_rounds_cpu_ms_per_call": round(first, 2), "late_rounds_cpu_ms_per_call": round(last, 2),
            "late_over_early": round(last / first, 2)}


def profiled(cmd: list[str], out: str) -> list[str]:
    """The front end's command under cProfile (its main thread), writing the profile to `out`."""
    head = [sys.executable, "-m", "cProfile", "-o", out]
    return head + (cmd[1:] if cmd[0] == sys.executable else cmd)


def measure(front: str, latency: float, connections: int, games: int, rounds: int, workers: int,
            extra: list[str], profile: str | None = None) -> dict[str, Any]:
    rows, epochs = split_games(games)
    load_before = [round(x, 2) for x in os.getloadavg()]
    bound = 600 + 10 * games * rounds * latency / max(1, connections) + games * rounds * 0.05
    server = Loopback(latency, bound + 60)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if front == "inspect" and workers > 1:
                cmd = sharded_inspect_command(rounds, rows, epochs, connections, tmp, extra, workers)
            elif front in ("inspect", "floor"):
                cmd = inspect_command(rounds, str(rows), epochs, connections, tmp, extra,
                                      FLOOR_TASK if front == "floor" else GAME_TASK)
            else:
                cmd = pytest_command(rounds, rows, epochs, connections, workers, f"{tmp}/report.json", extra)
            if profile:
                cmd = profiled(cmd, profile)
            # pytest runs in a project of its own, as a user's CI does: from this repository it would also
            # load our test suite's conftest.py (testpaths), which imports numpy and scipy at start-up
            cwd = ROOT
            if front == "pytest":
                cwd = Path(tmp, "project")
                cwd.mkdir()
            spawned, ended, usage, _ = run_client(cmd, server, bound, cwd)
            cpu = usage.ru_utime + usage.ru_stime
            merge_s = None
            if front == "inspect" and workers > 1:
                merge_s = round(merge_shards(tmp), 2)
                check_inspect_log(f"{tmp}/merged", games)
            elif front in ("inspect", "floor"):
                check_inspect_log(tmp, games)
            else:
                check_pytest_report(f"{tmp}/report.json", games)
        stats = server.stats()
    finally:
        server.stop()
    requests = stats["requests"]
    calls = len(requests)
    if calls != games * calls_per_game(rounds):
        raise SystemExit(f"expected {games * calls_per_game(rounds)} calls, the server saw {calls}")
    first, last_reply = min(r[0] for r in requests), max(r[3] for r in requests)
    ideal = max(calls_per_game(rounds), math.ceil(calls / connections)) * latency
    sampled = [r for r in requests if r[2] is not None]
    play_cpu = max(r[2] for r in sampled) - min(r[2] for r in sampled) if sampled else None
    by_round = per_round_cpu(requests)
    processes = max(1, workers)
    display_cmd = [Path(c).name if Path(c).parent == Path(sys.executable).parent else "PROFILE" if c == profile else c
                   for c in cmd]
    return {
        "front": front, "latency_s": latency, "connections": connections, "games": games, "rounds": rounds,
        "workers": workers, "calls": calls, "command": " ".join(display_cmd).replace(tmp, "TMP"),
        "cwd": "TMP/project (empty)" if front == "pytest" else "the repository",
        "startup_s": round(first - spawned, 2),  # process start -> the server sees the first request
        "end_s": round(ended - last_reply, 2),  # the last reply -> the process has exited (issue 62)
        # the client's CPU before its first request and after its last one arrived (the server samples it at
        # each arrival): the two ends in CPU seconds, which a loaded machine distorts less than their wall time
        **({"startup_cpu_s": round(min(sampled)[2], 2), "end_cpu_s": round(cpu - max(r[2] for r in sampled), 2)}
           if sampled else {}),
        "wall_s": round(ended - spawned, 2), "play_span_s": round(last_reply - first, 2), "ideal_s": round(ideal, 2),
        "ideal_over_wall": round(ideal / (ended - spawned), 3),
        **({"merge_logs_s": merge_s, "ideal_over_wall_with_merge": round(ideal / (ended - spawned + merge_s), 3)}
           if merge_s is not None else {}), "ideal_over_play_span": round(ideal / (last_reply - first), 3),
        "client_cpu_s": round(cpu, 2), "cpu_ms_per_call": round(1000 * cpu / calls, 2),
        "play_cpu_ms_per_call": round(1000 * play_cpu / calls, 2) if play_cpu is not None else None,
        "calls_per_s_per_process": round(calls / (last_reply - first) / processes, 1),
        "cpu_ms_per_call_by_round": by_round,
        **(round_growth(by_round, rounds) if games <= connections else {}),
        "openai_sdk_request_transform_ms": (transform := sdk_transform_ms(rounds)),
        # the machine's speed at pure Python, measured on the SDK's own code: it moved 3x between days
        # on this shared VM, so compare runs of different days by this ratio, not by milliseconds
        "cpu_per_call_over_transform": round(1000 * cpu / calls / transform[f"round_{rounds}"], 2),
        "server_cpu_s": round(stats["server_cpu_s"], 2),
        "client_max_rss_mb": round(usage.ru_maxrss / 1024),  # the largest process of the tree (Linux: KiB)
        **({"profile": summarize(profile, calls)} if profile else {}),
        "load_average_before": load_before, "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


FLOOR_KEYS = ("cpu_ms_per_call", "play_cpu_ms_per_call", "startup_s", "end_s", "startup_cpu_s", "end_cpu_s",
              "wall_s", "play_span_s", "ideal_over_wall", "ideal_over_play_span", "client_cpu_s", "command",
              "load_average_before")


def add_floor(result: dict[str, Any], floor: dict[str, Any]) -> None:
    """The floor's run (benchmarks/inspect_floor.py: the same calls with no game), measured right after
    the inspect front's in the same invocation, and the front's CPU a call as a ratio to it."""
    result["floor"] = {k: floor[k] for k in FLOOR_KEYS}
    result["cpu_per_call_over_floor"] = round(result["cpu_ms_per_call"] / floor["cpu_ms_per_call"], 3)
    if result["play_cpu_ms_per_call"] and floor["play_cpu_ms_per_call"]:
        result["play_cpu_per_call_over_floor"] = round(
            result["play_cpu_ms_per_call"] / floor["play_cpu_ms_per_call"], 3)


def sdk_transform_ms(rounds: int) -> dict[str, float]:
    """CPU ms of the openai SDK's request transform (`chat.completions.create` walks every message
    of the request against its typed schema) for the questioner's real request at round 1 and at
    round `rounds` of an Ask-Guess game: the part of a call's cost that grows with the history
    and sits inside the SDK, below inspect and us."""
    import asyncio

    from openai._utils._transform import async_maybe_transform
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    from pytest_gameeval.engine.play import play_case
    from pytest_gameeval.engine.player import Player, Reply
    from pytest_gameeval.games.registry import get_spec

    spec = get_spec("askguess")
    options = spec.parse_options(game_options(rounds))
    prompts: list[list[dict[str, str]]] = []

    class Capture(Player):
        label = "capture"

        async def act(self, ctx: Any) -> Reply:
            if ctx.seat.role == "questioner":
                prompts.append(ctx.messages)
            return Reply(reply_for(ctx.messages))

    async def cost(messages: list[dict[str, str]], repeats: int = 100, batches: int = 5) -> float:
        """The fastest of `batches` (a reference of machine speed should not carry a stray spike)."""
        body = {"messages": messages, "model": "bench", "max_tokens": 64}
        best = math.inf
        for _ in range(batches):
            start = time.process_time()
            for _ in range(repeats):
                await async_maybe_transform(body, CompletionCreateParamsNonStreaming)
            best = min(best, (time.process_time() - start) / repeats)
        return round(1000 * best, 3)

    async def main() -> dict[str, float]:
        await play_case(spec, spec.rows(options)[0], 0, options, lambda seat, role: Capture())
        return {f"round_{r}": await cost(prompts[r - 1]) for r in (1, rounds)} | {
            f"round_{rounds}_messages": len(prompts[-1])}

    return asyncio.run(main())


# -- start-up ---------------------------------------------------------------------------------------

MINIMAL_TASK = '''
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.solver import generate

@task
def minimal():
    return Task(dataset=[Sample(input="Say hi")], solver=generate())
'''


def time_to_first_request(cmd: list[str], cwd: Path) -> dict[str, float]:
    server = Loopback(0.0, 300)
    try:
        spawned, ended, usage, _ = run_client(cmd, server, 240, cwd)
        first = min(r[0] for r in server.stats()["requests"])
    finally:
        server.stop()
    return {
        "to_first_request_s": round(first - spawned, 2),
        "wall_s": round(ended - spawned, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
    }


def startup(repeats: int) -> dict[str, Any]:
    load_before = [round(x, 2) for x in os.getloadavg()]
    inspect = str(Path(sys.executable).with_name("inspect"))
    out: dict[str, Any] = {"repeats": repeats}
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "minimal.py").write_text(MINIMAL_TASK)
        (Path(tmp) / "test_plain.py").write_text("def test_nothing():\n    assert True\n")
        runs = {
            "inspect_minimal_task": [inspect, "eval", "minimal.py", "--model", MODEL, "--log-dir", f"{tmp}/logs"],
            "inspect_askguess": [inspect, "eval", "tasks/askguess.py", "--model", MODEL, "--limit", "1",
                                 "-T", "max_rounds=1", "--log-dir", f"{tmp}/logs"],
        }
        for name, cmd in runs.items():
            cwd = Path(tmp) if name == "inspect_minimal_task" else ROOT
            samples = [time_to_first_request(cmd, cwd) for _ in range(repeats)]
            out[name] = {"command": " ".join([Path(cmd[0]).name, *cmd[1:]]).replace(tmp, "TMP"),
                         **{k: statistics.median(s[k] for s in samples) for k in samples[0]}}
        out["askguess_after_inspect_startup_s"] = round(
            out["inspect_askguess"]["to_first_request_s"] - out["inspect_minimal_task"]["to_first_request_s"], 2)
        plain = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        pytest_runs = {"pytest_with_plugin": [*plain, f"{tmp}/test_plain.py"],
                       "pytest_without_plugin": [*plain, "-p", "no:gameeval", f"{tmp}/test_plain.py"]}
        for name, cmd in pytest_runs.items():
            walls = []
            for _ in range(repeats):
                start = time.perf_counter()
                subprocess.run(cmd, cwd=tmp, capture_output=True, check=True)
                walls.append(time.perf_counter() - start)
            out[name] = {
                "command": " ".join(["python", *cmd[1:]]).replace(tmp, "TMP"),
                "wall_s": round(statistics.median(walls), 3),
                "walls_s": [round(w, 3) for w in walls],
            }
    out["anthropic_installed"] = importlib.util.find_spec("anthropic") is not None  # inspect imports its provider if so
    out["load_average_before"] = load_before
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


# -- output -----------------------------------------------------------------------------------------


def key_of(result: dict[str, Any]) -> str:
    if "front" not in result:
        return "startup"
    extra = f" {result['extra']}" if result.get("extra") else ""
    extra += " profiled" if "profile" in result else ""
    extra += " fast-path-off" if result.get("fast_path") == "off" else ""
    extra += " gc-tuning-off" if result.get("gc_tuning") == "off" else ""
    extra += f" code={result['code']}" if result.get("code", "this tree") != "this tree" else ""
    return (
        f"{result['front']} latency={result['latency_s']} connections={result['connections']} games={result['games']} "
        f"rounds={result['rounds']} workers={result['workers']}{extra}"
    )


def save(results: list[dict[str, Any]], path: Path) -> None:
    saved = json.loads(path.read_text()) if path.exists() else {"benchmark": "http_concurrency", "runs": {}}
    for result in results:
        result["date"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        result["cpus"] = os.cpu_count()
        saved["runs"][key_of(result)] = result
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(saved, indent=1) + "\n")
    tmp.replace(path)


def over_transform(run: dict[str, Any]) -> float | str:
    """CPU per call in units of the machine's speed (the SDK's transform of the last round's request)."""
    reference = (run.get("openai_sdk_request_transform_ms") or {}).get(f"round_{run['rounds']}")
    return run.get("cpu_per_call_over_transform") or (round(run["cpu_ms_per_call"] / reference, 2) if reference else "")


def table(path: Path) -> str:
    """The saved runs as the markdown table docs/performance.md shows."""
    runs = json.loads(path.read_text())["runs"]
    lines = [
        "| front end | latency | games, connections | rounds | extra | CPU ms/call (run / play) | ÷ SDK transform | "
        "late ÷ early rounds "
        "| start-up | ideal/wall run (play span) | calls/s per process | load avg before | date |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key, r in runs.items():
        if key == "startup" or "profile" in r:  # a profiled run is slowed by the profiler
            continue
        front = r["front"] + (
            (" -n {}" if r["front"] == "pytest" else " × {} processes").format(r["workers"]) if r["workers"] else ""
        )
        lines.append(
            f"| {front} | {r['latency_s']} s | {r['games']}, {r['connections']} | {r['rounds']} | {_extra(r)} "
            f"| {r['cpu_ms_per_call']} / {r['play_cpu_ms_per_call']} | {over_transform(r)} | "
            f"{r.get('late_over_early', '')} | {r['startup_s']} s "
            f"| {r['ideal_over_wall']} ({r['ideal_over_play_span']}) | {r['calls_per_s_per_process']} "
            f"| {r['load_average_before'][0]} | {r['date'][:16]} |"
        )
    return "\n".join(lines)


def _extra(run: dict[str, Any]) -> str:
    """The table's extra column: the front end's extra arguments, the fast path's and GC tuning's state."""
    fast = f"fast path {run['fast_path']}" if "fast_path" in run else ""
    gc_tuning = f"gc tuning {run['gc_tuning']}" if "gc_tuning" in run else ""
    return " ".join(part for part in (run.get("extra", ""), fast, gc_tuning) if part)


def profile_tables(path: Path, top: int = 12) -> str:
    """The saved profiled runs side by side (docs/performance.md's profile tables)."""
    runs = {k: r for k, r in json.loads(path.read_text())["runs"].items() if "profile" in r}
    profiles = {f"{r['front']} ({r['games']} × {r['rounds']})": r["profile"] for r in runs.values()}
    if not profiles:
        raise SystemExit(f"{path}: no profiled run (http_concurrency.py --profile FILE ...)")
    heads = [
        f"- {name}: {p['ms_per_call']} ms per call under cProfile, {p['model_calls']} calls; load average "
        f"{r['load_average_before'][0]} before, {r['load_average_after'][0]} after; {r['date'][:16]}; `{r['command']}`"
        for (name, p), r in zip(profiles.items(), runs.values())
    ]
    tops = [
        f"{name}, top {top} functions by self time:\n\n| function | ms per call | share |\n|---|---|---|\n"
        + "\n".join(f"| `{f}` | {v['ms_per_call']} | {v['share']:.1%} |" for f, v in list(p["top_self"].items())[:top])
        for name, p in profiles.items()
    ]
    return "\n\n".join(
        [
            "\n".join(heads),
            "By owner of the code (self time; the time of builtins, the standard library, typing and json goes to "
            "their callers' owners):",
            side_by_side(profiles, "by_area"),
            "Our own code by what it is for (cumulative time):",
            side_by_side(profiles, "ours_by_feature"),
            *tops,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--front", choices=["inspect", "pytest", "floor"], default="inspect",
                        help="floor: benchmarks/inspect_floor.py alone (the inspect front runs it after itself)")
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=10, help="Ask-Guess max_rounds (30: full length)")
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="pytest -n; inspect: that many processes on parts of the dataset, logs joined by gameeval merge-logs",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="run the front end under cProfile, write its profile to FILE and "
        "add CPU per call by function to the result (profile_calls.py); one process only",
    )
    parser.add_argument("--label", default="",
                        help="what code this is (e.g. 'main' when PYTHONPATH puts a worktree of main first): saved "
                        "with the run and in its key, for a same-time A/B")
    parser.add_argument("--no-floor", action="store_true",
                        help="--front inspect: skip the floor run (benchmarks/inspect_floor.py) after it")
    parser.add_argument("--extra", default="", help="more arguments for the front end, e.g. '--no-log-samples'")
    parser.add_argument("--startup", action="store_true", help="time start-up instead (see above)")
    parser.add_argument("--repeats", type=int, default=3, help="start-up repeats (the median is reported)")
    parser.add_argument("--matrix", action="store_true", help="run every configuration of MATRIX")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file the results are merged into")
    parser.add_argument("--no-save", action="store_true", help="print only")
    parser.add_argument("--table", action="store_true", help="print the saved runs as a markdown table and exit")
    parser.add_argument(
        "--profiles", action="store_true", help="print the saved profiled runs as markdown tables and exit"
    )
    args = parser.parse_args()
    if args.table or args.profiles:
        print(table(args.out) if args.table else profile_tables(args.out))
        return
    if args.startup:
        results = [startup(args.repeats)]
    else:
        configs = (
            MATRIX
            if args.matrix
            else [(args.front, args.latency, args.connections, args.games, args.rounds, args.workers, args.extra)]
        )
        results = []
        for front, latency, connections, games, rounds, workers, *extra in configs:
            extra_args = extra[0] if extra else ""
            if args.profile and (args.matrix or workers > 1):
                raise SystemExit("--profile: one run of one process (no --matrix, no --workers above 1)")
            result = measure(front, latency, connections, games, rounds, workers, extra=extra_args.split(),
                             profile=args.profile and str(Path(args.profile).resolve()))
            if extra_args:
                result["extra"] = extra_args
            # the front end inherits this environment: its switches read as the players read them
            # (GAMEEVAL_FAST_PATH=0 / GAMEEVAL_GC_TUNING=0 for a same-time A/B)
            result["fast_path"] = "on" if fast_path.enabled() else "off"
            result["gc_tuning"] = "on" if heap.enabled() else "off"
            result["preload"] = "absent" if preload is None else "on" if preload.enabled() else "off"
            result["code"] = args.label or "this tree"
            result["pythonpath"] = os.environ.get("PYTHONPATH", "")  # the client runs the code found there first
            if front == "inspect" and workers <= 1 and not args.profile and not args.no_floor:
                add_floor(result, measure("floor", latency, connections, games, rounds, 0, extra=extra_args.split()))
            results.append(result)
            print(json.dumps(result), flush=True)
    if not args.no_save:
        save(results, args.out)
    print(json.dumps(results if len(results) > 1 else results[0], indent=1))


if __name__ == "__main__":
    main()
