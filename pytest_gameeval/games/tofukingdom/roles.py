"""TofuKingdom's roles, camps and answer obligations (GameEval §3.3)."""

from __future__ import annotations

PRINCE = "prince"
# Every role but the Prince's, in the order shown to players.
HIDDEN_ROLES = ("princess", "queen", "minister", "chef", "guard", "maid", "spy")
ROLES = (PRINCE, *HIDDEN_ROLES)

# Camps are named after their leader; the camp name is also its model role.
CAMPS = ("prince", "queen", "spy")
CAMP_OF = {
    "prince": "prince", "princess": "prince", "chef": "prince",
    "queen": "queen", "minister": "queen", "guard": "queen",
    "spy": "spy", "maid": "spy",
}

TRUTH, LIE, FREE = "truth", "lie", "free"
OBLIGATION = {
    "princess": TRUTH, "chef": TRUTH,
    "queen": LIE, "minister": LIE, "guard": LIE,
    "spy": FREE, "maid": FREE,
}

# The three questions the Prince may ask (structured, never free text).
QUESTIONS = ("princess", "identity", "identity_of")


def title(role: str) -> str:
    return role.capitalize()


def question_text(kind: str, target: str | None = None) -> str:
    if kind == "princess":
        return "Who is the Princess?"
    if kind == "identity":
        return "What is your identity?"
    return f"What is the identity of {target}?"


def true_answer(kind: str, addressee: str, target: str | None, identities: dict[str, str]) -> str:
    """The truthful answer: a player name for "princess", a role otherwise."""
    if kind == "princess":
        return next(name for name, role in identities.items() if role == "princess")
    if kind == "identity":
        return identities[addressee]
    assert target is not None
    return identities[target]


def winning_camp(chosen_role: str | None) -> str:
    """Princess named -> Prince camp; Queen named -> Queen camp; anyone else (or nobody) -> Spy camp."""
    if chosen_role == "princess":
        return "prince"
    if chosen_role == "queen":
        return "queen"
    return "spy"
