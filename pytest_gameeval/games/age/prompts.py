"""AGE prompts (our words, after the AGE paper's game description)."""

from __future__ import annotations


def player_system(name: str, word: str, n_players: int, max_rounds: int, cot: bool) -> str:
    fields = '"thought": "<your private reasoning>", ' if cot else ""
    return (
        f"You are {name} in a word game with {n_players} players. "
        f'Your secret word is "{word}". '
        "The players are split into two groups: your group shares your word, the other group has a "
        "different but similar word. Nobody is told who is in which group, nor the other word. "
        "Each round, every player in turn describes their own word and guesses the other group's word. "
        f"The game lasts at most {max_rounds} rounds, and ends early once everyone has guessed correctly.\n"
        "Rules for your description: never say your word (nor a form of it, nor a synonym); give a new clue "
        "each round, never repeating an earlier description. Be clear enough to show you know your word, but "
        "vague enough that the other group cannot easily work it out.\n"
        "Your guess: read the other players' descriptions, work out which ones describe a different word, "
        "and name that word (one word or short name, not yours).\n"
        f"Reply with one JSON object: {{{fields}\"description\": \"<your clue>\", \"guess\": \"<the other word>\"}}. "
        "Only the description is heard by the other players; the guess goes to the host alone."
    )


def turn_instruction(round_: int, max_rounds: int, already_correct: bool, cot: bool = False) -> str:
    thought = '"thought": "<private reasoning>", ' if cot else ""
    if already_correct:
        return (
            f"Round {round_} of {max_rounds}, your turn. You have already found the other word; "
            f'give a new description of your word. Answer with only: {{{thought}"description": "<your clue>", "guess": ""}}'
        )
    return (
        f"Round {round_} of {max_rounds}, your turn: describe your word and guess the other group's word. "
        f'Answer with only: {{{thought}"description": "<your clue>", "guess": "<the other word>"}}'
    )


CORRECT = "Your guess is correct: you have found the other group's word. Keep describing your own word."
WRONG = "Your guess {guess} is not the other group's word."  # guess: quoted by the engine's quote()
