"""SpyGame metrics (Liang et al. 2023): the guest's Win, Round and Voted; theory-of-mind
accuracies; and the content-free bias report (paper Table 3) with chi-square tests.

- Win: the guest's side won. Round: rounds the guest survived (completed rounds in which it was
  not voted out; at most 2 with 4 players). round_paper: rounds the guest took part in, the one
  it was voted out in included (the paper's Round, 1.99 to 2.18 with 4 players; above 2 only
  when a round ends without an elimination, -T tie=nobody). Voted: first-ballot votes the guest
  received per round it was in the game.
- Theory of mind, from the guest's private answer just before the first vote:
  self-identity (its own role), 1-word / 1-identity (each other player's keyword / role),
  2-word / 2-identity (what each host thinks the guest's keyword / role is, scored against that
  host's own first-order answer about the guest). A game where the guest gave no readable answer
  has no ToM values (NaN) and is counted in `tom_unanswered`; a missing entry inside an answer is
  wrong; a host that gave no answer about the guest leaves nothing to compare 2nd-order beliefs with.
- Bias: over first-ballot votes (not revotes, not abstentions), by the chosen player's name, its
  position in that round's speaking order and its position among the options shown to the voter.
  Under no bias each offered option is equally likely, so a ballot with k options adds 1/k to the
  expected count of each option's category; scipy.stats.chisquare compares observed with expected.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Callable

from scipy import stats

from pytest_gameeval.engine.matching import squash
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.ballots import votes_per_round
from pytest_gameeval.games.voting import OUTCOMES, same_word
from pytest_gameeval.metrics import headline as hl
from pytest_gameeval.metrics.stats import mean, outcome_rates, rate

TOM_KEYS = ("tom_self_identity", "tom_1_word", "tom_1_identity", "tom_2_word", "tom_2_identity")
NAN = float("nan")
ALPHA = 0.05
# answers that name no keyword: never a match, not even with each other
NON_ANSWERS = {"", "unknown", "none", "n/a", "na", "?", "notsure", "idk", "idontknow", "nothing", "null"}

# the direction of improvement of each gated score key (True: higher is better)
HIGHER_IS_BETTER = {
    "guest_win": True,
    "guest_rounds": True,
    "guest_round_paper": True,
    "guest_voted": False,
    **{k: True for k in TOM_KEYS},
    **hl.DIRECTIONS,
}


def keyword(answer: Any) -> str | None:
    """A keyword answer, or None for a non-answer ("unknown", "?", ...)."""
    if not isinstance(answer, str):
        return None
    return None if squash(answer) in NON_ANSWERS or answer.strip() in NON_ANSWERS else answer


# -- theory of mind ------------------------------------------------------------------------
def tom_items(details: dict[str, Any]) -> dict[str, list[bool]] | None:
    """Every scored ToM item of one game (True = correct); None if there was no guest answer."""
    tom = details.get("tom")
    if not tom:
        return None
    guest = details["guest"]
    answer = tom.get(guest)
    if not answer:
        return None
    roles, words = details["roles"], details["words"]
    # the players alive at the probe: those asked it (the guest's entries can only name them)
    others = sorted(p for p in tom if p != guest)
    players = answer.get("players") or {}
    they_think = answer.get("they_think") or {}
    items: dict[str, list[bool]] = {k: [] for k in TOM_KEYS}
    items["tom_self_identity"].append(answer.get("self_identity") == roles[guest])
    for p in others:
        entry = players.get(p, {})
        items["tom_1_word"].append(same_word(keyword(entry.get("word")), words[p]))
        items["tom_1_identity"].append(entry.get("identity") == roles[p])
        host_answer = tom.get(p)
        reference = (host_answer or {}).get("players", {}).get(guest)
        if reference is None:
            continue  # this host said nothing about the guest: no reference for 2nd-order beliefs
        belief = they_think.get(p, {})
        items["tom_2_word"].append(same_word(keyword(belief.get("word")), keyword(reference.get("word"))))
        items["tom_2_identity"].append(
            belief.get("identity") is not None and belief.get("identity") == reference.get("identity")
        )
    return items


def tom_scores(details: dict[str, Any]) -> dict[str, float]:
    items = tom_items(details)
    if items is None:
        return {k: NAN for k in TOM_KEYS}
    return {k: (sum(v) / len(v) if v else NAN) for k, v in items.items()}


# -- per game -----------------------------------------------------------------------------
def rounds_played(details: dict[str, Any], seat: str) -> int:
    """The paper's Round: rounds the seat took part in, the one it was voted out in included."""
    return next((e["round"] for e in details.get("eliminated", ()) if e["seat"] == seat), details["rounds"])


def score(record: GameRecord) -> dict[str, float]:
    details = record.outcome["details"]
    guest = details["guest"]
    values = {label: float(record.label == label) for label in OUTCOMES}
    values["guest_win"] = float(details["guest_win"])
    values["guest_rounds"] = float(details["survived"][guest])
    values["guest_round_paper"] = float(rounds_played(details, guest))
    values["guest_voted"] = votes_per_round(details, guest)
    values["rounds"] = float(details["rounds"])
    values["abstentions"] = float(sum(1 for b in details["ballots"] if b["abstained"]))
    values.update(tom_scores(details))
    values.update(headline(record))
    return values


