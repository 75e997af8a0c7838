"""`gameeval validity`: does each game tell a stronger scripted player from a weaker one?

For every game we play the evaluated seat with a strong and with a weak scripted policy (every
other seat is the same fixed scripted policy in both arms), alternating arms over the same
sequence of cases and seeds, with no model and no inspect (play.play_case, so it is fast).
After every `look_every` games per arm we test the difference of one per-game measure:
Fisher's exact test for a win/success indicator, Welch's t test for a continuous score.
We stop at the first look whose p-value is below the per-look threshold, or when the arm
budget is spent.

The p-value printed at each look is nominal (that look alone). Because we look repeatedly,
the stopping threshold is Bonferroni-corrected: alpha / (number of planned looks), so the
chance of declaring a separation that is not there is at most alpha over the whole run.
"""

from __future__ import annotations

import asyncio
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

from scipy import stats as scipy_stats

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.metrics.cluster import clustered_mean
from pytest_gameeval.metrics.stats import mean, rate
from pytest_gameeval.players.scripted import scripted_binder

ALPHA = 0.01
MAX_GAMES = 200  # both arms together, per game type (the budget)
LOOK_EVERY = 10  # games per arm between looks


@dataclass(frozen=True)
class Contrast:
    """One game's strong-vs-weak comparison."""

    game: str
    metric: str  # a key of spec.score(record)
    kind: str  # "binary" (Fisher exact) or "continuous" (Welch t)
    strong: dict[str, str]  # model role -> scripted strength
    weak: dict[str, str]
    options: dict[str, Any] = field(default_factory=dict)
    note: str = ""


# The evaluated seat changes strength; every other seat keeps the same policy in both arms.
CONTRASTS: dict[str, Contrast] = {
    "askguess": Contrast(
        "askguess", "ST", "binary",
        {"evaluated": "oracle", "answerer": "oracle"}, {"evaluated": "random", "answerer": "oracle"},
        note="category questioner vs a questioner guessing labels in random order (ST ~0.30 within 30 rounds)"),
    "spyfall": Contrast(
        "spyfall", "evaluated_win", "binary",
        {"evaluated": "strong", "spy": "random"}, {"evaluated": "random", "spy": "random"},
        {"evaluated": "villager"},
        note="villagers voting by description overlap vs random voters, against a random spy"),
    "spygame": Contrast(
        "spygame", "guest_rounds", "continuous",
        {"evaluated": "strong", "host": "strong"}, {"evaluated": "random", "host": "strong"},
        {"guest": "villager"},
        note="villager guest describing its word (strong) vs a content-free describer, among overlap-voting "
             "hosts; the measure is the guest's survived rounds (the win rate is the villagers' joint "
             "result and barely moves with one guest)"),
    "tofukingdom": Contrast(
        "tofukingdom", "win", "binary",
        {"evaluated": "oracle", "queen": "random", "spy": "random"},
        {"evaluated": "random", "queen": "random", "spy": "random"},
        note="prince camp: reasoning prince vs random prince, against random answerers"),
    "spygpt": Contrast(
        "spygpt", "aggressive_margin", "continuous",
        {"evaluated": "oracle", "judge": "oracle"}, {"evaluated": "bad", "judge": "oracle"},
        note="informative describer vs a two-word describer, judged by word overlap"),
    "age": Contrast(
        "age", "age", "continuous",
        {"evaluated": "oracle", "*": "random"}, {"evaluated": "random", "*": "random"},
        note="seat 1 oracle vs random, the other seats random; per-game AGE score of seat 1"),
    "akinator": Contrast(
        "akinator", "win", "binary",
        {"evaluated": "halving", "user": "random"}, {"evaluated": "random", "user": "random"},
        note="questioner halving a known object set vs random questions"),
    "taboo": Contrast(
        "taboo", "win", "binary",
        {"evaluated": "strong", "user": "random"}, {"evaluated": "random", "user": "random"},
        note="strong guesser vs random guesser"),
    "bluffing": Contrast(
        "bluffing", "win", "binary",
        {"evaluated": "random", "user": "random"}, {"evaluated": "evasive", "user": "random"},
        note="coin-flip interrogator (0.5) vs one that never gives a verdict (0); no stronger one exists "
             "because the scripted liar gives no tell"),
}


def _value(spec, record, metric: str) -> float:
    return float(spec.score(record)[metric])


