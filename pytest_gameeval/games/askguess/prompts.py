"""Ask-Guess prompts (ours, after GameEval §3.1 and Appendix A), and the shapes of the replies."""

from pytest_gameeval.engine.replies import Field, ReplyFormat, text_reply

QUESTIONER = "Questioner"
ANSWERER = "Answerer"

# cot=true: every reply is this JSON object; otherwise plain text (a JSON field under structured decoding)
COT = ReplyFormat(
    "askguess_cot",
    (Field("thought", "<your private reasoning>", 150, content="private"), Field("speak", "<what you say>", 120)),
)
QUESTION = text_reply("question", "<your question or guess>", 100)
ANSWER = text_reply("answer", "<your answer, or gameover>", 80)
HARD_ANSWER = text_reply(
    "answer", "<yes, no or gameover>", 10, enum=("yes", "no", "gameover")
)  # protocol=paper, hard mode
DESCRIPTION = text_reply("description", "<your description>", 150)
COT_FORMAT = COT.format_line() + " Only the speak field is heard by the other player."


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


# how the answerer may answer under protocol=paper, as GameEval's answerer prompts split the modes
# (ask-guess/utils/prompt.py): hard mode only yes / no / gameover, easy mode answers and hints
PAPER_ANSWERING = {
    "hard": 'Reply to each question with one word only: "yes", "no", or "gameover" - nothing else.',
    "easy": "Answer each question truthfully; you may also give hints that lead the Questioner towards the word.",
}
HARD_ANSWERS = ("yes", "no", "gameover")


def answerer_system(word: str, mode: str, cot: bool, paper: bool = False) -> str:
    answering = PAPER_ANSWERING[mode] if paper else "Answer every question truthfully and briefly."
    text = (
        "You are playing Ask-Guess, a cooperative word game, as the Answerer. "
        f'The secret word is "{word}". The Questioner does not know it and asks you questions to find it. '
        f"{answering} "
        f'Never say the word "{word}" itself (nor its plural) in any reply. '
        f"When the Questioner has guessed the word (also \"a kind of {word}\"), reply with only the word: gameover"
    )
    if mode == "easy":
        text += " Before the first question, you give a brief description of the word without saying it."
    return text + (" " + COT_FORMAT if cot else "")


DESCRIBE = "Give a brief description of your secret word, without saying the word."


def ask_instruction(round_: int, max_rounds: int) -> str:
    return f"Question {round_} of {max_rounds}: ask your question."
