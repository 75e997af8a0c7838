"""TofuKingdom metrics (GameEval §3.3): camp win rates, points per model, rule violations per role."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_gameeval.engine.events import ACTION, FAILURE, REPLY
from pytest_gameeval.engine.game import ABORTED
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.tofukingdom.roles import CAMP_OF, CAMPS, HIDDEN_ROLES
from pytest_gameeval.games.tofukingdom.rules import OUTCOMES, VOID
from pytest_gameeval.metrics import headline as hl
from pytest_gameeval.metrics.stats import mean, outcome_rates, rate

ANSWER_ACTIONS = ("answer", "extra_answer")

# the direction of improvement of each gated score key (True: higher is better)
HIGHER_IS_BETTER = {"win": True, "evaluated_rule_violations": False, **hl.DIRECTIONS}


def camp_models(record: GameRecord) -> dict[str, str]:
    """camp -> the model (label) that played every seat of it."""
    return {CAMP_OF[s["role"]]: s["model"] for s in record.seats}


def _role_of(record: GameRecord) -> dict[str, str]:
    return {s["name"]: s["role"] for s in record.seats}


def rule_violations(record: GameRecord) -> list[dict[str, Any]]:
    """Every rule violation: seat, role, action, attempt."""
    roles = _role_of(record)
    return [
        {"seat": e.speaker, "role": roles[e.speaker], "action": e.data.get("action"), "attempt": e.data.get("attempt")}
        for e in record.events if e.kind == FAILURE and e.data.get("kind") == "rule"
    ]


def decided(records: list[GameRecord]) -> list[GameRecord]:
    """The games a camp won: protocol=paper's void games (GameEval drops them) and games aborted
    when an evaluated seat forfeited (no camp won them) left out."""
    return [r for r in records if r.label not in (VOID, ABORTED)]


def obligation_breaches(record: GameRecord) -> int:
    """Accepted answers that broke the role's obligation (protocol=paper accepts them; ours re-prompts)."""
    return sum(1 for e in record.events if e.kind == ACTION and e.data.get("obligation_kept") is False
               and "void_attempt" not in e.data)


def score(record: GameRecord) -> dict[str, float]:
    details = record.outcome["details"]
    evaluated = details["evaluated"]
    violations = rule_violations(record)
    values = {label: float(record.label == label) for label in OUTCOMES}
    values["win"] = float(record.outcome["winner"] == evaluated)
    values["evaluated_rule_violations"] = float(sum(1 for v in violations if CAMP_OF[v["role"]] == evaluated))
    values["answer_rule_violations"] = float(sum(1 for v in violations if v["action"] in ANSWER_ACTIONS))
    values["forfeited_answers"] = float(details["forfeits"]["answer"] + details["forfeits"]["extra_answer"])
    values["obligation_breaches"] = float(obligation_breaches(record))
    values.update(headline(record))
    return values


def headline(record: GameRecord) -> dict[str, float]:
    """played: no seat of the evaluated camp forfeited a turn and no call failed. quality: 1 if
    the evaluated camp won, else 0 (the camp's win is the game's skill; each camp wins by its own
    goal, so a weak Prince, Queen or Spy is not pinned at 0 by another camp's)."""
    camp = record.outcome["details"]["evaluated"]
    seats = [s["name"] for s in record.seats if CAMP_OF.get(s["role"]) == camp]
    if not hl.played(record, seats):
        return hl.scores_of(record, seats, False, hl.NAN)
    return hl.scores_of(record, seats, True, float(record.outcome["winner"] == camp))


def points(records: list[GameRecord]) -> dict[str, dict[str, Any]]:
    """Per model: one point per game its camp won; the rate per game played with a Wilson interval.

    A model playing several camps of one game (self-play) is counted once for that game.
    """
    won: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    for r in decided(records):
        models = camp_models(r)
        for model in set(models.values()):
            played[model] += 1
            won[model] += int(models[r.outcome["winner"]] == model)
    out = {}
    for model in sorted(played):
        k, n = won[model], played[model]
        rt = rate(k, n)
        out[model] = {"points": k, "games": n, "rate": rt, "points_ci": [rt["ci"][0] * n, rt["ci"][1] * n]}
    return out


def violations_by_role(records: list[GameRecord]) -> dict[str, dict[str, Any]]:
    """Per hidden role: answers asked, rule violations (all attempts), and the rate of answers
    whose first attempt broke the role's obligation (Wilson)."""
    asked: dict[str, int] = defaultdict(int)
    first: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    for r in records:
        roles = _role_of(r)
        for e in r.events:
            if e.kind == REPLY and e.data.get("action") in ANSWER_ACTIONS and e.data.get("attempt") == 0:
                asked[roles[e.speaker]] += 1
        for v in rule_violations(r):
            if v["action"] in ANSWER_ACTIONS:
                total[v["role"]] += 1
                first[v["role"]] += int(v["attempt"] == 0)
    return {
        role: {"answers": asked[role], "violations": total[role], "first_attempt_rate": rate(first[role], asked[role])}
        for role in HIDDEN_ROLES
    }


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    played, records = records, decided(records)
    wins = [r.outcome["winner"] == r.outcome["details"]["evaluated"] for r in records]
    return {
        "games": len(records),
        "void_games": len(played) - len(records),
        "void_attempts": sum(len(r.outcome["details"].get("voided", [])) for r in played),
        "obligation_breaches_per_game": mean([float(obligation_breaches(r)) for r in records]),
        "winning_camp": outcome_rates([r.label for r in records], CAMPS),
        "evaluated_win": rate(sum(wins), len(wins)),
        "points": points(records),
        "violations_by_role": violations_by_role(records),
        "forfeited_answers_per_game": mean([score(r)["forfeited_answers"] for r in records]),
        "pick_forfeits": rate(sum(1 for r in records if r.outcome["details"]["pick_forfeit"]), len(records)),
    }
