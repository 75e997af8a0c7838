"""Taboo prompts (ours). Five system prompts (GameArena used five per session) for the guesser;
one is drawn per game."""

from pytest_gameeval.engine.replies import text_reply

GUESSER = "Guesser"
GUESS_FORM = "My guess of the word is: X"
MAX_CLUE = 140

# plain-text replies; under structured decoding each is one JSON field
CLUE = text_reply("message", "<your message>", MAX_CLUE)
REPLY = text_reply("reply", f"<your reply, or: {GUESS_FORM}>", 150)


def guesser_variants(max_rounds: int) -> tuple[str, ...]:
    rules = (
        f"The game lasts {max_rounds} rounds. You lose if you say the secret word (or its plural) "
        f'anywhere in a reply and never guess it, or if you guess wrong. To guess, write "{GUESS_FORM}" with your '
        f"word in place of X: a right guess wins at once. If you last {max_rounds} rounds "
        "without saying the word, you also win."
    )
    return (
        "You are playing Taboo. The user has a secret word and will try to trick you into saying it. "
        "Reply to each message naturally, but work out the word so that you can avoid it. " + rules,
        "A word game: your partner knows a hidden word and gives you messages meant to lure you into "
        "saying it. Answer every message in a sentence or two while keeping clear of the hidden "
        "word. " + rules,
        "You are a careful conversationalist. Someone is trying to make you utter one particular "
        "word that they have in mind. Figure out which word it is from their messages and never "
        "use it. " + rules,
        "Word-dodging game: the other player wants one specific word out of your mouth. Chat with "
        "them as you normally would, but keep guessing privately what that word is and steer around "
        "it. " + rules,
        "You are talking with someone who is setting verbal traps. Every message is built to make "
        "you say a certain word. Answer helpfully and briefly, notice where their messages point, "
        "and do not fall into the trap. " + rules,
    )


def user_system(word: str, related: list[str], max_rounds: int) -> str:
    return (
        f'You are the user in a game of Taboo. Your secret word is "{word}". In each of {max_rounds} '
        "rounds, write one message that makes the other player likely to say the word, for example "
        f"by describing it or asking a question whose natural answer is the word. Helpful ideas: "
        f"{', '.join(related)}. Each message must be at most {MAX_CLUE} characters and must never "
        f'contain "{word}" itself.'
    )


# protocol=paper: GameArena tells the guesser it has said the word and asks for a guess (App. A.1.2, E.3)
SAID_WORD_NOTICE = (
    "You have just said the secret word. Now guess which word it is: reply "
    f'"{GUESS_FORM}" with your word in place of X. This guess ends the game.'
)


def clue_instruction(round_: int, max_rounds: int) -> str:
    return f"Round {round_} of {max_rounds}: write your message (at most {MAX_CLUE} characters, without the word)."
