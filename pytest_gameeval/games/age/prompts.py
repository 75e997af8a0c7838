"""AGE prompts (our words, after the AGE paper's game description)."""

from __future__ import annotations

from pytest_gameeval.engine.replies import Field, ReplyFormat


def reply_format(cot: bool, already_correct: bool = False) -> ReplyFormat:
    """A turn's reply: a clue in public and a guess for the host (after a correct guess, none is needed)."""
    thought = (Field("thought", "<your private reasoning>", 100, content="private"),) if cot else ()
    guess = Field("guess", "", 40, min_length=0) if already_correct else Field("guess", "<the other word>", 40)
    return ReplyFormat("age_turn", (*thought, Field("description", "<your clue>", 100), guess))


def player_system(name: str, word: str, n_players: int, max_rounds: int, cot: bool) -> str:
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
        f"{reply_format(cot).format_line()} Only the description is heard by the other players; the guess goes to the "
        "host alone."
    )


def turn_instruction(round_: int, max_rounds: int, already_correct: bool, cot: bool = False) -> str:
    shape = reply_format(cot, already_correct).shape()
    if already_correct:
        return (
            f"Round {round_} of {max_rounds}, your turn. You have already found the other word; "
            f"give a new description of your word. Answer with only: {shape}"
        )
    return (
        f"Round {round_} of {max_rounds}, your turn: describe your word and guess the other group's word. "
        f"Answer with only: {shape}"
    )


CORRECT = "Your guess is correct: you have found the other group's word. Keep describing your own word."
WRONG = "Your guess {guess} is not the other group's word."  # guess: quoted by the engine's quote()
