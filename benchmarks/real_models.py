"""SmolLM2-135M against Gemma-3-270M over all nine games with the defaults (issue 25's real-model
validity benchmark): plays, then prints one JSON object (and, with --markdown, docs/validity.md's table).

    python benchmarks/real_models.py play --out bench/real     # resumable: finished games are kept
    python benchmarks/real_models.py analyze --out bench/real [--markdown]

``play`` runs the pytest plugin once per (game, model), exactly as a user would
(``pytest --gameeval-only --gameeval-games GAME --gameeval-option GAME.limit=N --gameeval-model M``),
both models of a game at the same time, cheap games first, ``--jobs`` games at once; each run
writes its report and records into ``--out``, with its wall time and the load average before and
after. A game being played holds ``GAME.lock`` in ``--out`` (delete stale locks after a crash).
``analyze`` reads them back: per game each model's headline with its interval, the paired
comparison (same cases, same seeds) and its verdict, the games a sequential gate needed, the wall
time, and for a game that did not separate, the games per model a two-sided test at alpha 0.05
would need for 80 % power at the observed effect.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_gameeval.engine.spec import FIRST_TRY  # noqa: E402  the turn-level measure

MODELS = ("gameeval/local/smollm2-135m", "gameeval/local/gemma-3-270m")
# games per model per game: 30 where a game is cheap enough on a shared 2-core machine, fewer
# where one game costs minutes (say so in the docs); cheap games first so partial runs are useful
COUNTS = {"bluffing": 30, "askguess": 30, "spygpt": 30, "taboo": 30, "tofukingdom": 20, "spygame": 12,
          "akinator": 10, "age": 8, "spyfall": 6}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def slug(model: str) -> str:
    return model.rsplit("/", 1)[-1].split("@")[0].replace(".gguf", "")


def report_path(out: Path, game: str, model: str) -> Path:
    return out / f"{game}-{slug(model)}.json"


def _pytest_command(game: str, model: str, n: int, report: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "--gameeval-only", "-q", "-p", "no:cacheprovider",
            "--gameeval-games", game, "--gameeval-option", f"{game}.limit={n}",
            "--gameeval-model", model, f"--gameeval-report={report}", *extra]


def _play_game(out: Path, game: str, models: list[str], n: int, extra: list[str]) -> dict[str, Any] | None:
    """Both models' runs of one game, at the same time; None when another play process has it."""
    todo = [m for m in models if not report_path(out, game, m).exists()]
    lock = out / f"{game}.lock"
    if not todo:
        return None
    try:
        lock.touch(exist_ok=False)  # several `play` processes may share one --out
    except FileExistsError:
        return None
    load_before, start = _load(), time.perf_counter()
    procs = {m: subprocess.Popen(_pytest_command(game, m, n, report_path(out, game, m), extra), cwd=out,
                                 stdout=open(out / f"{game}-{slug(m)}.log", "w"), stderr=subprocess.STDOUT)
             for m in todo}
    timing = {}
    for m, proc in procs.items():
        proc.wait()
        timing[slug(m)] = {"wall_seconds": round(time.perf_counter() - start, 1), "exit": proc.returncode,
                           "load_before": load_before, "load_after": _load(), "games": n}
    return timing


def play(out: Path, games: list[str], models: list[str], counts: dict[str, int], extra: list[str], jobs: int) -> None:
    from concurrent.futures import ThreadPoolExecutor

    out.mkdir(parents=True, exist_ok=True)
    timings_path = out / "timings.json"

    def one(game: str) -> None:
        timing = _play_game(out, game, models, counts[game], extra)
        if timing is None:
            return
        timings = json.loads(timings_path.read_text()) if timings_path.exists() else {}
        timings[game] = timing
        tmp = timings_path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(timings, indent=1))
        os.replace(tmp, timings_path)
        print(f"{game}: {json.dumps(timing)}", file=sys.stderr, flush=True)

    with ThreadPoolExecutor(jobs) as pool:  # games in order, `jobs` at a time
        list(pool.map(one, games))


# --------------------------------------------------------------------------- analysis


