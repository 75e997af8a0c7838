"""SpyGPT prompts (our words, after Liang et al. 2023, "Leveraging word guessing games to
assess the intelligence of large language models", the SpyGPT description task)."""

from __future__ import annotations

from pytest_gameeval.engine.replies import Field, ReplyFormat, text_reply
from pytest_gameeval.engine.views import quote

WORD_LIMITS = {"aggressive": 100, "conservative": 10}



def describe(mode: str) -> ReplyFormat:
    # about 5 characters a word: a capped description keeps under the mode's word limit
    return ReplyFormat("spygpt_describe", (Field("thought", "<your private reasoning>", 100, content="private"),
                                           Field("description", "<your description>", 5 * WORD_LIMITS[mode])))


DESCRIBE_FORMAT = describe("conservative").format_line() + " Only the description is passed on."
SCORE = text_reply("score", "<1 to 5>", enum=("1", "2", "3", "4", "5"))


def describer_system(target: str, mode: str) -> str:
    if mode == "aggressive":
        task = (
            f'Your word is "{target}". Describe it in a focused, detailed and accurate way, in at most '
            f"{WORD_LIMITS[mode]} words, so that someone reading your description could guess the word. "
        )
    else:
        task = (
            f'Your word is "{target}". First, in your thought, imagine several other words that share '
            "characteristics with it. Then describe only what those words have in common, in at most "
            f"{WORD_LIMITS[mode]} words, so that your word cannot be singled out from them. "
        )
    return (
        "You are playing a word description game. " + task
        + f'Never write the word "{target}" itself (nor its plural) in the description. ' + DESCRIBE_FORMAT
    )


DESCRIBE_INSTRUCTION = "Write your description now."

JUDGE_SYSTEM = (
    "You are a judge in a word game. You will be shown a description written by a player and one word. "
    "Rate how well the description matches that word, from 1 (not at all) to 5 (perfectly). "
    "Reply with a single whole number from 1 to 5."
)


def judge_instruction(description: str, word: str) -> str:
    return f"Description: {quote(description)}\nWord: {word}\nHow well does the description match the word (1-5)?"