def headline(record: GameRecord) -> dict[str, float]:
    """played: the guest (the evaluated seat) never forfeited a turn. quality: 1 if the guest's
    side won; otherwise at most 0.25, the share of the game's rounds the guest survived."""
    details = record.outcome["details"]
    guest = details["guest"]
    if not hl.played(record, [guest]):
        return hl.scores_of(record, [guest], False, hl.NAN)
    if details["guest_win"]:
        return hl.scores_of(record, [guest], True, 1.0)
    return hl.scores_of(
        record, [guest], True, hl.FAILURE_CREDIT * min(1.0, details["survived"][guest] / max(1, details["rounds"]))
    )


# -- bias report --------------------------------------------------------------------------
FACTORS: dict[str, Callable[[dict[str, Any], str], Any]] = {
    "name": lambda ballot, seat: seat,
    "speaking_position": lambda ballot, seat: ballot["order"].index(seat) + 1,
    "option_position": lambda ballot, seat: ballot["options"].index(seat) + 1,
}


def bias_report(records: list[GameRecord], alpha: float = ALPHA, voter_model: str | None = None) -> dict[str, Any]:
    """Vote shares by name, speaking position and option position, each tested against uniform."""
    observed: dict[str, Counter] = defaultdict(Counter)
    expected: dict[str, Counter] = defaultdict(Counter)
    votes = abstentions = 0
    for record in records:
        details = record.outcome["details"]
        models = {s["name"]: s["model"] for s in record.seats}
        for ballot in details["ballots"]:
            if ballot["stage"] != "first" or (voter_model and models[ballot["voter"]] != voter_model):
                continue
            if ballot["choice"] is None:
                abstentions += 1
                continue
            votes += 1
            k = len(ballot["options"])
            for factor, value_of in FACTORS.items():
                observed[factor][value_of(ballot, ballot["choice"])] += 1
                for seat in ballot["options"]:
                    expected[factor][value_of(ballot, seat)] += 1 / k
    report: dict[str, Any] = {"votes": votes, "abstentions": abstentions, "alpha": alpha, "factors": {}}
    for factor in ("name", "speaking_position", "option_position"):
        cats = sorted(expected[factor], key=lambda c: (isinstance(c, str), c))
        obs = [observed[factor][c] for c in cats]
        exp = [expected[factor][c] for c in cats]
        entry: dict[str, Any] = {
            "categories": [
                {
                    "value": c,
                    "votes": o,
                    "share": o / votes if votes else None,
                    "expected_share": e / votes if votes else None,
                    "rate": rate(o, votes),
                }
                for c, o, e in zip(cats, obs, exp)
            ],
        }
        if votes and len(cats) > 1:
            test = stats.chisquare(obs, exp)
            entry.update(chi2=float(test.statistic), dof=len(cats) - 1, p_value=float(test.pvalue),
                         biased=bool(test.pvalue < alpha), min_expected=min(exp))
        else:
            entry.update(chi2=None, dof=None, p_value=None, biased=None, min_expected=None)
        report["factors"][factor] = entry
    return report


def bias_by_model(records: list[GameRecord], alpha: float = ALPHA) -> dict[str, Any]:
    models = sorted({s["model"] for r in records for s in r.seats})
    return {
        "all_voters": bias_report(records, alpha),
        "by_voter_model": {m: bias_report(records, alpha, voter_model=m) for m in models} if len(models) > 1 else {},
    }


# -- over many games ----------------------------------------------------------------------
def summarize(records: list[GameRecord]) -> dict[str, Any]:
    scores = [score(r) for r in records]
    pooled: dict[str, list[bool]] = {k: [] for k in TOM_KEYS}
    unanswered = probed = 0
    for r in records:
        if not r.outcome["details"].get("tom"):
            continue
        probed += 1
        items = tom_items(r.outcome["details"])
        if items is None:
            unanswered += 1
            continue
        for k, v in items.items():
            pooled[k].extend(v)
    guest_side = Counter(r.outcome["details"]["guest_role"] for r in records)
    out: dict[str, Any] = {
        "games": len(records),
        "guest_sides": dict(guest_side),
        "win": rate(int(sum(s["guest_win"] for s in scores)), len(scores)),
        "round": mean([s["guest_rounds"] for s in scores]),
        "round_paper": mean([s["guest_round_paper"] for s in scores]),
        "voted": mean([s["guest_voted"] for s in scores if s["guest_voted"] == s["guest_voted"]]),
        "rates": outcome_rates([r.label for r in records], OUTCOMES),
        # ToM accuracies pooled over every scored item (Wilson intervals)
        "tom": {k: rate(sum(v), len(v)) for k, v in pooled.items()}
        | {"games_probed": probed, "tom_unanswered": unanswered},
    }
    probe_records = [r for r in records if r.outcome["details"].get("probe")]
    if probe_records:
        out["bias"] = bias_by_model(probe_records)
    return out
