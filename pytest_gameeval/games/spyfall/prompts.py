"""SpyFall prompts (our words, after GameEval §3.2). Only the seat's own word ever appears."""

from __future__ import annotations

from pytest_gameeval.engine.replies import Field, ReplyFormat
from pytest_gameeval.games.ballots import vote_format

THOUGHT = Field("thought", "<your private reasoning>", 100, content="private")
DESCRIBE = ReplyFormat("spyfall_describe", (THOUGHT, Field("speak", "<your description>", 120)))
DESCRIBE_FORMAT = DESCRIBE.format_line() + " Only the speak field is heard by the other players; your thought stays private."


def vote(options: list[str]) -> ReplyFormat:
    return vote_format("spyfall_vote", options, THOUGHT, Field("speak", "<why you vote this way>", 120))


VOTE_FORMAT = (vote([]).format_line() + " The speak field and your vote are heard by everyone; "
               "your thought stays private.")


def system(name: str, names: list[str], word: str, end_players: int) -> str:
    others = [n for n in names if n != name]
    return (
        f"You are {name}, playing SpyFall with {len(names) - 1} other players: {', '.join(others)}. "
        f"Every player received a secret word. {len(names) - 1} players share the same word; one player, "
        "the spy, received a different but related word. Nobody is told whether they are the spy: "
        "work it out from what the others say. "
        f'Your word is "{word}". '
        "Each round, every player still in the game describes their word in one short sentence without "
        "saying it; then every player votes for the player they think is the spy and says why. "
        "The player with the most votes is out; a tie goes to a revote among the tied players, then to a "
        "draw of lots. The villagers win as soon as the spy is voted out. The spy wins if it is still in "
        f"the game when only {end_players} players remain. "
        "If the others' descriptions do not fit your word, you are probably the spy: then describe your "
        "word vaguely so that you blend in, and vote for a villager. Never say your word."
    )


def describe_instruction(round_: int) -> str:
    return f"Round {round_}: it is your turn to describe your word without saying it. {DESCRIBE_FORMAT}"


def vote_instruction(options: list[str], revote: bool) -> str:
    what = "This is a revote among the tied players. " if revote else ""
    return (
        f"{what}Vote for the player you think is the spy: make a choice from {options}. "
        f"You cannot vote for yourself. {VOTE_FORMAT}"
    )