def _paired(game: str, records: list[list[Any]], key: str | None = None) -> dict[str, Any]:
    """Per-case `key` (the headline by default) of both models, paired by case (instance, epoch, seed)."""
    from pytest_gameeval.games.registry import get_spec

    spec = get_spec(game)
    key = key or spec.headline
    score = getattr(spec, "scores", spec.score)  # with the headline keys where the game has them
    by_case = [{(r.instance_id, r.epoch, r.seed): score(r).get(key) for r in recs} for recs in records]
    alone = [[v for v in side.values() if v is not None and v == v] for side in by_case]  # every game, NaN dropped
    common = sorted(set(by_case[0]) & set(by_case[1]))
    pairs = [(by_case[0][c], by_case[1][c]) for c in common
             if by_case[0][c] is not None and by_case[1][c] is not None
             and by_case[0][c] == by_case[0][c] and by_case[1][c] == by_case[1][c]]  # drop NaN
    return {"headline": key, "pairs": pairs, "alone": alone, "unpaired": len(set(by_case[0]) ^ set(by_case[1]))}


def paired_test(pairs: list[tuple[float, float]], alpha: float = 0.05) -> dict[str, Any]:
    """Difference B - A of a paired sample: its spread, the games per model a two-sided paired test
    at `alpha` would need for 80 % power at the observed effect (None when there is no effect to
    power), the smallest difference such a test detects with 80 % power at this many games and
    this spread, and how many pairs tied (when all did, no number of games separates the two)."""
    import numpy as np
    from scipy import stats

    if len(pairs) < 2:
        return {"n": len(pairs), "sd_of_differences": None, "games_for_80pct_power": None,
                "detectable_difference": None, "tied_pairs": None}
    d = np.array([b - a for a, b in pairs], float)
    mean_d, sd = float(d.mean()), float(d.std(ddof=1))
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(0.8)
    power = int((z * sd / abs(mean_d)) ** 2) + 1 if mean_d != 0 and sd > 0 else None
    return {"n": len(pairs), "sd_of_differences": sd, "games_for_80pct_power": power,
            "detectable_difference": float(z * sd / len(d) ** 0.5) if sd > 0 else None,
            "tied_pairs": int((d == 0).sum())}


def played_share(cases: list[dict[str, Any]]) -> float | None:
    """The share of games the evaluated seat played (headline's `played`): the floor's cause."""
    values = [c["scores"].get("played") for c in cases]
    values = [v for v in values if v is not None and v == v]
    return sum(values) / len(values) if values else None


def _cases(game: str, records: list[Any]) -> list[dict[str, Any]]:
    """The records as the report's case entries, scored by the installed code (records first,
    metrics after: a headline defined after the games were played is computed here)."""
    from pytest_gameeval.games.registry import get_spec

    spec = get_spec(game)
    return [{"case": f"{r.instance_id}-e{r.epoch}", "seed": r.seed, "status": "played", "outcome": r.label,
             "scores": spec.score(r)} for r in records]


def verdict_of(game: str, old: list[dict[str, Any]], new: list[dict[str, Any]], alpha: float = 0.05) -> dict[str, Any]:
    """The verdict `gameeval report diff` and `gameeval compare` give (analysis/verdicts/judge.judge_game)
    on the metrics they judge by default (the headline and the turn-level measure, one verdict),
    over every game, at the gate's default tolerance."""
    from pytest_gameeval.analysis.verdicts.gate_config import GateConfig
    from pytest_gameeval.analysis.verdicts.judge import judge_game
    from pytest_gameeval.games.registry import get_spec

    config = GateConfig()
    gated = [(key, True, config.tolerance) for key in get_spec(game).default_gated]
    return judge_game(game, old, new, gated, alpha=alpha, beta=config.beta)


