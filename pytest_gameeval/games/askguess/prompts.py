"""Ask-Guess prompts (ours, after GameEval §3.1 and Appendix A)."""

QUESTIONER = "Questioner"
ANSWERER = "Answerer"

COT_FORMAT = (
    'Reply with one JSON object: {"thought": "<your private reasoning>", "speak": "<what you say>"}. '
    "Only the speak field is heard by the other player."
)


def questioner_system(mode: str, max_rounds: int, cot: bool) -> str:
    text = (
        "You are playing Ask-Guess, a cooperative word game, as the Questioner. "
        "Your partner, the Answerer, knows a secret word that you do not know. "
        "Each turn, ask exactly one short question to narrow down the word, or guess it directly, "
        "for example: Is it alive? or: Is it a violin? "
        f"You have at most {max_rounds} questions. "
        "The Answerer says gameover as soon as you have guessed the word."
    )
    if mode == "easy":
        text += " The Answerer starts with a brief description of the word."
    return text + (" " + COT_FORMAT if cot else "")


def answerer_system(word: str, mode: str, cot: bool) -> str:
    text = (
        "You are playing Ask-Guess, a cooperative word game, as the Answerer. "
        f'The secret word is "{word}". The Questioner does not know it and asks you questions to find it. '
        "Answer every question truthfully and briefly. "
        f'Never say the word "{word}" itself (nor its plural) in any reply. '
        f"When the Questioner has guessed the word (also \"a kind of {word}\"), reply with only the word: gameover"
    )
    if mode == "easy":
        text += " Before the first question, you give a brief description of the word without saying it."
    return text + (" " + COT_FORMAT if cot else "")


DESCRIBE = "Give a brief description of your secret word, without saying the word."


def ask_instruction(round_: int, max_rounds: int) -> str:
    return f"Question {round_} of {max_rounds}: ask your question."
