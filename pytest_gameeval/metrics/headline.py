"""Every game's headline: played x quality (clembench's "% played x quality", per game).

Small models sit at 0 on the papers' success rates, so a success rate cannot tell two of them
apart. Each game therefore scores, beside the papers' metrics, three numbers per game:

- `played` (0/1): the evaluated seat finished the game: no forfeited turn by an evaluated seat,
  no failed call (CE), and no game-specific abort (the game says which outcomes abort it);
- `quality` in [0, 1], defined by each game's metrics module over played games (NaN otherwise);
- `played_quality`: 0 if not played, else quality. Its mean over games is the headline: the
  share played times the mean quality of played games, which a weak model that plays does not
  pin at 0, and which a model that stops playing cannot raise.

Pure functions over records; each game's metrics module decides which seats are evaluated and
what quality means (its README says why that measures skill).
"""

from __future__ import annotations

import math
import re
from typing import Iterable

from pytest_gameeval.engine.events import FAILURE, REPLY, SPEECH
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import FIRST_TRY, HEADLINE

# FIRST_TRY: the evaluated seat's turns answered with a legal move at the first attempt, as a
# share: the turn-level measure beside the headline, with range where the headline sits at the
# floor (a model that forfeits once scores 0 on the headline, but 0.9 here if it rarely fails)
KEYS = ("played", "quality", HEADLINE, FIRST_TRY)
DIRECTIONS = {key: True for key in KEYS}  # higher is better for every one
CHAT_ERROR_LABEL = "CE"
NAN = float("nan")


def forfeited(record: GameRecord, seats: Iterable[str]) -> bool:
    """Whether any of `seats` forfeited a turn (gave no valid reply within its re-prompts)."""
    return any((record.failures.get(seat) or {}).get("forfeit", 0) for seat in seats)


def played(record: GameRecord, seats: Iterable[str], aborts: Iterable[str] = ()) -> bool:
    """Finished by the evaluated seats: no forfeit of theirs, no chat error, no aborting outcome."""
    return record.label != CHAT_ERROR_LABEL and record.label not in set(aborts) and not forfeited(record, seats)


def legal_first_try(record: GameRecord, seats: Iterable[str]) -> float:
    """The share of `seats`' turns (moves, not record-only probes) whose first attempt was a
    legal move: not unreadable, not against a rule, not a failed call. NaN with no such turn."""
    seats = set(seats)
    turns = failed = 0
    for event in record.events:
        data = event.data
        if event.speaker not in seats or "probe" in data or data.get("attempt", 0) != 0:
            continue
        if event.kind == REPLY:
            turns += 1
        elif event.kind == FAILURE:
            failed += 1
            turns += data.get("kind") == "chat"  # a failed call leaves no reply to count
    return (turns - failed) / turns if turns else NAN


def scores_of(record: GameRecord, seats: Iterable[str], is_played: bool, quality: float) -> dict[str, float]:
    """The headline keys of one game (`scores`) and its evaluated seats' turn-level measure."""
    return {**scores(is_played, quality), FIRST_TRY: legal_first_try(record, seats)}


def scores(is_played: bool, quality: float) -> dict[str, float]:
    """The three headline keys of one game. A played game with undefined quality (NaN) stays
    NaN in `played_quality`: it is left out of means, never counted as 0 or 1."""
    if not is_played:
        return {"played": 0.0, "quality": NAN, HEADLINE: 0.0}
    q = float(quality)
    if math.isfinite(q) and not 0.0 <= q <= 1.0:
        raise ValueError(f"quality {q} is outside [0, 1]")
    return {"played": 1.0, "quality": q, HEADLINE: q}


def speed(rounds: float, max_rounds: float) -> float:
    """Quality of a success in round `rounds` of at most `max_rounds`: 1 in the first round,
    falling linearly to 0.5 in the last, so any success outranks any failure's credit (<= 0.25)."""
    if max_rounds <= 1:
        return 1.0
    used = min(max(rounds, 1.0), max_rounds)
    return 1.0 - 0.5 * (used - 1.0) / (max_rounds - 1.0)


_NOT_WORD = re.compile(r"[^\w]+")


def distinct_share(record: GameRecord, seat: str) -> float:
    """The share of `seat`'s public moves that are distinct (case, spacing and punctuation
    ignored); 0 when it said nothing. Repeating one question every round earns nothing new."""
    said = [
        _NOT_WORD.sub(" ", e.text).strip().casefold() for e in record.events if e.kind == SPEECH and e.speaker == seat
    ]
    said = [s for s in said if s]
    return len(set(said)) / len(said) if said else 0.0


# the credit of a played game the evaluated seat did not win, at most: below any win's quality
FAILURE_CREDIT = 0.25
