"""TofuKingdom prompts (our words, after GameEval §3.3)."""

from __future__ import annotations

from pytest_gameeval.engine.replies import Field, ReplyFormat
from pytest_gameeval.games.tofukingdom.roles import HIDDEN_ROLES, OBLIGATION, QUESTIONS, title

RULES = (
    "TofuKingdom is a deduction game. The Prince must find the Princess among {n} players, "
    "named {names}. Their hidden identities are, one each: {roles}. "
    "Everyone except the Prince knows everyone's identity. "
    "The Prince asks each player exactly one question, then one extra question to a player of his choice, "
    "then names the player he believes is the Princess. "
    "Camps: the Princess and the Chef (with the Prince) always tell the truth; "
    "the Queen, the Minister and the Guard always lie; the Spy and the Maid may tell the truth or lie. "
    "If the Prince names the Princess, the Prince's camp wins; if he names the Queen, the Queen's camp wins; "
    "if he names anyone else, the Spy's camp wins."
)

THOUGHT = Field("thought", "<your private reasoning>", 100, content="private")


def _question(names: list[str]) -> tuple[Field, Field]:
    return (Field("question", "<kind>", enum=QUESTIONS),
            Field("target", "<player>", enum=tuple(names), required=False))  # only identity_of needs it


def ask(names: list[str]) -> ReplyFormat:
    return ReplyFormat("tofukingdom_ask", (THOUGHT, *_question(names)))


def extra(names: list[str]) -> ReplyFormat:
    return ReplyFormat(
        "tofukingdom_extra", (THOUGHT, Field("player", "<player>", enum=tuple(names)), *_question(names))
    )


def answer(values: tuple[str, ...]) -> ReplyFormat:
    """An answer: a player's name (who is the Princess?) or an identity; `values` lists the legal ones."""
    return ReplyFormat("tofukingdom_answer", (THOUGHT, Field("answer", "<your answer>", enum=values)))


def choose(names: list[str]) -> ReplyFormat:
    return ReplyFormat("tofukingdom_choose", (THOUGHT, Field("princess", "<player>", enum=tuple(names))))


ASK_FORMAT = (
    ask([]).format_line().removesuffix(".") + ', where kind is "princess" (Who is the Princess?), "identity" '
    '(What is your identity?) or "identity_of" (What is the identity of <target>?, about another player; '
    'only this kind needs "target"). Only the question is heard by the others.'
)

ANSWER_FORMAT = (
    answer(()).format_line()
    + " Answer a player's name (e.g. Player 2) when asked who the Princess is, and an identity "
    f"({', '.join(title(r) for r in HIDDEN_ROLES)}) otherwise. Only the answer is heard by the others."
)


def rules(names: list[str]) -> str:
    return RULES.format(n=len(names), names=", ".join(names), roles=", ".join(title(r) for r in HIDDEN_ROLES))


def prince_system(names: list[str]) -> str:
    return (
        "You are playing TofuKingdom as the Prince. " + rules(names)
        + " You do not know anyone's identity: deduce it from the answers. " + ASK_FORMAT
    )


_DUTY = {
    "truth": "You must tell the truth in every answer.",
    "lie": "You must lie in every answer: never give the true answer.",
    "free": "You may tell the truth or lie, as suits your camp.",
}
_GOAL = {
    "prince": "Your camp wins if the Prince names the Princess.",
    "queen": "Your camp wins if the Prince names the Queen as the Princess.",
    "spy": "Your camp wins if the Prince names anyone other than the Princess or the Queen.",
}


def player_system(name: str, role: str, camp: str, identities: dict[str, str]) -> str:
    table = "; ".join(f"{n}: {title(r)}" for n, r in identities.items())
    return (
        f"You are playing TofuKingdom as {name}. Your identity is the {title(role)}. " + rules(list(identities))
        + f" The identities of all players (secret from the Prince): {table}. "
        + f"{_GOAL[camp]} {_DUTY[OBLIGATION[role]]} " + ANSWER_FORMAT
    )


def ask_instruction(addressee: str, asked: int, total: int) -> str:
    return f"Question {asked} of {total}: ask {addressee} your question."


EXTRA_INSTRUCTION = (
    "You may now ask one extra question to any one player. Reply as before with one more field, "
    '"player": the player you address, e.g. {"thought": "...", "player": "Player 4", "question": "identity_of", '
    '"target": "Player 1"}.'
)

CHOOSE_INSTRUCTION = (
    "Name the player you believe is the Princess. " + choose([]).format_line()
)


def answer_instruction(question: str) -> str:
    return f"The Prince asks you: {question} Answer now."
