"""Bluffing prompts (ours). Five system prompts (GameArena used five per session) for the interrogator;
one is drawn per game."""

from pytest_gameeval.engine.replies import text_reply

INTERROGATOR = "Interrogator"
VERDICT_FORM = "I believe your statement is: True|False"
LEVEL_NAMES = ("True", "Possibly true", "Unknown", "Possibly false", "False")
VERDICTS = ("I believe your statement is: True", "I believe your statement is: False")

# plain-text replies; under structured decoding each is one JSON field
MOVE = text_reply("move", "<your question, or your verdict>", 150)
ANSWER = text_reply("answer", "<your answer>", 150)
VERDICT = text_reply("verdict", "<your verdict>", enum=VERDICTS)
LEVEL = text_reply("level", "<your judgement>", enum=LEVEL_NAMES)


def interrogator_variants(max_questions: int) -> tuple[str, ...]:
    rules = (
        f"You may ask at most {max_questions} questions, one per turn. When you are ready (and at "
        f'the latest after {max_questions} questions) give your verdict as "I believe your '
        'statement is: True" or "I believe your statement is: False". The verdict ends the game.'
    )
    return (
        "You are playing Bluffing. The user has made a statement about themselves that may be true "
        "or false, and will defend it either way. Question them to find out which. " + rules,
        "You are an interviewer checking a personal claim. The person in front of you may be telling "
        "the truth or may be bluffing convincingly. Ask pointed questions, look for inconsistencies "
        "and decide. " + rules,
        "Think of yourself as a lie detector. Someone claims something about their own life; they "
        "might be honest, they might be lying. Probe the details that a liar would get wrong. " + rules,
        "You are a fact-checker talking to the source of a personal story. The claim could be genuine "
        "or invented, and the source will stand by it either way. Ask for specifics you could check "
        "and judge how well they hold together. " + rules,
        "Play a game of truth or bluff. A person tells you something about themselves and sticks to "
        "it no matter what. Your questions should make an invented story hard to keep consistent. " + rules,
    )


def user_system(statement: str, truth: bool, name: str, facts: list[str]) -> str:
    known = " ".join(f"- {f}" for f in facts)
    if truth:
        stance = "The statement is TRUE. Defend it honestly, with details consistent with your facts."
    else:
        stance = (
            "The statement is FALSE, but you must defend it as if it were true: lie consistently, "
            "invent plausible details, never contradict yourself and never admit that it is false."
        )
    return (
        f"You are {name}, the user in a game of Bluffing. Facts about you: {known} "
        f'You have just told the interrogator: "{statement}". {stance} Answer each question in one '
        "or two sentences."
    )


def ask_instruction(round_: int, max_questions: int) -> str:
    return f"Question {round_} of {max_questions}: ask a question, or give your verdict."


VERDICT_INSTRUCTION = 'No questions left. Give your verdict now: "I believe your statement is: True" or "... False".'

PROBE_INSTRUCTION = (
    "Retrospective check, outside the game: this question and your answer are not shown to the "
    "user and do not count as a move. How do you judge the user's statement right now? Reply with "
    "exactly one of: True, Possibly true, Unknown, Possibly false, False."
)
