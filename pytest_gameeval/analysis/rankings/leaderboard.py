"""`gameeval leaderboard LOGS_OR_REPORTS...`: one static page comparing models across games.

Reads what users already have — inspect logs (files or directories) and our report JSON — and
writes `leaderboard.html` (a sortable table, no server, sorting is a few lines of our own JS and
the rows are already in rating order without it) and `leaderboard.md` (the same table).

Rows are evaluated models, columns games, one column per version of a game (docs/versions.md): runs
of two versions of a game measured different games, so they share no cell and no rating.
A cell is the game's headline (its declared
`spec.headline`) over every game that model played: the value, its 95% interval (Wilson for 0/1
values, Student-t otherwise) and the games played, linked to the logs it came from.

The cross-game rating is each model's share of the other models it beats on a game's headline
(ties count half), averaged over the games it played with at least one other model. Its 95%
interval is a percentile bootstrap over each cell's games (a rate cell draws from its Jeffreys
posterior, so a cell of few games stays uncertain even when all of them went one way); models
whose intervals overlap are printed as tied (`metrics.ratings.tiers`).
"""

from __future__ import annotations

import html
import math
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from pytest_gameeval.analysis.cost.prices import usd
from pytest_gameeval.analysis.report.file import UNKNOWN_VERSION, game_version, read_report
from pytest_gameeval.analysis.report.page_style import CSS
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.untrusted_json import parse
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.metrics.ratings import ranking_text, tiers
from pytest_gameeval.metrics.stats import mean, rate

RECORD_SCORER = "gameeval_{game}"  # the scorer name inspect_ext/scorer.py registers per game
COST_KEY = "cost_usd"  # its score of a game's cost (inspect_ext/scorer.py), read from the log as data
DEFAULT_VIEW_URL = "http://127.0.0.1:7575/"  # `inspect view`'s default address


@dataclass
class Source:
    """Where a cell's games came from: a log (with its `inspect view` address) or a report."""

    label: str
    path: Path
    view: str | None = None  # the log's path as `inspect view --log-dir ROOT` names it


@dataclass
class Cell:
    values: list[float] = field(default_factory=list)  # the headline, one value per game
    sources: list[Source] = field(default_factory=list)
    costs: list[float] = field(default_factory=list)  # USD of each priced game (report cost, inspect's cost_usd)

    def summary(self) -> dict[str, Any]:
        binary = all(v in (0.0, 1.0) for v in self.values)
        if binary:
            return rate(int(sum(self.values)), len(self.values))
        summary = mean(self.values)
        if all(0.0 <= v <= 1.0 for v in self.values) and summary["ci"][0] is not None:
            # every headline lies in [0, 1]: a t interval over a few games can leave it (Taboo 0.96
            # [0.78, 1.14] over 3 games), so it is shown inside the bounds of what it estimates
            summary["ci"] = [max(summary["ci"][0], 0.0), min(summary["ci"][1], 1.0)]
            summary["method"] = "t, clipped to [0, 1]"
        return summary


@dataclass
class Board:
    cells: dict[tuple[str, str], Cell] = field(default_factory=lambda: defaultdict(Cell))
    skipped: list[str] = field(default_factory=list)  # inputs read but not used, with why

    @property
    def models(self) -> list[str]:
        return sorted({m for m, _ in self.cells})

    @property
    def games(self) -> list[str]:
        """The columns: `GAME@VERSION`, in the registry's order, then by version."""
        present = {c for _, c in self.cells}
        return sorted(present, key=lambda c: (list(GAMES).index(game_of(c)), version_of(c)))


def column(game: str, version: str) -> str:
    return f"{game}@{version}"


def game_of(col: str) -> str:
    return col.split("@", 1)[0]


def version_of(col: str) -> str:
    return col.split("@", 1)[1] if "@" in col else UNKNOWN_VERSION


def headline(game: str) -> str:
    return get_spec(game_of(game)).headline


def higher_is_better(game: str) -> bool:
    return get_spec(game_of(game)).higher_is_better.get(headline(game), True)