def compare_arms(kind: str, strong: list[float], weak: list[float]) -> float:
    """Two-sided nominal p-value for a difference between the arms."""
    if kind == "binary":
        ks, kw = int(sum(strong)), int(sum(weak))
        table = [[ks, len(strong) - ks], [kw, len(weak) - kw]]
        return float(scipy_stats.fisher_exact(table).pvalue)
    s = [v for v in strong if not math.isnan(v)]
    w = [v for v in weak if not math.isnan(v)]
    if len(s) < 2 or len(w) < 2:
        return 1.0
    if len(set(s)) == 1 and len(set(w)) == 1:  # both arms constant: t is undefined; separated iff they differ
        return 0.0 if s[0] != w[0] else 1.0
    with warnings.catch_warnings():  # one constant arm is fine for Welch; scipy warns about it anyway
        warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        p = scipy_stats.ttest_ind(s, w, equal_var=False).pvalue
    return 1.0 if math.isnan(p) else float(p)


def _finite_pairs(values: list[float], cases: list[str]) -> tuple[list[float], list[str]]:
    kept = [(v, c) for v, c in zip(values, cases) if not math.isnan(v)]
    return [v for v, _ in kept], [c for _, c in kept]


def summary(kind: str, values: list[float]) -> dict[str, Any]:
    if kind == "binary":
        return rate(int(sum(values)), len(values))
    return mean([v for v in values if not math.isnan(v)])


async def _play_arm(spec, rows, options, strengths, index: int, seed: int):
    row = rows[index % len(rows)]
    epoch = index // len(rows)
    # a fresh policy seed per game (one shared seed would make a random policy repeat the same
    # moves in every game); both arms get the same one, so they differ only by strength
    policy_seed = derive_seed("validity", spec.name, index, seed)
    return await play_case(spec, row, epoch, options, scripted_binder(spec, strengths, policy_seed))


def run_contrast(contrast: Contrast, *, max_games: int = MAX_GAMES, look_every: int = LOOK_EVERY,
                 alpha: float = ALPHA, seed: int = 0) -> dict[str, Any]:
    if look_every < 1 or max_games < 2 * look_every:
        raise GameEvalError("validity: need look_every >= 1 and max_games >= 2 * look_every")
    spec = get_spec(contrast.game)
    options = spec.parse_options({**contrast.options, "seed": seed})
    rows = spec.select_rows(options)
    if not rows:
        raise GameEvalError(f"validity: {contrast.game} has no rows")
    per_arm = max_games // 2
    planned_looks = per_arm // look_every
    threshold = alpha / planned_looks
    strong: list[float] = []
    weak: list[float] = []
    cases: list[str] = []  # the row of each game index (the same in both arms)
    looks: list[dict[str, Any]] = []
    p = 1.0
    for look in range(1, planned_looks + 1):
        # both arms play the same cases with the same seeds
        for i in range(len(strong), look * look_every):
            cases.append(rows[i % len(rows)].id)
            strong.append(
                _value(spec, asyncio.run(_play_arm(spec, rows, options, contrast.strong, i, seed)), contrast.metric)
            )
            weak.append(
                _value(spec, asyncio.run(_play_arm(spec, rows, options, contrast.weak, i, seed)), contrast.metric)
            )
        p = compare_arms(contrast.kind, strong, weak)
        looks.append({"games_per_arm": len(strong), "p_nominal": p})
        if p < threshold:
            break
    return {
        "game": contrast.game,
        "metric": contrast.metric,
        "test": "fisher_exact" if contrast.kind == "binary" else "welch_t",
        "strong": contrast.strong,
        "weak": contrast.weak,
        "options": contrast.options,
        "note": contrast.note,
        "strong_summary": summary(contrast.kind, strong),
        "weak_summary": summary(contrast.kind, weak),
        # the same, resampling rows (words/pairs) rather than games, as rows repeat past one epoch
        "strong_clustered_by_row": clustered_mean(*_finite_pairs(strong, cases), seed=seed),
        "weak_clustered_by_row": clustered_mean(*_finite_pairs(weak, cases), seed=seed),
        "games_needed": 2 * len(strong),
        "p_nominal": p,
        "threshold_per_look": threshold,
        "separated": p < threshold,
        "looks": looks,
    }


def run(games: list[str], **kwargs: Any) -> dict[str, Any]:
    unknown = [g for g in games if g not in CONTRASTS]
    if unknown:
        raise GameEvalError(f"validity: unknown game(s) {', '.join(unknown)}; known: {', '.join(sorted(CONTRASTS))}")
    results = [run_contrast(CONTRASTS[g], **kwargs) for g in games]
    return {
        "alpha": kwargs.get("alpha", ALPHA),
        "max_games": kwargs.get("max_games", MAX_GAMES),
        "look_every": kwargs.get("look_every", LOOK_EVERY),
        "correction": "Bonferroni over the planned looks; p_nominal is the p-value of the last look alone",
        "all_separated": all(r["separated"] for r in results),
        "results": results,
    }