def gate_run(game: str, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> dict[str, Any]:
    """The plugin's sequential gate (its defaults: alpha 0.05, beta 0.1, tolerance 0.1, 4 looks) run
    over `new` in case order against `old` as the baseline: its verdict and the games it needed."""
    from pytest_gameeval.analysis.verdicts.gate import MEAN, GameGate, GateMetric
    from pytest_gameeval.analysis.verdicts.gate_config import GateConfig
    from pytest_gameeval.games.registry import get_spec

    config = GateConfig()
    gated = [GateMetric(key, MEAN, True, config.tolerance) for key in get_spec(game).default_gated]
    gate = GameGate(game, gated, config, len(new),
                    baseline_played=len(old))
    for end in gate.ends:
        gate.look(old, new[:end], end, last=end == len(new))
        if gate.stopped:
            break
    return {"result": gate.verdict, "games": gate.games_used, "looks": gate.looks_done, "paired": gate.paired}


def _value(values: list[float]) -> dict[str, Any]:
    import numpy as np
    from scipy import stats

    x = np.array(values, float)
    if len(x) < 2 or x.std(ddof=1) == 0:
        return {
            "value": float(x.mean()) if len(x) else None,
            "ci": [float(x.mean())] * 2 if len(x) else None,
            "n": len(x),
        }
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / len(x) ** 0.5)
    return {"value": float(x.mean()), "ci": [float(x.mean()) - half, float(x.mean()) + half], "n": len(x)}


