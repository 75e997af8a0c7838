"""GameArena metrics (Akinator, Taboo, Bluffing): pure functions over GameRecords.

Outcome: win rate (Wilson) and rounds (Student t). Retrospective (only for games played with
``retrospective=true``; read from the record-only probe events, see games/arena/rules.py):

- ranked lists (Akinator, Taboo), over a game's successfully parsed lists:
  recall = share of lists containing the target (an item matches when it names the target or
  an alias as a whole word, plural-aware); top5 / top10 = share of lists with the target at rank
  <= 5 / <= 10; first_appear = round of the first list containing the target (undefined if
  none does); final_rank = 1-based rank of the target in the last parsed list (undefined when
  absent; the share of games whose last list holds the target is reported beside it).
- disparity (Akinator, ours): for each new yes/no question after a probed round, the judge
  (user seat) classifies the previous list; |n_yes - n_no| / (n_yes + n_no) over the
  candidates it classified Yes or No. 0 = an even split (most information), 1 = no split.
- truth levels (Bluffing, ours): True=+2, Possibly true=+1, Unknown=0, Possibly false=-1,
  False=-2; the truth is +2 (true statement) or -2 (false). distance_t = |p_t - truth| (0..4).
  spearman = Spearman's rho between round and distance_t (negative: converging; undefined with
  fewer than 2 predictions or a constant sequence); hopping = sum |p_t - p_(t-1)| (ours,
  unnormalised; it also grows with steady convergence); hopping_rate = the share of consecutive
  predictions that move away from the truth, #{t: distance_t > distance_(t-1)} / (T - 1), in
  0..1 (0 for steady convergence; undefined with fewer than 2 predictions), our reading of the
  paper's normalised hopping penalty. Two readings of the paper's recall rate, side by side:
  recall_paper = the share of predictions exactly at the truth's end of the scale (True for a
  true statement, False for a false one): the reading that fits the paper's Table 3 (a row with
  recall 0.00 and a mean final rank of 1.53); truth_side_share (ours) = the share of predictions
  on the truth's side (Possibly true counts for a true statement; Unknown is never on a side);
  first_correct_side = first round with sign(p_t) = sign(truth); final_distance = distance of
  the last prediction.
Failed probes are excluded from these and counted as probe_failures (a probe's own format
errors, never the game's).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Sequence

from scipy import stats as sps

from pytest_gameeval.engine.matching import WordMatcher
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.metrics.stats import mean, outcome_rates, rate

NAN = float("nan")
RETRO, CLASSIFY = "retrospective", "classify"
RANKED_KEYS = ("rounds", "rounds_win", "recall", "top5", "top10", "first_appear", "final_rank", "probe_failures")
RANKED_DIRECTIONS = {
    "recall": True,
    "top5": True,
    "top10": True,
    "first_appear": False,
    "final_rank": False,
    "probe_failures": False,
}
BELIEF_METRICS = (
    "recall_paper",
    "truth_side_share",
    "spearman",
    "hopping",
    "hopping_rate",
    "first_correct_side",
    "final_distance",
)
BELIEF_KEYS = ("rounds", "rounds_win", *BELIEF_METRICS, "probe_failures")
BELIEF_DIRECTIONS = {
    "recall_paper": True,
    "truth_side_share": True,
    "spearman": False,
    "hopping": False,
    "hopping_rate": False,
    "first_correct_side": False,
    "final_distance": False,
    "probe_failures": False,
}
LEVELS = {"True": 2, "Possibly true": 1, "Unknown": 0, "Possibly false": -1, "False": -2}


# -- reading the record ----------------------------------------------------------------

def _probes(record: GameRecord, probe: str) -> list[Any]:
    return [e for e in record.events if e.kind == "action" and e.data.get("probe") == probe and "ok" in e.data]


def probe_failures(record: GameRecord) -> int:
    return sum(1 for p in (RETRO, CLASSIFY) for e in _probes(record, p) if not e.data["ok"])


def ranked_lists(record: GameRecord) -> list[tuple[int, list[str]]]:
    """(round, items) of every successfully parsed retrospective list, in order."""
    return [(e.round, list(e.data["items"])) for e in _probes(record, RETRO) if e.data["ok"] and "items" in e.data]


def belief_levels(record: GameRecord) -> list[tuple[int, int]]:
    """(round, level) of every successfully parsed Bluffing probe, in order."""
    return [(e.round, LEVELS[e.data["level"]]) for e in _probes(record, RETRO) if e.data["ok"] and "level" in e.data]


def disparities(record: GameRecord) -> list[float]:
    return [float(e.data["disparity"]) for e in _probes(record, CLASSIFY) if e.data["ok"]]


def target_rank(items: Sequence[str], target: str, aliases: Sequence[str] = ()) -> int | None:
    """1-based rank of the first item naming the target (or an alias), None if absent."""
    matcher = WordMatcher(target, tuple(aliases))
    return next((i for i, item in enumerate(items, start=1) if matcher.mentioned_in(item)), None)


# -- per-game values -----------------------------------------------------------------------

def ranked_metrics(lists: list[tuple[int, list[str]]], target: str, aliases: Sequence[str] = ()) -> dict[str, float]:
    if not lists:
        return {k: NAN for k in ("recall", "top5", "top10", "first_appear", "final_rank", "final_present")}
    ranks = [target_rank(items, target, aliases) for _, items in lists]
    present = [r is not None for r in ranks]
    first = next((rnd for (rnd, _), p in zip(lists, present) if p), None)
    return {
        "recall": sum(present) / len(ranks),
        "top5": sum(1 for r in ranks if r is not None and r <= 5) / len(ranks),
        "top10": sum(1 for r in ranks if r is not None and r <= 10) / len(ranks),
        "first_appear": float(first) if first is not None else NAN,
        "final_rank": float(ranks[-1]) if ranks[-1] is not None else NAN,
        "final_present": float(present[-1]),
    }


def spearman_consistency(rounds: Sequence[int], distances: Sequence[float]) -> float:
    """Spearman's rho between round and distance from the truth; NaN where undefined."""
    if len(distances) < 2 or len(set(distances)) < 2 or len(set(rounds)) < 2:
        return NAN
    return float(sps.spearmanr(rounds, distances).statistic)


