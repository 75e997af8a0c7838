"""Akinator prompts (ours). Five system prompts (GameArena used five per session) for the questioner;
one is drawn per game."""

from pytest_gameeval.engine.replies import text_reply
from pytest_gameeval.engine.views import quote

QUESTIONER = "Questioner"
GUESS_FORM = "This is a guess -- are you thinking of X?"
ANSWERS = ("Yes", "No", "Probably Yes", "Probably No", "Don't Know")

# plain-text replies; under structured decoding each is one JSON field
QUESTION = text_reply("question", f"<a yes/no question, or: {GUESS_FORM}>", 100)
ANSWER = text_reply("answer", "<your answer>", enum=ANSWERS)
CLASSIFICATION = text_reply("labels", "<1. Yes, 2. No, ...: one line per object>", 200)


def questioner_variants(max_questions: int) -> tuple[str, ...]:
    rules = (
        f"You may ask at most {max_questions} questions; a guess uses one of them. "
        f'To guess, write exactly: "{GUESS_FORM}" with your object in place of X. '
        "A wrong guess does not end the game. Ask one question per turn."
    )
    return (
        "You are playing Akinator as the questioner. The user is thinking of an everyday object. "
        "Ask yes/no questions to find out what it is. The user answers only Yes, No, Probably Yes, "
        "Probably No or Don't Know. " + rules,
        "Let's play a guessing game. Somebody has picked a common object and you must work out which "
        "one it is by asking questions that can be answered with yes or no. Split the possibilities "
        "as evenly as you can with each question, then guess. " + rules,
        "You are a detective of things. A person has a familiar, everyday item in mind. Interview them "
        "with short yes-or-no questions (they can also say probably, or that they don't know) and "
        "name the item as soon as you are confident. " + rules,
        "Twenty questions, object edition: your partner has a household or everyday object in mind. "
        "Narrow it down with questions they can answer yes or no (or probably, or don't know), from "
        "broad categories to fine details. " + rules,
        "You are trying to read someone's mind. They are picturing an ordinary object. Each of your "
        "questions should rule out about half of what is still possible; when one candidate is left, "
        "guess it. " + rules,
    )


def user_system(obj: str, aliases: list[str]) -> str:
    also = f" (also called {', '.join(aliases)})" if aliases else ""
    return (
        f"You are the user in a game of Akinator. You are thinking of: {obj}{also}. "
        "The questioner asks yes/no questions to find it. Answer every question truthfully about "
        f"{obj}, with exactly one of: {', '.join(ANSWERS)}. Reply with those words only."
    )


def ask_instruction(round_: int, max_questions: int) -> str:
    return f"Question {round_} of {max_questions}: ask a yes/no question or make a guess."


def classify_instruction(question: str, candidates: list[str]) -> str:
    listing = "\n".join(f"{i}. {quote(c)}" for i, c in enumerate(candidates, start=1))
    return (
        "Judging task, outside the game (not shown to the questioner): for the question "
        f"{quote(question)}, say for each object below whether the answer would be Yes or No. "
        "Reply with one line per object, the number then Yes or No, for example '1. Yes'.\n" + listing
    )
