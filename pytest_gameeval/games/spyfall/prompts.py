"""SpyFall prompts (our words, after GameEval §3.2). Only the seat's own word ever appears.

Two sets. `PAPER` (protocol=paper) keeps the prompts as they were first written, byte for byte,
so its reports stay comparable. `DEFAULT` asks the same of a player in fewer tokens (issue 35: a
full game on the embedded model within 2 minutes): the reply formats are written out once, in the
system prompt, instead of in every turn's instruction, and the private thought and the public
speak are capped shorter (SmolLM2 fills whatever cap it is given, and every seat reads every
description and vote reason again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pytest_gameeval.engine.replies import Field, ReplyFormat
from pytest_gameeval.games.ballots import vote_format

# -- protocol=paper: the prompts as first written ----------------------------------------------
# the thought is optional (GameEval's rules never require it; its harness read replies without one)
THOUGHT = Field("thought", "<your private reasoning>", 100, content="private", required=False)
DESCRIBE = ReplyFormat("spyfall_describe", (THOUGHT, Field("speak", "<your description>", 120)))
DESCRIBE_FORMAT = (
    DESCRIBE.format_line() + " Only the speak field is heard by the other players; your thought stays private."
)


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


# -- the default protocol: the same asks, shorter ----------------------------------------------
# SmolLM2-135M wrote its thought to the cap in 3 of 4 replies (docs/performance.md); every seat reads
# every description and vote reason again, so the public caps cost most
SHORT_THOUGHT = Field("thought", "<your private reasoning>", 60, content="private", required=False)
SHORT_DESCRIBE = ReplyFormat("spyfall_describe", (SHORT_THOUGHT, Field("speak", "<your description>", 80)))


def short_vote(options: list[str]) -> ReplyFormat:
    return vote_format("spyfall_vote", options, SHORT_THOUGHT, Field("speak", "<why you vote this way>", 60))


def short_system(name: str, names: list[str], word: str, end_players: int) -> str:
    others = [n for n in names if n != name]
    return (
        f"You are {name}, playing SpyFall with {', '.join(others)}. All players share one secret word except "
        "the spy, whose word is different but related. Nobody is told whether they are the spy: work it out "
        f'from what the others say. Your word is "{word}". '
        "Each round, every player still in the game describes their word in one short sentence without saying "
        "it, then votes for the player they think is the spy and says why. The most-voted player is out (a tie: "
        "a revote among the tied, then a draw of lots). The villagers win once the spy is out; the spy wins if "
        f"still in when only {end_players} players remain. "
        "If the others' descriptions do not fit your word, you are probably the spy: describe your word vaguely "
        "to blend in, and vote for a villager. Never say your word. "
        f"To describe, reply with one JSON object: {SHORT_DESCRIBE.shape()}. To vote: {short_vote([]).shape()}. "
        "The speak field and your vote are heard by everyone; your thought stays private."
    )


def short_describe_instruction(round_: int) -> str:
    return f"Round {round_}: your turn to describe your word without saying it."


def short_vote_instruction(options: list[str], revote: bool) -> str:
    return f"Vote for the spy from {options}."  # the host's opening line says whether it is a revote


def short_round_opening(round_: int, order: list[str]) -> str:
    # the speaking order lists every living player: the paper protocol's second list repeats it
    return f"Round {round_}. Players still in the game, in speaking order: {', '.join(order)}."


def short_vote_opening(kind: str, candidates: list[str], round_: int, secret: bool) -> str:
    how = "secret ballots, announced together" if secret else "one by one in speaking order, each announced at once"
    return f"Voting for round {round_}: {how}." if kind == "first" else f"Revote among {', '.join(candidates)}: {how}."


@dataclass(frozen=True)
class Prompts:
    """One protocol's prompts: what the rules ask a seat, and the reply formats they read."""

    system: Callable[[str, list[str], str, int], str]
    describe: ReplyFormat
    vote: Callable[[list[str]], ReplyFormat]
    describe_instruction: Callable[[int], str]
    vote_instruction: Callable[[list[str], bool], str]
    # the host's lines opening a round and a ballot; None: the voting games' shared wording
    round_opening: Callable[[int, list[str]], str] | None = None
    vote_opening: Callable[[str, list[str], int, bool], str] | None = None


PAPER = Prompts(system, DESCRIBE, vote, describe_instruction, vote_instruction)
DEFAULT = Prompts(short_system, SHORT_DESCRIBE, short_vote, short_describe_instruction, short_vote_instruction,
                  short_round_opening, short_vote_opening)


def for_protocol(protocol: str) -> Prompts:
    return PAPER if protocol == "paper" else DEFAULT