def hopping(levels: Sequence[int]) -> float:
    """Sum of |p_t - p_(t-1)| over consecutive predictions on the 5-level scale."""
    return float(sum(abs(b - a) for a, b in zip(levels, levels[1:])))


def hopping_rate(distances: Sequence[float]) -> float:
    """Share of consecutive predictions that move away from the truth; NaN with fewer than 2."""
    if len(distances) < 2:
        return NAN
    return sum(1 for a, b in zip(distances, distances[1:]) if b > a) / (len(distances) - 1)


def belief_metrics(sequence: list[tuple[int, int]], truth: bool) -> dict[str, float]:
    if not sequence:
        return {k: NAN for k in BELIEF_METRICS}
    target = LEVELS["True"] if truth else LEVELS["False"]
    rounds = [r for r, _ in sequence]
    levels = [p for _, p in sequence]
    distances = [abs(p - target) for p in levels]
    first = next((r for r, p in sequence if p * target > 0), None)
    return {
        "recall_paper": sum(1 for p in levels if p == target) / len(levels),
        "truth_side_share": sum(1 for p in levels if p * target > 0) / len(levels),
        "spearman": spearman_consistency(rounds, distances),
        "hopping": hopping(levels),
        "hopping_rate": hopping_rate(distances),
        "first_correct_side": float(first) if first is not None else NAN,
        "final_distance": float(distances[-1]),
    }


def is_win(record: GameRecord, wins: Sequence[str] = ("win",)) -> bool:
    return record.label in wins


