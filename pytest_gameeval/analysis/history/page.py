"""A store's runs as one static HTML page (`gameeval history page`, issue 68): per game a trend chart
(each run's headline with its 95% interval, a green or red triangle where the verdict against the
previous run is better or worse, a dashed break where the game's version, data or rule options
changed and no verdict crosses), then a table of runs (id, name, date, commit, model, gate verdict,
cost) with links to each run's stored files (report, records, and inspect logs where the store has
them).

Self-contained: inline SVG and CSS (the leaderboard's, analysis/report/page_style.py), no script,
no font or file fetched, so it opens from disk and offline. The numbers are `trend()`'s, the same as
`gameeval history compare` prints."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any, Sequence

from pytest_gameeval.analysis.history.store import META, RunStore, StoredRun
from pytest_gameeval.analysis.history.trend import NOT_COMPARED
from pytest_gameeval.analysis.report.page_style import CSS

# the chart's geometry in SVG units: a plot area [LEFT, LEFT + STEP * runs] x [TOP, TOP + HEIGHT]
LEFT, TOP, HEIGHT, STEP, BOTTOM = 48, 16, 180, 90, 56
LOG_SUFFIXES = (".eval", ".json.log")  # inspect logs, where a store holds them beside a run's report


def _y(value: float) -> float:
    """Headlines lie in [0, 1] (docs/headlines.md): 1 at the top."""
    return TOP + HEIGHT * (1 - min(1.0, max(0.0, value)))


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _triangle(x: float, y: float, up: bool) -> str:
    d = -1 if up else 1
    return f"{x - 7:.1f},{y - 14 * d:.1f} {x + 7:.1f},{y - 14 * d:.1f} {x:.1f},{y - 4 * d:.1f}"


def _axis(width: float) -> list[str]:
    out = [f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + HEIGHT}"/>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        out.append(f'<line class="axis" x1="{LEFT - 4}" y1="{y:.1f}" x2="{width}" y2="{y:.1f}" opacity="0.25"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>')
    return out


def _point(i: int, r: dict[str, Any]) -> list[str]:
    e = html.escape
    x = LEFT + STEP * (i + 0.5)
    out = [f'<text x="{x:.1f}" y="{TOP + HEIGHT + 16}" text-anchor="middle">{e(r["name"] or r["run"][:15])}</text>',
           f'<text x="{x:.1f}" y="{TOP + HEIGHT + 30}" text-anchor="middle">v{e(str(r["version"]))}</text>']
    if r["value"] is None:
        return out
    tip = (f"{r['run']} {r['name'] or ''} ({r['model']}): {r['headline']} {_fmt(r['value'])} "
           f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}], n={r['n']}; vs previous: {r['verdict'] or '–'}")
    if r["ci_low"] is not None and r["ci_high"] is not None:
        low, high = _y(r["ci_low"]), _y(r["ci_high"])
        out.append(f'<line class="ci" x1="{x:.1f}" y1="{low:.1f}" x2="{x:.1f}" y2="{high:.1f}"/>')
    out.append(f'<circle class="point" cx="{x:.1f}" cy="{_y(r["value"]):.1f}" r="4"><title>{e(tip)}</title></circle>')
    if r["verdict"] in ("better", "worse"):
        up = r["verdict"] == "better"
        out.append(f'<polygon class="marker {r["verdict"]}" data-run="{e(r["run"])}" '
                   f'points="{_triangle(x, _y(r["value"]), up)}"><title>{e(r["verdict"])} than the previous run'
                   f'</title></polygon>')
    return out


def trend_svg(rows: Sequence[dict[str, Any]]) -> str:
    """One game's chart: a line through each comparable stretch of runs, broken where not compared."""
    width = LEFT + STEP * len(rows) + 8
    parts = _axis(width)
    segment: list[str] = []
    for i, r in enumerate(rows):
        x = LEFT + STEP * (i + 0.5)
        if r["verdict"] == NOT_COMPARED and i > 0:
            parts.append(_polyline(segment))
            segment = []
            parts.append(f'<line class="break" x1="{x - STEP / 2:.1f}" y1="{TOP}" x2="{x - STEP / 2:.1f}" '
                         f'y2="{TOP + HEIGHT}"><title>{html.escape(r["verdict_reason"])}</title></line>')
            parts.append(f'<text x="{x - STEP / 2:.1f}" y="{TOP - 4}" text-anchor="middle">not compared</text>')
        if r["value"] is not None:
            segment.append(f"{x:.1f},{_y(r['value']):.1f}")
        parts += _point(i, r)
    parts.append(_polyline(segment))
    return (f'<svg class="trend" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{TOP + HEIGHT + BOTTOM}" '
            f'role="img">{"".join(p for p in parts if p)}</svg>')