def _number(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


# -- reading ------------------------------------------------------------------------------------
def add_log(board: Board, path: Path, root: Path) -> bool:
    """The headline of every sample of one inspect log; False if it is not a gameeval log."""
    from inspect_ai.log import read_eval_log, read_eval_log_samples

    header = read_eval_log(str(path), header_only=True)
    game = (header.eval.metadata or {}).get("gameeval_game")
    if game not in GAMES:
        return False
    if header.status != "success":
        board.skipped.append(f"{path}: status {header.status}, not used")
        return True
    key, scorer = headline(game), RECORD_SCORER.format(game=game)
    version = str((header.eval.metadata or {}).get("gameeval_version") or UNKNOWN_VERSION)
    cell = board.cells[(header.eval.model, column(game, version))]
    before = len(cell.values)
    for sample in read_eval_log_samples(str(path), all_samples_required=False):
        score = (sample.scores or {}).get(scorer)
        value = _number(score.value.get(key)) if score is not None and isinstance(score.value, dict) else None
        if value is not None:  # undefined for this game (e.g. a mean over no success): not a game of the headline
            cell.values.append(value)
        cost = _number(score.value.get(COST_KEY)) if score is not None and isinstance(score.value, dict) else None
        if cost is not None:  # priced by inspect (--model-cost-config)
            cell.costs.append(cost)
    if len(cell.values) > before:
        cell.sources.append(
            Source(path.name, path, str(path.relative_to(root)) if path.is_relative_to(root) else path.name)
        )
    return True


def add_report(board: Board, path: Path, report: dict[str, Any]) -> None:
    """The headline of every played case of a report written by the pytest plugin."""
    model = (report.get("models") or {}).get("evaluated") or "?"
    for game in report.get("games") or {}:
        if game not in GAMES:
            board.skipped.append(f"{path}: unknown game {game!r}, not used")
            continue
        key = headline(game)
        played = [c for c in report.get("cases") or [] if c.get("game") == game and c.get("status") == "played"]
        values = [v for v in (_number((c.get("scores") or {}).get(key)) for c in played) if v is not None]
        if values:
            cell = board.cells[(model, column(game, game_version(report["games"][game])))]
            cell.values.extend(values)
            cell.sources.append(Source(path.name, path))
            # a report written with a price table: each priced game's cost (an unpriced one has none)
            cell.costs.extend(v for v in (_number((c.get("cost") or {}).get("usd")) for c in played) if v is not None)


def _is_report(path: Path) -> dict[str, Any] | None:
    try:
        data = parse(path.read_bytes())  # any JSON: read_report then names what is wrong with it
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and str(data.get("schema", "")).startswith("pytest-gameeval/report") else None


def read_inputs(paths: Iterable[str | Path]) -> Board:
    """Every gameeval log and report under the given files and directories."""
    board = Board()
    for given in map(Path, paths):
        if not given.exists():
            raise GameEvalError(f"{given}: no such file or directory")
        root = given if given.is_dir() else given.parent
        files = sorted(p for p in given.rglob("*") if p.is_file()) if given.is_dir() else [given]
        for path in files:
            if path.suffix == ".eval" or (path.suffix == ".json" and _looks_like_log(path)):
                add_log(board, path, root)
            elif path.suffix == ".json" and _is_report(path) is not None:
                add_report(board, path, read_report(path))  # checked whole: values, its records
            elif not given.is_dir():
                raise GameEvalError(f"{path}: neither an inspect log (.eval, .json) nor a gameeval report")
    if not board.cells:
        raise GameEvalError(
            "no gameeval games in " + ", ".join(map(str, paths)) + " (give inspect logs or report JSON)"
        )
    return board


def _looks_like_log(path: Path) -> bool:
    """An inspect log written as JSON (`--log-format json`) starts with its version and status."""
    try:
        with path.open(encoding="utf-8") as f:
            head = f.read(200)
    except (OSError, UnicodeDecodeError):
        return False
    return '"version"' in head and '"status"' in head and '"eval"' in head


# -- the rating ----------------------------------------------------------------------------------
def _shares(headlines: dict[tuple[str, str], float], models: list[str], games: list[str]) -> dict[str, float | None]:
    """Each model's share of the other models it beats on a game's headline (ties half), averaged
    over the games it played with at least one other model."""
    per_model: dict[str, list[float]] = defaultdict(list)
    for game in games:
        sign = 1.0 if higher_is_better(game) else -1.0
        here = {m: sign * headlines[(m, game)] for m in models if (m, game) in headlines}
        if len(here) < 2:
            continue
        for m, v in here.items():
            others = [o for o in here if o != m]
            per_model[m].append(sum(1.0 if v > here[o] else 0.5 if v == here[o] else 0.0 for o in others) / len(others))
    return {m: (sum(per_model[m]) / len(per_model[m]) if per_model[m] else None) for m in models}


def _redraw(values: np.ndarray, rng: np.random.Generator) -> float:
    """One bootstrap draw of a cell's headline. 0/1 games draw their rate from its Jeffreys
    posterior Beta(k + 1/2, n - k + 1/2): resampling 0 wins of 8 games gives 0 every time, which
    would make a 0/8 cell as certain as a 0/800 one and order models the games cannot order."""
    if np.isin(values, (0.0, 1.0)).all():
        k = float(values.sum())
        return float(rng.beta(k + 0.5, len(values) - k + 0.5))
    return float(rng.choice(values, size=len(values)).mean())


def rating(board: Board, *, n_resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    models, games = board.models, board.games
    point = _shares({k: float(np.mean(c.values)) for k, c in board.cells.items()}, models, games)
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = defaultdict(list)
    arrays = {k: np.asarray(c.values, dtype=float) for k, c in board.cells.items()}
    for _ in range(n_resamples):
        resampled = {k: _redraw(v, rng) for k, v in arrays.items()}
        for m, share in _shares(resampled, models, games).items():
            if share is not None:
                draws[m].append(share)
    ratings = {}
    for m in models:
        ci = [float(np.percentile(draws[m], 2.5)), float(np.percentile(draws[m], 97.5))] if draws[m] else [None, None]
        games_rated = sum(
            1 for g in games if (m, g) in board.cells and sum(1 for o in models if (o, g) in board.cells) > 1
        )
        ratings[m] = {"rating": point[m], "ci": ci, "games_rated": games_rated}
    rated = {"ratings": {m: r for m, r in ratings.items() if r["rating"] is not None}}
    groups = tiers(rated)
    return {
        "method": "share of other models beaten on each game's headline (ties half), averaged over games; "
        f"95% percentile bootstrap over each cell's games, rates drawn from their Jeffreys posterior ({n_resamples} "
        f"resamples, seed {seed})",
        "ratings": ratings,
        "tiers": groups,
        "ranking": ranking_text(groups),
    }


def build(board: Board, *, n_resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The leaderboard as data: rows in rating order (unrated models last)."""
    r = rating(board, n_resamples=n_resamples, seed=seed)
    order = sorted(
        board.models, key=lambda m: (r["ratings"][m]["rating"] is None, -(r["ratings"][m]["rating"] or 0), m)
    )
    games = board.games
    rows = []
    for m in order:
        cells = {}
        for g in games:
            cell = board.cells.get((m, g))
            if cell is not None:
                cells[g] = {**cell.summary(), "games": len(cell.values), "games_priced": len(cell.costs),
                            "cost_per_game": sum(cell.costs) / len(cell.costs) if cell.costs else None,
                            "sources": [{"label": s.label, "path": str(s.path), "view": s.view} for s in cell.sources]}
        rows.append({"model": m, "rating": r["ratings"][m], "cells": cells})
    versions: dict[str, list[str]] = defaultdict(list)
    for g in games:
        versions[game_of(g)].append(version_of(g))
    columns = [
        {
            "game": g,
            "name": game_of(g),
            "version": version_of(g),
            "title": _title(g, len(versions[game_of(g)]) > 1),
            "headline": headline(g),
            "direction": "higher" if higher_is_better(g) else "lower",
        }
        for g in games
    ]
    return {"schema": 1, "columns": columns, "rows": rows, "rating": {k: v for k, v in r.items() if k != "ratings"},
            "skipped": board.skipped}


def _title(col: str, several: bool) -> str:
    """A column's heading: the game's title and its version (marked when another version is beside it)."""
    version = version_of(col)
    label = "unknown version" if version == UNKNOWN_VERSION else f"version {version}"
    return f"{get_spec(game_of(col)).title} ({label}{', not comparable with the other' if several else ''})"


# -- writing -------------------------------------------------------------------------------------
def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def cell_text(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "not played"
    low, high = cell["ci"]
    interval = f" [{_fmt(low)}, {_fmt(high)}]" if low is not None else " [no interval]"
    return f"{_fmt(cell['value'])}{interval} (n={cell['games']}){cost_text(cell)}"


def cost_text(cell: dict[str, Any]) -> str:
    """", $X a game" where the games were priced (over the priced ones), else ""."""
    if cell.get("cost_per_game") is None:
        return ""
    some = f" over {cell['games_priced']} priced" if cell["games_priced"] != cell["games"] else ""
    return f", {usd(cell['cost_per_game'])} a game{some}"


def rating_text(r: dict[str, Any]) -> str:
    if r["rating"] is None:
        return "not rated (no game shared with another model)"
    low, high = r["ci"]
    games = r["games_rated"]
    return f"{_fmt(r['rating'])} [{_fmt(low)}, {_fmt(high)}] ({games} game{'' if games == 1 else 's'})"


def render_markdown(board: dict[str, Any]) -> str:
    cols = board["columns"]
    head = ["model", "rating"] + [f"{c['title']} ({c['headline']}, {c['direction']} is better)" for c in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in board["rows"]:
        cells = [row["model"], rating_text(row["rating"])] + [cell_text(row["cells"].get(c["game"])) for c in cols]
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    return "\n".join([
        "# Leaderboard", "",
        "Each cell: the game's headline, its 95% interval and the games played (n), and what a game cost where "
        "the games were priced. "
        "Rating: " + board["rating"]["method"] + ".", "",
        f"Ranking as far as the rating intervals allow: {board['rating']['ranking']}", "",
        *lines, "",
    ])


SORT_JS = """
document.querySelectorAll("table.board th[data-col]").forEach(function (th) {
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0], col = +th.dataset.col;
    var down = th.dataset.dir !== "down"; th.dataset.dir = down ? "down" : "up";
    var key = function (tr) {
      var v = tr.cells[col].dataset.sort; return v === undefined ? tr.cells[col].textContent : +v;
    };
    Array.from(body.rows).sort(function (a, b) {
      var x = key(a), y = key(b);
      if (typeof x === "string") { return down ? x.localeCompare(y) : y.localeCompare(x); }
      return down ? y - x : x - y;
    }).forEach(function (tr) { body.appendChild(tr); });
  });
});
"""


def _link(source: dict[str, Any], view_url: str, out_dir: Path) -> str:
    if source["view"]:
        return f"{view_url.rstrip('/')}/#/logs/{source['view']}"
    return os.path.relpath(source["path"], out_dir)


def _sort_value(x: float | None, higher_better: bool) -> str:
    """A number the JS sorts descending = best first; missing cells always sort last."""
    if x is None:
        return "-1e300"
    return repr(x if higher_better else -x)


def render_html(board: dict[str, Any], view_url: str, out_dir: Path) -> str:
    e = html.escape
    cols = board["columns"]
    head = ['<th data-col="0">model</th>', '<th data-col="1">rating</th>'] + [
        f'<th data-col="{i + 2}" title="headline: {e(c["headline"])}, {c["direction"]} is better">{e(c["title"])}'
        f'<br><span class="ci">{e(c["headline"])} ({c["direction"]} is better)</span></th>'
        for i, c in enumerate(cols)]
    body = []
    for row in board["rows"]:
        r = row["rating"]
        tds = [f"<td>{e(row['model'])}</td>",
               f'<td data-sort="{_sort_value(r["rating"], True)}">{e(rating_text(r))}</td>']
        for c in cols:
            cell = row["cells"].get(c["game"])
            if cell is None:
                tds.append(f'<td class="missing" data-sort="{_sort_value(None, True)}">not played</td>')
                continue
            low, high = cell["ci"]
            links = " ".join(f'<a href="{e(_link(s, view_url, out_dir))}" title="{e(s["label"])}">log {k + 1}</a>'
                             for k, s in enumerate(cell["sources"]))
            interval = f"[{_fmt(low)}, {_fmt(high)}]" if low is not None else "[no interval]"
            tds.append(f'<td data-sort="{_sort_value(cell["value"], c["direction"] == "higher")}">'
                       f'<b>{_fmt(cell["value"])}</b> <span class="ci">{interval}</span> '
                       f'<span class="n">n={cell["games"]}{e(cost_text(cell))}</span><br>{links}</td>')
        body.append("<tr>" + "".join(tds) + "</tr>")
    skipped = "".join(f"<li>{e(s)}</li>" for s in board["skipped"])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gameeval leaderboard</title><style>{CSS}</style></head>
<body><h1>gameeval leaderboard</h1>
<p class="note">Each cell: the game's headline over every game the model played, its 95% interval and the number
of games (n); "log" links open the game's log in <code>inspect view</code> (start
<code>inspect view --log-dir DIR</code> on the directory given to <code>gameeval leaderboard</code>;
address {e(view_url)}) or the report file.
Rating: {e(board["rating"]["method"])}. Click a column heading to sort.</p>
<p class="note">Ranking as far as the rating intervals allow: <b>{e(board["rating"]["ranking"])}</b></p>
<table class="board"><thead><tr>{"".join(head)}</tr></thead>
<tbody>
{chr(10).join(body)}
</tbody></table>
{f"<p class='note'>Inputs not used:</p><ul>{skipped}</ul>" if skipped else ""}
<script>{SORT_JS}</script>
</body></html>
"""
