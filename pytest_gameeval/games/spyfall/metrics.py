"""SpyFall metrics (GameEval §3.2): spy win rate w_ab and spy living round l_ab per word pair,
averaged over pairs, and by ordered model pair (M_a plays the spy, M_b every villager).

The per-pair average divides by the number of pairs actually played (GameEval divided its 11
pairs by 10).

Two living rounds, never to be mixed up: l (ours) counts the rounds the spy survived, i.e. the
completed rounds in which it was not voted out; l_paper is GameEval's (its code's `round`): the
round the game ended in, whether the spy was caught in it or won. A spy caught in round r has
l = r - 1 and l_paper = r; a spy that wins in round r has both r.
Its interval is a Student-t interval over the per-pair values, so games that share
a word pair are not counted as independent.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.ballots import votes_per_round
from pytest_gameeval.games.voting import OUTCOMES, SPY, SPY_WIN
from pytest_gameeval.metrics import headline as hl
from pytest_gameeval.metrics.stats import mean, outcome_rates, rate

# the direction of improvement of each gated score key (True: higher is better)
HIGHER_IS_BETTER = {"evaluated_win": True, **hl.DIRECTIONS}


def spy_model(record: GameRecord) -> str:
    return record.seat(record.outcome["details"]["spy"])["model"]


def villager_model(record: GameRecord) -> str:
    models = sorted({s["model"] for s in record.seats if s["role"] != SPY})
    return ",".join(models)


def spy_living_round(record: GameRecord) -> int:
    """Rounds the spy survived: completed rounds in which it was not voted out."""
    details = record.outcome["details"]
    return int(details["survived"][details["spy"]])


def spy_living_round_paper(record: GameRecord) -> int:
    """GameEval's living round: the round the game ended in (caught or won)."""
    return int(record.outcome["details"]["rounds"])


def score(record: GameRecord) -> dict[str, float]:
    details = record.outcome["details"]
    values = {label: float(record.label == label) for label in OUTCOMES}
    spy_won = record.label == SPY_WIN
    values["evaluated_win"] = float(spy_won if details["evaluated"] == SPY else not spy_won)
    values["spy_living_round"] = float(spy_living_round(record))
    values["spy_living_round_paper"] = float(spy_living_round_paper(record))
    values["spy_votes_per_round"] = votes_per_round(details, details["spy"])
    values["rounds"] = float(details["rounds"])
    values["abstentions"] = float(sum(1 for b in details["ballots"] if b["abstained"]))
    values.update(headline(record))
    return values


def headline(record: GameRecord) -> dict[str, float]:
    """played: no seat of the evaluated side forfeited a turn. quality: 1 if the evaluated side
    won; a spy that was caught earns at most 0.25, the share of the game's rounds it survived
    (hiding longer is skill); villagers that lost earn 0 (the spy outlasted them)."""
    details = record.outcome["details"]
    side = details["evaluated"]
    seats = [s["name"] for s in record.seats if s["role"] == side]
    if not hl.played(record, seats):
        return hl.scores_of(record, seats, False, hl.NAN)
    spy_won = record.label == SPY_WIN
    if spy_won == (side == SPY):
        return hl.scores_of(record, seats, True, 1.0)
    if side == SPY:
        return hl.scores_of(
            record, seats, True, hl.FAILURE_CREDIT * spy_living_round(record) / max(1, details["rounds"])
        )
    return hl.scores_of(record, seats, True, 0.0)


def pair_metrics(records: list[GameRecord]) -> dict[str, Any]:
    """w (spy win rate) and l (spy living round) per word pair, and their averages over pairs."""
    by_pair: dict[str, list[GameRecord]] = defaultdict(list)
    for r in records:
        by_pair[r.outcome["details"]["pair_id"]].append(r)
    per_pair = {}
    for pair, rs in sorted(by_pair.items()):
        per_pair[pair] = {
            "n": len(rs),
            "w": rate(sum(r.label == SPY_WIN for r in rs), len(rs)),
            "l": mean([spy_living_round(r) for r in rs]),
            "l_paper": mean([spy_living_round_paper(r) for r in rs]),
        }
    return {
        "pairs": len(per_pair),
        # averages over pairs: divided by the number of pairs, with a t-interval across pairs
        "w_avg": mean([p["w"]["value"] for p in per_pair.values()]),
        "l_avg": mean([p["l"]["value"] for p in per_pair.values()]),
        "l_paper_avg": mean([p["l_paper"]["value"] for p in per_pair.values()]),
        "per_pair": per_pair,
    }


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    by_models: dict[str, list[GameRecord]] = defaultdict(list)
    for r in records:
        by_models[f"{spy_model(r)} (spy) vs {villager_model(r)} (villagers)"].append(r)
    evaluated_wins = [score(r)["evaluated_win"] for r in records]
    return {
        "games": len(records),
        "rates": outcome_rates([r.label for r in records], OUTCOMES),
        "evaluated_win": rate(int(sum(evaluated_wins)), len(records)),
        "spy_votes_per_round": mean([v for v in (score(r)["spy_votes_per_round"] for r in records) if v == v]),
        **pair_metrics(records),
        "by_model_pair": {
            key: {
                "spy_model": spy_model(rs[0]),
                "villager_model": villager_model(rs[0]),
                "games": len(rs),
                **pair_metrics(rs),
            }
            for key, rs in sorted(by_models.items())
        },
    }