def score(record: GameRecord, outcomes: Sequence[str], wins: Sequence[str] = ("win",)) -> dict[str, float]:
    """Numbers only (one-hot outcomes, NaN where undefined), for inspect's scorer."""
    details = record.outcome["details"]
    values = {label: float(record.label == label) for label in outcomes}
    values["win"] = float(is_win(record, wins))
    values["rounds"] = float(details.get("rounds", NAN))
    values["rounds_win"] = values["rounds"] if values["win"] else NAN
    values["probe_failures"] = float(probe_failures(record))
    if "truth" in details:
        values.update(belief_metrics(belief_levels(record), bool(details["truth"])))
    else:
        ranked = ranked_metrics(ranked_lists(record), details["target"], details.get("aliases", ()))
        ranked.pop("final_present")
        values.update(ranked)
        d = disparities(record)
        values["disparity"] = sum(d) / len(d) if d else NAN
    return values


# -- over many games --------------------------------------------------------------------

def _defined(values: list[float]) -> list[float]:
    return [v for v in values if not math.isnan(v)]


def _retro_summary(records: list[GameRecord]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    probes = [e for r in records for p in (RETRO, CLASSIFY) for e in _probes(r, p)]
    out["probe_failure_rate"] = rate(sum(1 for e in probes if not e.data["ok"]), len(probes))
    if any("truth" in r.outcome["details"] for r in records):
        per = [belief_metrics(belief_levels(r), bool(r.outcome["details"]["truth"])) for r in records]
        for key in BELIEF_METRICS:
            out[key] = mean(_defined([p[key] for p in per]))
        with_beliefs = [p for p in per if not math.isnan(p["hopping"])]
        out["reached_correct_side"] = rate(
            sum(1 for p in with_beliefs if not math.isnan(p["first_correct_side"])), len(with_beliefs)
        )
        return out
    per = [
        ranked_metrics(ranked_lists(r), r.outcome["details"]["target"], r.outcome["details"].get("aliases", ()))
        for r in records
    ]
    for key in ("recall", "top5", "top10", "first_appear", "final_rank"):
        out[key] = mean(_defined([p[key] for p in per]))
    with_lists = [p for p in per if not math.isnan(p["recall"])]
    out["ever_listed"] = rate(sum(1 for p in with_lists if not math.isnan(p["first_appear"])), len(with_lists))
    out["final_listed"] = rate(sum(1 for p in with_lists if p["final_present"] == 1.0), len(with_lists))
    game_disparity = [sum(d) / len(d) for d in map(disparities, records) if d]
    out["disparity"] = mean(game_disparity)  # per-game means: questions of one game are not independent
    return out


def summarize(records: list[GameRecord], outcomes: Sequence[str], wins: Sequence[str] = ("win",)) -> dict[str, Any]:
    """Every metric with a confidence interval, overall and per system-prompt variant."""
    labels = [r.label for r in records]
    won = [is_win(r, wins) for r in records]
    summary: dict[str, Any] = {
        "games": len(records),
        "rates": outcome_rates(labels, outcomes) | {"win": rate(sum(won), len(records))},
        "rounds": mean([float(r.outcome["details"]["rounds"]) for r in records]),
        "rounds_win": mean([float(r.outcome["details"]["rounds"]) for r, w in zip(records, won) if w]),
    }
    if any(r.outcome["details"].get("retrospective") for r in records):
        summary["retrospective"] = _retro_summary([r for r in records if r.outcome["details"].get("retrospective")])
    by_variant: dict[int, list[GameRecord]] = defaultdict(list)
    for r in records:
        by_variant[r.outcome["details"].get("variant", -1)].append(r)
    summary["per_variant"] = {}
    for variant, group in sorted(by_variant.items()):
        entry: dict[str, Any] = {
            "games": len(group),
            "win": rate(sum(is_win(r, wins) for r in group), len(group)),
            "rounds": mean([float(r.outcome["details"]["rounds"]) for r in group]),
        }
        retro = [r for r in group if r.outcome["details"].get("retrospective")]
        if retro:
            entry["retrospective"] = _retro_summary(retro)
        summary["per_variant"][str(variant)] = entry
    return summary
