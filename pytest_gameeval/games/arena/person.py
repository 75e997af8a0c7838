"""The person's side of a GameArena game (Akinator, Taboo, Bluffing), for the two front ends where a
person plays the user seat: `gameeval play` at the terminal (cli/human_play.py) and the web arena
(arena/web.py). Here, below both, so neither front end imports the other."""

from __future__ import annotations

from pytest_gameeval.engine.player import TurnContext
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.engine.spec import GameSpec
from pytest_gameeval.games.arena.rules import USER_ROLE


def turn_counter(ctx: TurnContext) -> str | None:
    """Where the person is in the game: "(question 3 of 20)" in Akinator and Bluffing, "(round 2
    of 5)" in Taboo; the game's own round counts the questions."""
    limit, noun = getattr(ctx.options, "max_questions", None), "question"
    if limit is None:
        limit, noun = getattr(ctx.options, "max_rounds", None), "round"
    if not limit or not ctx.events:
        return None
    return f"({noun} {max(e.round for e in ctx.events)} of {limit})"


def outcome_for_the_person(record: GameRecord, spec: GameSpec, seat: str) -> str:
    """The game's end said from the person's side, not the model's."""
    name = spec.outcome_name(record.label)
    if record.failures.get(seat, {}).get("chat"):
        return (
            "You ended the input (Ctrl-D), so the game stopped without a result "
            f"(the model's outcome: {record.label}, {name})."
        )
    winner = record.outcome["winner"]
    if winner is None:
        return f"Game over: {name} (the model's outcome: {record.label})."
    verdict = "You win" if winner in (seat, USER_ROLE) else "You lose"
    return f"{verdict}: {name} (the model's outcome: {record.label})."