def _polyline(points: list[str]) -> str:
    return f'<polyline class="line" points="{" ".join(points)}"/>' if len(points) > 1 else ""


def _verdict_text(r: dict[str, Any]) -> str:
    if r["verdict"] == NOT_COMPARED:
        return f"not compared ({r['verdict_reason']})"
    if not r["verdict"]:
        return "–"
    return r["verdict"] + (" (paired)" if r["paired"] else " (independent)")


def game_section(game: str, rows: Sequence[dict[str, Any]]) -> str:
    e = html.escape
    headline = rows[-1]["headline"]
    body = "".join(
        f'<tr><td>{e(r["run"])}</td><td>{e(r["name"] or "")}</td><td>{e(str(r["model"]))}</td>'
        f'<td>{e(str(r["version"]))}</td><td><b>{_fmt(r["value"])}</b> <span class="ci">[{_fmt(r["ci_low"])}, '
        f'{_fmt(r["ci_high"])}]</span> <span class="n">n={r["n"]}</span></td>'
        f'<td class="verdict {e(r["verdict"] or "none")}">{e(_verdict_text(r))}</td></tr>'
        for r in rows)
    return (f'<section class="game" id="game-{e(game)}"><h2>{e(game)}: {e(headline)}</h2>{trend_svg(rows)}'
            f'<table class="board trend-table"><thead><tr><th>run</th><th>name</th><th>model</th><th>version</th>'
            f'<th>{e(headline)} [95% CI] n</th><th>vs previous</th></tr></thead><tbody>{body}</tbody></table>'
            f'</section>')


def run_cost(report: dict[str, Any]) -> str:
    cost = report.get("cost") or {}
    value = cost.get("usd")
    if value is None:
        return "not priced"
    return f"${value:.4f}" + (" (some models unpriced)" if cost.get("unpriced") else "")


def file_links(store: RunStore, run: StoredRun, out_dir: Path) -> list[tuple[str, str]]:
    """(label, href) of each file stored with the run: the report, the records, inspect logs."""
    names = [n for n in (run.meta.get("files") or {}) if n != META]
    links = []
    for name in sorted(names, key=lambda n: (n != "report.json", n)):
        where = store.where(run.id, name)
        href = os.path.relpath(where, out_dir) if store.local else where
        label = ("report" if name == "report.json" else "inspect log" if name.endswith(LOG_SUFFIXES)
                 else "records" if name.endswith(".jsonl") else name)
        links.append((label, href))
    return links


def runs_table(store: RunStore, loaded: Sequence[tuple[StoredRun, dict[str, Any]]], out_dir: Path) -> str:
    e = html.escape
    rows = []
    for run, report in reversed(loaded):  # newest first, as `history list` reads top-down
        verdict = (run.meta.get("gate") or {}).get("verdict") or "no gate"
        links = " ".join(f'<a href="{e(href)}">{e(label)}</a>' for label, href in file_links(store, run, out_dir))
        rows.append(f'<tr><td>{e(run.id)}</td><td>{e(run.name)}</td><td>{e(str(run.meta.get("created") or ""))}</td>'
                    f'<td>{e(run.commit)}</td><td>{e(run.model)}</td><td class="{e(verdict.replace(" ", "-"))}">'
                    f'{e(verdict)}</td><td>{e(run_cost(report))}</td><td>{links}</td></tr>')
    return ('<table class="board runs"><thead><tr><th>run</th><th>name</th><th>date</th><th>commit</th><th>model</th>'
            '<th>gate</th><th>cost</th><th>files</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def render_page(store: RunStore, loaded: Sequence[tuple[StoredRun, dict[str, Any]]], result: dict[str, Any],
                out_dir: Path) -> str:
    e = html.escape
    games = sorted({r["game"] for r in result["rows"]})
    sections = "".join(game_section(g, [r for r in result["rows"] if r["game"] == g]) for g in games)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gameeval history: {e(store.label)}</title><style>{CSS}</style></head>
<body><h1>gameeval history</h1>
<p class="note">{len(loaded)} stored runs in <code>{e(store.label)}</code>, oldest left. Per game: each run's
headline with its 95% interval; a green triangle where a run is better than the previous run of the game, a
red one where it is worse (<code>gameeval report diff</code>'s verdict, paired where both played the same
cases, alpha={result["alpha"]:g}, tolerance {result["tolerance"]:g}); a dashed line where the game's
version, data or rule options changed: no verdict crosses it.</p>
<p class="note">{e(result["false_alarm"])}</p>
{sections}
<h2>Runs</h2>
{runs_table(store, loaded, out_dir)}
</body></html>
"""
