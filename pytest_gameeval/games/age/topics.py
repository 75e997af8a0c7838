"""AGE experiment §4.2's table and heatmap (`gameeval age-topics`, cli/age_topics.py): the mean
AGE of the evaluated seat per model and topic list, with intervals, the macro average over the
lists and Welch tests between models; drawn as a heatmap."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.files import save_figure, write_text
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.age import TOPICS, metrics
from pytest_gameeval.metrics.stats import mean


def topic_table(records: list[GameRecord]) -> dict[str, Any]:
    """Mean AGE of the evaluated seat (slot 1) per model and list, and the macro over lists."""
    cells: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    adversaries: set[str] = set()
    for rec in records:
        adversaries.update(s["model"] for s in rec.seats if s["private"].get("slot") != metrics.EVALUATED_SLOT)
        for row in metrics.player_scores(rec):
            if row["slot"] == metrics.EVALUATED_SLOT:
                cells[row["model"]][row["list"]].append(row["age"])
    models = sorted(cells)
    topics = [t for t in TOPICS if any(t in cells[m] for m in models)]
    topics += sorted({t for m in models for t in cells[m]} - set(topics))
    table = {m: {t: mean(cells[m].get(t, [])) for t in topics} for m in models}
    macro = {m: mean([c["value"] for c in table[m].values() if c["value"] is not None]) for m in models}
    pooled = {m: [x for xs in cells[m].values() for x in xs] for m in models}
    return {
        "metric": "AGE score of the evaluated seat (slot 1); cell = mean over games of that list, "
                  "macro = unweighted mean of the list means; Student-t 95% intervals",
        "models": models, "adversary": sorted(adversaries), "topics": topics, "table": table, "macro": macro,
        "welch_age": metrics.welch_tests(pooled),
        "games": len(records), "chat_error_games": sum(r.label == "CE" for r in records),
    }


def write_heatmap(result: dict[str, Any], path: Path) -> None:
    """Mean AGE per model (rows) and topic list (columns), with 95% interval and games per cell."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    models, topics = result["models"], result["topics"] + ["macro"]
    cells = [[result["table"][m].get(t) if t != "macro" else result["macro"][m] for t in topics] for m in models]
    values = np.array([[_value(c) for c in row] for row in cells], dtype=float)
    fig, ax = plt.subplots(figsize=(1.3 * len(topics) + 3.5, 0.9 * len(models) + 2.6))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(topics)), labels=topics, rotation=45, ha="right")
    ax.set_yticks(range(len(models)), labels=models)
    ax.set_xlabel("topic list (macro: unweighted mean of the lists)")
    ax.set_ylabel("evaluated model (seat 1)")
    for i in range(len(models)):
        for j in range(len(topics)):
            ax.text(j, i, _cell_text(cells[i][j], topics[j] == "macro"), ha="center", va="center", fontsize=7,
                    color="white" if np.isnan(values[i, j]) or values[i, j] < 0.6 else "black")
    ax.axvline(len(topics) - 1.5, color="white", linewidth=2)
    adversary = ", ".join(result.get("adversary", [])) or "unknown"
    ax.set_title(f"AGE score of the evaluated model per topic\nevery other seat played by: {adversary}", fontsize=10)
    fig.colorbar(image, ax=ax, label="mean AGE score")
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def _cell_text(cell: dict[str, Any] | None, macro: bool) -> str:
    if cell is None or cell["value"] is None:
        return "no games"
    lo, hi = cell["ci"]
    interval = "" if lo is None else f"\n[{lo:.2f}, {hi:.2f}]"
    return f"{cell['value']:.2f}{interval}\n{'lists' if macro else 'games'}={cell['n']}"


def _value(cell: dict[str, Any] | None) -> float:
    return float("nan") if cell is None or cell["value"] is None else float(cell["value"])


def write_outputs(result: dict[str, Any], out: Path) -> tuple[Path, Path]:
    json_path, png_path = out / "age_topics.json", out / "age_topics.png"
    write_text(json_path, json.dumps(result, indent=2) + "\n")
    write_heatmap(result, png_path)
    return json_path, png_path