def analyze(out: Path, games: list[str], models: list[str]) -> dict[str, Any]:
    from pytest_gameeval.engine.record import GameRecord, read_records

    timings = json.loads((out / "timings.json").read_text()) if (out / "timings.json").exists() else {}
    rows: dict[str, Any] = {}
    for game in games:
        records, partial = [], []
        for m in models:
            path = report_path(out, game, m).with_name(report_path(out, game, m).name + ".records.jsonl")
            if path.exists():
                records.append(read_records(path))
                continue
            # a run stopped before its report: the games its journal holds (the plugin's resume file)
            journal = [json.loads(line) for j in sorted(out.glob(f"{game}-{slug(m)}.json.journal-*.jsonl"))
                       for line in j.read_text().splitlines() if line.strip()]
            records.append([GameRecord.from_dict(e["record"]) for e in journal if e.get("record")])
            partial.append(slug(m))
        if not all(records):
            rows[game] = {"missing": [slug(m) for m, recs in zip(models, records) if not recs]}
            continue
        paired = _paired(game, records)
        pairs = paired["pairs"]
        names = [sorted({s["model"] for r in recs for s in r.seats}) for recs in records]
        cases = [_cases(game, recs) for recs in records]
        judged = verdict_of(game, cases[0], cases[1])
        change = judged["metrics"][paired["headline"]]
        turns = _paired(game, records, FIRST_TRY)
        turn_change = judged["metrics"].get(FIRST_TRY, {})
        rows[game] = {
            "headline": paired["headline"],
            # the turn-level measure (legal first attempts), judged beside the headline
            FIRST_TRY: {"values": {slug(m): _value(side) for m, side in zip(models, turns["alone"])},
                        "difference": turn_change.get("change"), "ci": turn_change.get("ci"), "p": turn_change.get("p"),
                        "verdict": turn_change.get("verdict"), **paired_test(turns["pairs"])},
            "n": len(pairs),
            "models": [slug(m) for m in models],
            "model_identities": names,
            # each model over all the games it played; the paired comparison over the cases both played
            "values": {slug(models[0]): _value(paired["alone"][0]), slug(models[1]): _value(paired["alone"][1])},
            "played": {slug(m): played_share(side) for m, side in zip(models, cases)},
            "paired": {"paired": judged["paired"], "difference": change.get("change"), "ci": change.get("ci"),
                       "p": change.get("p"), "test": change.get("test"), **paired_test(pairs)},
            "verdict": f"{slug(models[1])} {judged['result']} than {slug(models[0])}"
                       if judged["result"] in ("better", "worse") else judged["result"],
            "outcomes": judged["outcomes"],
            "gate": gate_run(game, cases[0], cases[1]),
            "unpaired_cases": paired["unpaired"],
            "stopped_early": partial,  # runs cut short: only the games their journal holds
            "wall_seconds": {m: t["wall_seconds"] for m, t in timings.get(game, {}).items()},
            "load": {m: [t["load_before"][0], t["load_after"][0]] for m, t in timings.get(game, {}).items()},
        }
        rows[game]["power_games"] = (
            None if judged["result"] in ("better", "worse") else rows[game]["paired"]["games_for_80pct_power"]
        )
    return {"benchmark": "real_models", "models": models, "games": rows}


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "| game | games (Smol / Gemma / paired) | SmolLM2-135M | Gemma-3-270M | played (Smol / Gemma) "
        "| paired difference Gemma − Smol (95 % CI) | p | legal first try (Smol / Gemma; Gemma − Smol, p) "
        "| verdict (both measures); why not separated "
        "| the gate (defaults, Gemma against a SmolLM2 baseline): verdict after games | wall s (both at once) | load "
        "(1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def value(v: dict[str, Any]) -> str:
        lo, hi = v.get("ci") or (None, None)
        return (
            f"{v['value']:.2f} [{lo:.2f}, {hi:.2f}]"
            if v.get("value") is not None and lo is not None
            else str(v.get("value"))
        )

    for game, r in result["games"].items():
        if "missing" in r:
            lines.append(f"| {game} | – | – | – | – | – | – | – | not run ({', '.join(r['missing'])}) | – | – | – |")
            continue
        a, b = r["models"]
        d = r["paired"]
        walls = str(max(r.get("wall_seconds", {}).values(), default="–"))
        load = next((f"{x[0]}–{x[1]}" for x in r.get("load", {}).values()), "–")
        if r.get("stopped_early"):
            walls = f"stopped early ({', '.join(r['stopped_early'])})"
        counts = f"{r['values'][a]['n']} / {r['values'][b]['n']} / {r['n']}"
        diff = (f"{d['difference']:+.3f} [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]" if d.get("ci") and None not in d["ci"]
                else f"{d.get('difference')}") + (" paired" if d.get("paired") else "")
        p = f"{d['p']:.3g}" if d.get("p") is not None else "–"
        g = r.get("gate") or {}
        gate = f"{g.get('result')} after {g.get('games')}" if g else "–"
        power = ""
        if r["verdict"] not in (f"{b} better than {a}", f"{b} worse than {a}"):
            if d.get("tied_pairs") == r["n"]:
                power = (f"; all {r['n']} pairs tied (no observed difference to power: both models"
                         f" scored the same in every game)")
            elif r.get("power_games"):
                power = (f"; ~{r['power_games']} games each for 80 % power at this difference"
                         f" (at {r['n']}: {d['detectable_difference']:.2f} or more)")
        played = " / ".join(f"{r['played'][m]:.2f}" if r["played"].get(m) is not None else "–" for m in (a, b))
        t = r[FIRST_TRY]
        turns = (
            f"{t['values'][a]['value']:.2f} / {t['values'][b]['value']:.2f}; {t['difference']:+.3f}, p {t['p']:.3g}"
            if t.get("difference") is not None and t.get("p") is not None
            else "–"
        )
        lines.append(
            f"| {game} | {counts} | {value(r['values'][a])} | {value(r['values'][b])} | {played} | {diff} | {p} | "
            f"{turns} "
            f"| {r['verdict']}{power} | {gate} | {walls} | {load} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("play", "analyze"))
    parser.add_argument("--out", default="bench/real-models", help="directory for reports, records and timings")
    parser.add_argument(
        "--games", default=",".join(COUNTS), help="comma-separated games (default: all nine, cheap first)"
    )
    parser.add_argument(
        "--models", default=",".join(MODELS), help="two inspect models (default SmolLM2-135M, Gemma-3-270M)"
    )
    parser.add_argument("--counts", default="", help="GAME=N,... games per model (default: the table in this script)")
    parser.add_argument("--jobs", type=int, default=1, help="play: games at a time (each runs both models at once)")
    parser.add_argument(
        "--markdown", action="store_true", help="analyze: print docs/validity.md's table after the JSON"
    )
    parser.add_argument("--pytest-args", default="", help="more pytest arguments for every run, as one string")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    counts = {**COUNTS, **{k: int(v) for k, v in (p.split("=") for p in args.counts.split(",") if p)}}
    if args.action == "play":
        play(out, games, models, counts, shlex.split(args.pytest_args), args.jobs)
        return 0
    result = analyze(out, games, models)
    print(json.dumps(result, indent=1))
    if args.markdown:
        print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
