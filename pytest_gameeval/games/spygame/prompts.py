"""SpyGame (Who is the Spy) prompts (our words, after Liang et al. 2023). Only the seat's own
keyword ever appears in its prompts."""

from __future__ import annotations

import json


def system(name: str, names: list[str], word: str, end_players: int, max_words: int) -> str:
    others = [n for n in names if n != name]
    limit = f"in at most {max_words} words, " if max_words else ""
    return (
        f"You are {name}, playing Who is the Spy with {len(others)} other players: {', '.join(others)}. "
        "Every player has a secret keyword. All players but one share the same keyword; the spy's keyword is "
        "different but related. Nobody is told whether they are the spy: work it out from what the others say. "
        f'Your keyword is "{word}". '
        f"Each round, in turn, every player still in the game describes their keyword {limit}without saying it, "
        "without straying from it and without repeating what another player said. A spy should stay vague so "
        "as not to stand out; a villager should give a hint that the other villagers will recognise. Then every "
        "player votes for the player they think is the spy. The player with the most votes is out; a tie goes "
        "to a revote among the tied players, then to a draw of lots. The villagers win as soon as the spy is "
        f"voted out; the spy wins if it is still in the game when only {end_players} players remain."
    )


def describe_instruction(round_: int, max_words: int, word_guessing: bool) -> str:
    limit = f"at most {max_words} words, " if max_words else ""
    if word_guessing:
        return (
            f"Round {round_}, your turn. First infer, from what has been said, the other keyword in play "
            "(the one you do not have). Then describe your own keyword. Reply with one JSON object: "
            f'{{"guess": "<the other keyword>", "speak": "<your description: {limit}without your keyword>"}}. '
            "Only the speak field is heard by the others."
        )
    return (
        f"Round {round_}, your turn: describe your keyword. Reply with one JSON object: "
        f'{{"speak": "<your description: {limit}without your keyword>"}}. Only the speak field is heard by the others.'
    )


def vote_instruction(options: list[str], revote: bool, reasoning: bool) -> str:
    what = "This is a revote among the tied players. " if revote else ""
    if reasoning:
        return (
            f"{what}First reason about every player's keyword and identity (spy or villager). Then vote for the "
            f"player you think is the spy: make a choice from {options}. Reply with one JSON object: "
            '{"reasoning": "<your private reasoning>", "name": "<the player you vote for>"}. Only your vote is announced.'
        )
    return (
        f"{what}Vote for the player you think is the spy: make a choice from {options}. Reply with one JSON object: "
        '{"name": "<the player you vote for>"}. Only your vote is announced.'
    )


def tom_instruction(others: list[str], second_order: bool) -> str:
    entry = {"word": "<their keyword>", "identity": "spy or villager"}
    shape: dict = {"self_identity": "spy or villager", "players": {p: entry for p in others}}
    text = (
        "Before the vote, a private question from the host: nobody else sees it or your answer, and your answer "
        "does not change the game. Say whether you think you are the spy or a villager, and for every other "
        "player the keyword and identity you think they have."
    )
    if second_order:
        shape["they_think"] = {p: {"word": "<the keyword they think you have>", "identity": "<the identity they think you have>"} for p in others}
        text += " Also say, for every other player, which keyword and identity they think YOU have."
    return f"{text} Reply with one JSON object: {json.dumps(shape)}"
