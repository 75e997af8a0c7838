"""SpyGPT description judging (Liang et al. 2023)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.data import load_jsonl
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.matching import squash
from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row
from pytest_gameeval.games.spygpt.rules import MODES, OUTCOMES, SpyGPTGame, SpyGPTOptions
from pytest_gameeval.games.spygpt.scripted import POLICIES
from pytest_gameeval.metrics.headline import KEYS as HEADLINE_KEYS


def load_targets(path: Path) -> list[dict[str, Any]]:
    rows = load_jsonl(path, {"id": str, "target": str, "distractors": list}, unique="id")
    for r in rows:
        words = [r["target"], *r["distractors"]]
        if not r["distractors"] or not all(isinstance(w, str) and w.strip() for w in words):
            raise GameEvalError(f"{path}: target {r['id']!r} needs a word and non-empty distractor words")
        if len({squash(w) for w in words}) != len(words):
            raise GameEvalError(f"{path}: target {r['id']!r} repeats a word among its distractors")
    return rows


class SpyGPTSpec(GameSpec):
    name = "spygpt"
    title = "SpyGPT"
    data_file = "targets.jsonl"
    options_class = SpyGPTOptions
    model_roles = {"describer": EVALUATED, "judge": "judge"}
    outcome_labels = OUTCOMES
    outcome_names = {"judged": "described and judged", "no_description": "the describer gave no valid description"}
    mean_keys = tuple(f"{m}_{k}" for m in MODES for k in ("target", "distractor", "margin")) + (
        "unparsed_judgements", "description_words", *HEADLINE_KEYS)
    binary_keys = ("played",)
    scripted = POLICIES

    def rows(self, options: SpyGPTOptions) -> list[Row]:
        targets = load_targets(self.data_path(options))
        if options.targets:
            wanted = options.targets
            unknown = sorted(set(wanted) - {t["id"] for t in targets})
            if unknown:
                raise GameEvalError(f"spygpt: unknown target id(s) {', '.join(unknown)}")
            targets = [t for t in targets if t["id"] in wanted]
        modes = MODES if options.mode == "both" else (options.mode,)
        return [Row(f"{mode}-{t['id']}", {**t, "mode": mode}) for mode in modes for t in targets]

    def new_game(self, row: Row, rng: random.Random, options: SpyGPTOptions) -> SpyGPTGame:
        return SpyGPTGame(row.data, rng, options)


SPEC = SpyGPTSpec()
