"""SmolLM2-135M against Gemma-3-270M over all nine games with the defaults (issue 25's real-model
validity benchmark): plays, then prints one JSON object (and, with --markdown, docs/validity.md's table).

    python benchmarks/real_models.py play --out bench/real     # resumable: finished games are kept
    python benchmarks/real_models.py analyze --out bench/real [--markdown]

``play`` runs the pytest plugin once per (game, model), exactly as a user would
(``pytest --gameeval-only --gameeval-games GAME --gameeval-option GAME.limit=N --gameeval-model M``),
both models of a game at the same time, cheap games first; each run writes its report and
records into ``--out``, with its wall time and the load average before and after.
``analyze`` reads them back: per game each model's headline with its interval, the paired
comparison (same cases, same seeds) and its verdict, the games a sequential gate needed, the wall
time, and for a game that did not separate, the games per model a two-sided test at alpha 0.05
would need for 80 % power at the observed effect.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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


def play(out: Path, games: list[str], models: list[str], counts: dict[str, int], extra: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    timings_path = out / "timings.json"
    timings = json.loads(timings_path.read_text()) if timings_path.exists() else {}
    for game in games:
        todo = [m for m in models if not report_path(out, game, m).exists()]
        if not todo:
            continue
        load_before, start = _load(), time.perf_counter()
        procs = {m: subprocess.Popen(_pytest_command(game, m, counts[game], report_path(out, game, m), extra), cwd=out,
                                     stdout=open(out / f"{game}-{slug(m)}.log", "w"), stderr=subprocess.STDOUT)
                 for m in todo}
        for m, proc in procs.items():
            proc.wait()
            timings.setdefault(game, {})[slug(m)] = {
                "wall_seconds": round(time.perf_counter() - start, 1), "exit": proc.returncode,
                "load_before": load_before, "load_after": _load(), "games": counts[game]}
        timings_path.write_text(json.dumps(timings, indent=1))
        print(f"{game}: {json.dumps(timings[game])}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- analysis


def _power_n(p1: float, p2: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Games per model for a two-sided two-proportion z test to detect p1 vs p2 (unpaired, so an
    upper bound for the paired design)."""
    from scipy.stats import norm

    if p1 == p2:
        return None
    za, zb = norm.ppf(1 - alpha / 2), norm.ppf(power)
    pbar = (p1 + p2) / 2
    n = (za * (2 * pbar * (1 - pbar)) ** 0.5 + zb * (p1 * (1 - p1) + p2 * (1 - p2)) ** 0.5) ** 2 / (p1 - p2) ** 2
    return int(n) + 1


def _power_n_means(d: float, sd: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Pairs needed for a paired t test (normal approximation) to detect a mean difference d."""
    from scipy.stats import norm

    if d == 0 or sd == 0:
        return None
    return int(((norm.ppf(1 - alpha / 2) + norm.ppf(power)) * sd / abs(d)) ** 2) + 1


def analyze(out: Path, games: list[str], models: list[str]) -> dict[str, Any]:
    from pytest_gameeval.analysis.real_models import compare_reports

    timings = json.loads((out / "timings.json").read_text()) if (out / "timings.json").exists() else {}
    rows = {}
    for game in games:
        paths = [report_path(out, game, m) for m in models]
        if not all(p.exists() for p in paths):
            rows[game] = {"missing": [str(p.name) for p in paths if not p.exists()]}
            continue
        result = compare_reports(paths[0], paths[1], game)
        result["wall_seconds"] = {m: t["wall_seconds"] for m, t in timings.get(game, {}).items()}
        result["load"] = {m: [t["load_before"][0], t["load_after"][0]] for m, t in timings.get(game, {}).items()}
        rows[game] = result
    return {"benchmark": "real_models", "models": models, "games": rows}


def markdown(result: dict[str, Any]) -> str:
    lines = ["| game | headline | games each | SmolLM2-135M | Gemma-3-270M | paired difference (95 % CI) | p | verdict "
             "| games the gate needed | wall s (Smol / Gemma) | load (1 min) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def value(v: dict[str, Any]) -> str:
        lo, hi = v.get("ci") or (None, None)
        return f"{v['value']:.2f} [{lo:.2f}, {hi:.2f}]" if v.get("value") is not None and lo is not None else str(v.get("value"))

    for game, r in result["games"].items():
        if "missing" in r:
            lines.append(f"| {game} | – | – | – | – | – | – | not run ({', '.join(r['missing'])}) | – | – | – |")
            continue
        a, b = r["models"]
        d = r["paired"]
        walls = " / ".join(str(w) for w in r.get("wall_seconds", {}).values())
        load = "; ".join(f"{x[0]}–{x[1]}" for x in r.get("load", {}).values())
        diff = f"{d['difference']:+.2f} [{d['ci'][0]:+.2f}, {d['ci'][1]:+.2f}]" if d.get("ci") else f"{d.get('difference')}"
        p = f"{d['p']:.3g}" if d.get("p") is not None else "–"
        gate = r.get("gate_games") or "–"
        power = f"; ~{r['power_games']} games each for 80 % power" if r.get("power_games") else ""
        lines.append(f"| {game} | {r['headline']} | {r['n']} | {value(r['values'][a])} | {value(r['values'][b])} | {diff} | {p} "
                     f"| {r['verdict']}{power} | {gate} | {walls} | {load} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("play", "analyze"))
    parser.add_argument("--out", default="bench/real-models", help="directory for reports, records and timings")
    parser.add_argument("--games", default=",".join(COUNTS), help="comma-separated games (default: all nine, cheap first)")
    parser.add_argument("--models", default=",".join(MODELS), help="two inspect models (default SmolLM2-135M, Gemma-3-270M)")
    parser.add_argument("--counts", default="", help="GAME=N,... games per model (default: the table in this script)")
    parser.add_argument("--markdown", action="store_true", help="analyze: print docs/validity.md's table after the JSON")
    parser.add_argument("pytest_args", nargs="*", help="after --: more pytest arguments for every run")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    counts = {**COUNTS, **{k: int(v) for k, v in (p.split("=") for p in args.counts.split(",") if p)}}
    if args.action == "play":
        play(out, games, models, counts, args.pytest_args)
        return 0
    result = analyze(out, games, models)
    print(json.dumps(result, indent=1))
    if args.markdown:
        print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
