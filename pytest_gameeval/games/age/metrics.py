"""AGE metrics, exactly as the paper defines them, as pure functions over game records.

For a player p with first correct guess in round f_p (FCG) in a game of l rounds:
- a player who never guessed correctly gets f_p = l + 1 (our choice; the paper leaves it open);
- comprehension_p = 1 / log2(f_p + 1)                (1 for a first-round guess)
- confusion_p = log_{l+1}(min over q in the other group of f_q)
                                                  (0 if an opponent guessed in round 1,
                                                   1 if no opponent ever guessed)
- AGE_p = 2 * comprehension_p * confusion_p / (comprehension_p + confusion_p)

Games that ended with a chat error (CE) have no well-defined l and are left out of the AGE
metrics (their rate is reported). The paper's filter keeps games that lasted beyond two rounds
and in which both words were guessed (some player of each group found the other word). Two
readings, both reported on the same records, never one under the other's name:
- filter_literal (the paper's text; protocol=paper): the rounds actually played are more than 2;
- filter_full_length (ours; the default): a game stopped early because everyone had guessed
  counts as lasting max_rounds.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations
from typing import Any

from scipy import stats

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.age.rules import OUTCOMES
from pytest_gameeval.metrics import headline as hl
from pytest_gameeval.metrics.stats import mean, outcome_rates, rate

PLAYER_KEYS = ("age", "comprehension", "confusion", "fcg")
EVALUATED_SLOT = 1  # binding slot of the model under evaluation
NAN = float("nan")
# the direction of improvement of each gated score key (True: higher is better)
HIGHER_IS_BETTER = {"age": True, "comprehension": True, "confusion": True, "fcg": False, "guessed": True,
                    "age_filter_literal": True, "age_filter_full_length": True, "CE": False, **hl.DIRECTIONS}


# -- the three formulas -------------------------------------------------------------------

def effective_fcg(fcg: int | None, rounds: int) -> int:
    """The round of the first correct guess; l + 1 for a player who never guessed correctly."""
    return rounds + 1 if fcg is None else fcg


def comprehension(f: int) -> float:
    return 1.0 / math.log2(f + 1)


def confusion(opponent_fcgs: list[int], rounds: int) -> float:
    """log base (l + 1) of the earliest first correct guess among the opponents."""
    return math.log(min(opponent_fcgs)) / math.log(rounds + 1)


def age_score(comp: float, conf: float) -> float:
    """Harmonic mean of comprehension and confusion (0 when confusion is 0)."""
    return 0.0 if comp + conf == 0 else 2 * comp * conf / (comp + conf)


# -- per record -------------------------------------------------------------------------------
def player_scores(record: GameRecord) -> list[dict[str, Any]]:
    """One row per seat: group, slot, model, topic, FCG and the three metrics (empty for CE)."""
    if record.label == "CE":
        return []
    d = record.outcome["details"]
    rounds = d["rounds"]  # the paper's l
    f = {s: effective_fcg(v, rounds) for s, v in d["fcg"].items()}
    rows = []
    for seat in record.seats:
        name = seat["name"]
        group = d["groups"][name]
        comp = comprehension(f[name])
        conf = confusion([f[s] for s, g in d["groups"].items() if g != group], rounds)
        rows.append(
            {
                "seat": name,
                "group": group,
                "slot": seat["private"].get("slot"),
                "model": seat["model"],
                "topic": seat["private"].get("topic"),
                "list": seat["private"].get("list"),
                "guessed": d["fcg"][name] is not None,
                "fcg": f[name],
                "comprehension": comp,
                "confusion": conf,
                "age": age_score(comp, conf),
            }
        )
    return rows


def both_words_guessed(record: GameRecord) -> bool:
    d = record.outcome["details"]
    return all(any(d["fcg"][s] is not None for s, g in d["groups"].items() if g == group) for group in ("A", "B"))


def in_literal_filter(record: GameRecord) -> bool:
    """The paper's filter as written: the game lasted more than two rounds (rounds played) and
    both words were guessed. A game we stopped early because everyone had guessed ("solved") in
    round 1 or 2 is dropped. protocol=paper uses this one."""
    return record.label != "CE" and record.outcome["details"]["rounds"] > 2 and both_words_guessed(record)


def in_full_length_filter(record: GameRecord) -> bool:
    """Our reading of the filter: as the literal one, but a game stopped early because everyone
    had guessed ("solved") counts as lasting `max_rounds`, the length it would have had if play
    went on; so the games solved fastest, the best play, are not dropped. The default uses it."""
    d = record.outcome["details"]
    lasted = record.options.get("max_rounds", d["rounds"]) if record.label == "solved" else d["rounds"]
    return record.label != "CE" and lasted > 2 and both_words_guessed(record)


FILTERS = {"literal": in_literal_filter, "full_length": in_full_length_filter}


def protocol_filter(records: list[GameRecord]) -> str:
    """The filter a run's protocol uses: the literal one under protocol=paper, else ours."""
    return "literal" if records and all(r.options.get("protocol") == "paper" for r in records) else "full_length"


