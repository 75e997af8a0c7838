"""A PNG trend per game: stored runs on the x axis (oldest left), the headline with its 95%
interval, each verdict against the previous run marked (worse: red down triangle, better: green
up triangle), and a dotted line where the game's version changed (no verdict crosses it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_gameeval.analysis.history.trend import NOT_COMPARED
from pytest_gameeval.engine.safe_io import save_figure

_MARKS = {"worse": ("v", "tab:red"), "better": ("^", "tab:green")}


def _short(model: str, width: int = 28) -> str:
    return model if len(model) <= width else "…" + model[-(width - 1):]


def plot_game(result: dict[str, Any], game: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in result["rows"] if r["game"] == game]
    xs = list(range(len(rows)))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(rows) + 2), 3.8))
    for x, r in zip(xs, rows):
        if r["value"] is None:
            continue
        low = r["value"] - r["ci_low"] if r["ci_low"] is not None else 0
        high = r["ci_high"] - r["value"] if r["ci_high"] is not None else 0
        ax.errorbar([x], [r["value"]], yerr=[[low], [high]], fmt="o", color="tab:blue", capsize=4)
        marker = _MARKS.get(r["verdict"])
        if marker:
            ax.scatter([x], [r["value"]], marker=marker[0], s=160, color=marker[1], zorder=3,
                       label=f"{r['verdict']} than the previous run")
        if r["verdict"] == NOT_COMPARED and x > 0:
            ax.axvline(x - 0.5, linestyle=":", color="gray")
            ax.annotate("not compared", (x - 0.5, 1.0), xycoords=("data", "axes fraction"), fontsize=7,
                        ha="center", va="bottom", color="gray")
    values = [r["value"] for r in rows if r["value"] is not None]
    ax.plot([x for x, r in zip(xs, rows) if r["value"] is not None], values, color="tab:blue", alpha=0.4)
    ax.set_xticks(xs, [f"{r['name'] or r['run'][:15]}\n{_short(str(r['model']))}\nv{r['version']}" for r in rows],
                  fontsize=7)
    ax.set_ylabel(f"{rows[-1]['headline']} (95% CI)")
    ax.set_title(f"{game}: {rows[-1]['headline']} across stored runs ({result['comparisons']} comparisons in the "
                 "table)", fontsize=9)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    if unique:
        ax.legend(unique.values(), unique.keys(), fontsize=7, loc="best")
    fig.tight_layout()
    return save_figure(fig, path)
