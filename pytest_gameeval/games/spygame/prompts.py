"""SpyGame (Who is the Spy) prompts (our words, after Liang et al. 2023). Only the seat's own
keyword ever appears in its prompts."""

from __future__ import annotations

from dataclasses import replace

from pytest_gameeval.engine.replies import Field, ReplyFormat, object_schema
from pytest_gameeval.games.ballots import vote_format


def system(name: str, names: list[str], word: str, end_players: int, max_words: int,
           tie_nobody: bool = False, public_votes: bool = False) -> str:
    others = [n for n in names if n != name]
    limit = f"in at most {max_words} words, " if max_words else ""
    tie = ("a tie goes to a revote among the tied players; if it is still a tie, nobody is out this round" if tie_nobody
           else "a tie goes to a revote among the tied players, then to a draw of lots")
    votes = "player, one after another and each vote announced at once, votes" if public_votes else "player votes"
    return (
        f"You are {name}, playing Who is the Spy with {len(others)} other players: {', '.join(others)}. "
        "Every player has a secret keyword. All players but one share the same keyword; the spy's keyword is "
        "different but related. Nobody is told whether they are the spy: work it out from what the others say. "
        f'Your keyword is "{word}". '
        f"Each round, in turn, every player still in the game describes their keyword {limit}without saying it, "
        "without straying from it and without repeating what another player said. A spy should stay vague so "
        "as not to stand out; a villager should give a hint that the other villagers will recognise. Then every "
        f"{votes} for the player they think is the spy. The player with the most votes is out; {tie}. "
        "The villagers win as soon as the spy is "
        f"voted out; the spy wins if it is still in the game when only {end_players} players remain."
    )


def describe_format(max_words: int, word_guessing: bool) -> ReplyFormat:
    limit = f"at most {max_words} words, " if max_words else ""
    speak = Field("speak", f"<your description: {limit}without your keyword>", 8 * max_words if max_words else 150)
    guess = Field("guess", "<the other keyword>", 40)
    return ReplyFormat("spygame_describe", (guess, speak) if word_guessing else (speak,))


def describe_instruction(round_: int, max_words: int, word_guessing: bool) -> str:
    line = describe_format(max_words, word_guessing).format_line().removesuffix(".")
    if word_guessing:
        return (
            f"Round {round_}, your turn. First infer, from what has been said, the other keyword in play "
            f"(the one you do not have). Then describe your own keyword. {line}. "
            "Only the speak field is heard by the others."
        )
    return f"Round {round_}, your turn: describe your keyword. {line}. Only the speak field is heard by the others."


def vote(options: list[str], reasoning: bool) -> ReplyFormat:
    before = (Field("reasoning", "<your private reasoning>", 150, content="private"),) if reasoning else ()
    return vote_format("spygame_vote", options, *before)


def vote_instruction(options: list[str], revote: bool, reasoning: bool) -> str:
    what = "This is a revote among the tied players. " if revote else ""
    line = vote(options, reasoning).format_line().removesuffix(".")
    if reasoning:
        return (
            f"{what}First reason about every player's keyword and identity (spy or villager). Then vote for the "
            f"player you think is the spy: make a choice from {options}. {line}. Only your vote is announced."
        )
    return (
        f"{what}Vote for the player you think is the spy: make a choice from {options}. {line}. "
        "Only your vote is announced."
    )


_IDENTITIES = ("spy", "villager")


def _beliefs(others: list[str], word_hint: str, identity_hint: str) -> Field:
    """A field holding one {"word", "identity"} belief per other player."""
    entry = object_schema(
        {"word": {"type": "string", "maxLength": 30}, "identity": {"type": "string", "enum": list(_IDENTITIES)}}
    )
    hint = {p: {"word": word_hint, "identity": identity_hint} for p in others}
    return Field("", hint, value_schema=object_schema({p: entry for p in others}))


def tom_format(others: list[str], second_order: bool) -> ReplyFormat:
    fields = [Field("self_identity", "spy or villager", enum=_IDENTITIES, required=False),
              replace(_beliefs(others, "<their keyword>", "spy or villager"), name="players")]
    if second_order:
        fields.append(
            replace(
                _beliefs(others, "<the keyword they think you have>", "<the identity they think you have>"),
                name="they_think",
            )
        )
    return ReplyFormat("spygame_tom", tuple(fields))


def tom_instruction(others: list[str], second_order: bool) -> str:
    text = (
        "Before the vote, a private question from the host: nobody else sees it or your answer, and your answer "
        "does not change the game. Say whether you think you are the spy or a villager, and for every other "
        "player the keyword and identity you think they have."
    )
    if second_order:
        text += " Also say, for every other player, which keyword and identity they think YOU have."
    return f"{text} {tom_format(others, second_order).format_line().removesuffix('.')}"