def score(record: GameRecord) -> dict[str, float]:
    """The evaluated seat's (slot 1) metrics plus game-level values; NaN where undefined."""
    values: dict[str, float] = {label: float(record.label == label) for label in OUTCOMES}
    values["rounds"] = float(record.outcome["details"]["rounds"])
    rows = player_scores(record)
    mine = next((r for r in rows if r["slot"] == EVALUATED_SLOT), None)
    for key in PLAYER_KEYS:
        values[key] = float(mine[key]) if mine else NAN
    values["guessed"] = float(mine["guessed"]) if mine else NAN
    values["age_all_seats"] = sum(r["age"] for r in rows) / len(rows) if rows else NAN
    values["both_guessed"] = float(both_words_guessed(record)) if rows else NAN
    for name, kept in FILTERS.items():  # both readings of the paper's filter, side by side
        values[f"filter_{name}"] = float(kept(record))
        values[f"age_filter_{name}"] = values["age"] if values[f"filter_{name}"] else NAN
    values.update(headline(record))
    return values


def headline(record: GameRecord) -> dict[str, float]:
    """played: the evaluated player (slot 1) never forfeited a turn and no call failed. quality:
    its AGE score, the harmonic mean of comprehension (its group found its word early) and
    confusion (the other group did not find it), already in [0, 1]."""
    seats = [s["name"] for s in record.seats if s.get("private", {}).get("slot") == EVALUATED_SLOT]
    if not hl.played(record, seats):
        return hl.scores_of(record, seats, False, hl.NAN)
    mine = next((r for r in player_scores(record) if r["slot"] == EVALUATED_SLOT), None)
    return hl.scores_of(record, seats, True, float(mine["age"]) if mine else hl.NAN)


# -- over many records ----------------------------------------------------------------------
def _means(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {key: mean([r[key] for r in rows]) for key in PLAYER_KEYS}
    out["guessed"] = rate(sum(r["guessed"] for r in rows), len(rows))
    return out


def _macro(rows: list[dict[str, Any]], key: str = "age") -> dict[str, Any]:
    """Mean per topic, then the unweighted mean of the topic means (t interval over topics).

    A game's topic is its list (the ten topic lists are the paper's topics); rows without a
    list name (older records) fall back to the pair's own topic field.
    """
    by_topic: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by_topic[str(r.get("list") or r["topic"])].append(r[key])
    per_topic = {t: mean(v) for t, v in sorted(by_topic.items())}
    return {"per_topic": per_topic, "macro": mean([m["value"] for m in per_topic.values()])}


def welch_tests(by_model: dict[str, list[float]]) -> list[dict[str, Any]]:
    """Welch's t-test between every two models' per-player AGE scores.

    Players of one game are not independent (they share a pair and a log), so read the
    p-values as indicative; a clustered test would be stricter.
    """
    tests = []
    for a, b in combinations(sorted(by_model), 2):
        xa, xb = by_model[a], by_model[b]
        if len(xa) < 2 or len(xb) < 2:
            tests.append(
                {"a": a, "b": b, "t": None, "p": None, "n_a": len(xa), "n_b": len(xb), "note": "fewer than 2 scores"}
            )
            continue
        res = stats.ttest_ind(xa, xb, equal_var=False)
        t, p = float(res.statistic), float(res.pvalue)
        tests.append({
            "a": a, "b": b, "mean_a": sum(xa) / len(xa), "mean_b": sum(xb) / len(xb),
            "t": None if math.isnan(t) else t, "p": None if math.isnan(p) else p, "n_a": len(xa), "n_b": len(xb),
        })
    return tests


def per_model(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_model[r["model"]].append(r)
    return {m: {"n": len(rs), **_means(rs), "age_macro_by_topic": _macro(rs)} for m, rs in sorted(by_model.items())}


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    played = [r for r in records if r.label != "CE"]
    rows = [row for r in played for row in player_scores(r)]
    filtered = {name: [r for r in played if kept(r)] for name, kept in FILTERS.items()}
    by_model_age: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        by_model_age[row["model"]].append(row["age"])
    evaluated = [row for row in rows if row["slot"] == EVALUATED_SLOT]
    return {
        "games": len(records),
        "rates": outcome_rates([r.label for r in records], OUTCOMES),
        "mean_rounds": mean([r.outcome["details"]["rounds"] for r in played]),
        "both_words_guessed": rate(sum(both_words_guessed(r) for r in played), len(played)),
        **{f"filter_{name}": rate(len(kept), len(records)) for name, kept in filtered.items()},
        "filter_of_protocol": protocol_filter(records),
        "evaluated": _means(evaluated) | {"n": len(evaluated), "age_macro_by_topic": _macro(evaluated)}
        if evaluated
        else None,
        "per_model": per_model(rows),
        **{
            f"per_model_filter_{name}": per_model([row for r in kept for row in player_scores(r)])
            for name, kept in filtered.items()
        },
        "welch_age": welch_tests(by_model_age),
        "method": "per-player values; means with Student-t 95% intervals, rates with Wilson; macro = mean of topic "
                  "means",
    }
