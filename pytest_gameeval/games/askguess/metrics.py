"""Ask-Guess metrics (GameEval §3.1): outcome rates, rounds of successful games, per word.

Two Round numbers, never to be mixed up:
- mean_rounds_st (ours): the mean over ST games of the round the game ended in; a game of hard
  mode starts with question 1 in round 1.
- round_paper (GameEval's published Round): per word, the mean over its ST games of the
  questions counted the paper's way (one fewer in hard mode), a word with no ST game counting
  as max_rounds (30); then the mean over words. Failures thus raise it, unlike ours.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.askguess.prompts import QUESTIONER
from pytest_gameeval.games.askguess.rules import OUTCOMES
from pytest_gameeval.metrics import headline as hl
from pytest_gameeval.metrics.cluster import clustered_mean
from pytest_gameeval.metrics.stats import mean, outcome_rates

# the direction of improvement of each gated score key (True: higher is better)
HIGHER_IS_BETTER = {
    "ST": True,
    "EE": False,
    "RLE": False,
    "AME": False,
    "CE": False,
    "rounds_st": False,
    **hl.DIRECTIONS,
}


def score(record: GameRecord) -> dict[str, float]:
    values: dict[str, float] = {label: float(record.label == label) for label in OUTCOMES}
    values["rounds"] = float(record.outcome["details"]["rounds"])
    values["rounds_st"] = values["rounds"] if record.label == "ST" else float("nan")  # mean over ST games only
    values["missed_guesses"] = float(record.outcome["details"]["missed_guesses"])
    values.update(headline(record))
    return values


def headline(record: GameRecord) -> dict[str, float]:
    """played: the questioner asked every turn (no forfeit), the answerer did not say the word
    (AME ends the game before the questioner could finish) and no call failed. quality: a solved
    game scores by its speed (1 in round 1, 0.5 in the last); an unsolved played game earns at
    most 0.25, the share of its questions that were distinct (repeats learn nothing new)."""
    if not hl.played(record, [QUESTIONER], aborts=("AME",)):
        return hl.scores_of(record, [QUESTIONER], False, hl.NAN)
    if record.label == "ST":
        return hl.scores_of(
            record,
            [QUESTIONER],
            True,
            hl.speed(record.outcome["details"]["rounds"], record.options.get("max_rounds", 30)),
        )
    return hl.scores_of(record, [QUESTIONER], True, hl.FAILURE_CREDIT * hl.distinct_share(record, QUESTIONER))


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    labels = [r.label for r in records]
    per_word: dict[str, list[str]] = defaultdict(list)
    for r in records:
        per_word[r.outcome["details"]["word"]].append(r.label)
    return {
        "games": len(records),
        "rates": outcome_rates(labels, OUTCOMES),
        "mean_rounds_st": mean([r.outcome["details"]["rounds"] for r in records if r.label == "ST"]),
        "round_paper": round_paper(records),
        "missed_guesses_per_game": mean([r.outcome["details"]["missed_guesses"] for r in records]),
        # games of one word (several epochs) are not independent: resample words, not games
        "st_clustered_by_word": clustered_mean(
            [float(r.label == "ST") for r in records], [r.outcome["details"]["word"] for r in records]
        ),
        "per_word": {
            w: {c: ls.count(c) for c in OUTCOMES if ls.count(c)} | {"n": len(ls)} for w, ls in sorted(per_word.items())
        },
    }


def paper_rounds(record: GameRecord) -> int:
    """A game's questions as GameEval counts them: one fewer than our round in hard mode."""
    rounds = record.outcome["details"]["rounds"]
    return rounds - 1 if record.options.get("mode", "hard") == "hard" else rounds


def round_paper(records: list[GameRecord]) -> dict[str, Any]:
    """GameEval's Round: per word the mean of its ST games (max_rounds if none), then over words."""
    by_word: dict[str, list[GameRecord]] = defaultdict(list)
    for r in records:
        if r.label != "CE":  # a failed call says nothing about the questioner
            by_word[r.outcome["details"]["word"]].append(r)
    per_word = []
    for games in by_word.values():
        won = [paper_rounds(r) for r in games if r.label == "ST"]
        per_word.append(sum(won) / len(won) if won else float(games[0].options.get("max_rounds", 30)))
    return mean(per_word)
