"""Degenerate moves: well-formed, empty of content (a rule violation labelled ``degenerate``).

Under structured decoding every reply has the right shape, so a small model's empty moves pass as
play: a question that is a digit string (``"1000000"``), a guess of the placeholder ``X``, a
candidate list ``":[{"``. A move is judged by what its turn declares it expects (the turn's reply
format, `engine.replies.Field.expects`):

- ``words`` (a question, a clue, a description, a guess, an answer in the seat's own words): at
  least one letter; not a placeholder alone (``X``, ``<...>``, ``word``, ``keyword``, ``...``); no
  placeholder token inside (a standalone ``X``, a bracketed ``<word>`` / ``[object]``); and, where
  the turn forbids it (`Turn.no_repeat`: questions), not its seat's previous move word for word;
- ``choice`` (a vote, a verdict, yes/no from a list) and ``number`` (a 1-5 rating): the game's
  parser judges them against the legal options: a vote ``3`` is legal where a question ``3`` is not;
- ``private`` (a seat's own reasoning) and ``any``: not judged.

A turn may also name slots inside its text that must hold a real word (the X of a guess form):
`Turn.word_slots`. The runner re-prompts a degenerate move like any rule violation, then the
game's forfeit rule applies; the failure event carries ``reason: degenerate`` and the record's
failure counts a ``degenerate`` count beside ``rule`` (of which it is a part).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable

from pytest_gameeval.engine.errors import RuleViolation
from pytest_gameeval.engine.views import quote

if TYPE_CHECKING:
    from pytest_gameeval.engine.game import Turn

DEGENERATE = "degenerate"  # the failure event's reason and the record's failure count

# a value that is only one of these is a template's placeholder, not a move
PLACEHOLDERS = frozenset({
    "x", "xx", "xxx", "y", "z", "...", "…", "word", "words", "keyword", "the word", "the keyword", "your word",
    "secret word", "placeholder", "object", "item", "thing", "answer", "question", "guess", "your guess",
    "your question", "your answer", "description", "your description", "clue", "your clue", "text", "string",
    "message", "your message", "name", "player", "n/a", "na", "none", "null", "nil", "undefined", "todo", "tbd",
    "blank", "empty", "something", "example",
})
_PLACEHOLDER_TOKEN = re.compile(
    r"(?<![\w'-])X(?![\w'-])"  # a standalone capital X: "Is it X?", "are you thinking of X?"
    r"|<[^<>\n]{0,40}>"  # a template's angle-bracket slot
    r"|[\[{(]\s*(?:x|word|keyword|object|item|answer|guess|name|\.\.\.|…)\s*[\]})]",  # [word], {object}, (X)
    re.IGNORECASE,
)
_EDGES = " \t\n\"'`*_.,;:!?()[]{}<>-"


class DegenerateMove(RuleViolation):
    """A well-formed reply with no content where the turn asks for some (a rule violation)."""


def bare(text: str) -> str:
    """`text` lower-cased, squeezed, without surrounding quotes, brackets and punctuation."""
    return " ".join(text.split()).strip(_EDGES).lower()


def check_words(value: str, what: str = "your reply", real_words: Iterable[str] = ()) -> None:
    """Raise DegenerateMove if `value` (a move in words) has no content; an empty value is the
    parser's business (a format error), not judged here. `real_words` (bare) are the game's own
    words, never placeholders however they look ("Malcolm X", "OS X")."""
    text = value.strip()
    for word in real_words:  # a real word's "X" is no placeholder token
        text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", "realword", text, flags=re.IGNORECASE) if word else text
    if not text:
        return
    if not any(c.isalpha() for c in text):
        raise DegenerateMove(
            f"{what} has no words, only digits or punctuation ({_shown(text)}); write your move in words"
        )
    if bare(text) in PLACEHOLDERS:
        raise DegenerateMove(f"{what} is a placeholder ({_shown(text)}), not a move; write your own words")
    token = _PLACEHOLDER_TOKEN.search(text)
    if token:
        raise DegenerateMove(f"{what} holds the placeholder {token.group(0)!r}; put your own word in its place")


def check_word_slot(word: str, what: str = "your guess") -> None:
    """A slot that must hold one real word or name (the X of a guess form)."""
    if not any(c.isalpha() for c in word) or bare(word) in PLACEHOLDERS or bare(word) in ("<x>", "[x]"):
        raise DegenerateMove(f"{what} {_shown(word)} is a placeholder or not a word; name a real thing")


def check_not_repeated(value: str, previous: Iterable[str], what: str = "your move") -> None:
    """A move the turn forbids repeating, equal to its seat's previous one word for word."""
    last = list(previous)[-1:] if previous else []
    if last and bare(value) and bare(value) == bare(last[0]):
        raise DegenerateMove(f"{what} {_shown(value)} repeats your previous one word for word; make a new move")


def check_list_items(items: list[str]) -> None:
    """A candidate list whose items are not words (``":[{"``, ``1, 2, 3``) is no list."""
    if items and all(not any(c.isalpha() for c in item) or bare(item) in PLACEHOLDERS for item in items):
        raise DegenerateMove(
            "the list holds no real items (only digits, punctuation or placeholders); list real things"
        )


def _shown(text: str) -> str:
    # double-quoted as the host quotes a player's words: the echo check then knows the words for
    # the player's, and a re-sent repeat stays a repeat, not an echo of the correction
    return quote(text if len(text) <= 40 else text[:37] + "...")


def _fields(turn: Turn, text: str) -> list[tuple[str, str]]:
    """(what the field expects, its value) for each string field of a readable reply to `turn`."""
    fmt = turn.reply
    if fmt is None:
        return []
    if fmt.text:
        return [(fmt.fields[0].expects, text)]
    try:
        fields = fmt.read(text)
    except ValueError:  # the turn's own parser read it another way: nothing more to judge
        return []
    return [(f.expects, fields[f.name]) for f in fmt.fields if isinstance(fields.get(f.name), str)]


def words_of(turn: Turn, text: str) -> str:
    """A move's words (its "words" fields joined): what a repeat is judged on, JSON or plain text."""
    return " ".join(value for expects, value in _fields(turn, text) if expects == "words")


def check_move(turn: Turn, text: str, previous: list[str]) -> None:
    """Raise DegenerateMove if a readable reply to `turn` is empty of content (module docstring);
    `text` is what the turn's parser read, `previous` its seat's earlier moves of this action
    (`words_of` each)."""
    words = [
        value for expects, value in _fields(turn, text) if expects == "words" and bare(value) not in turn.real_words
    ]
    for value in words:
        check_words(value, real_words=turn.real_words)
    for slot in (turn.word_slots(text) if turn.word_slots else []):
        if bare(slot) not in turn.real_words:
            check_word_slot(slot)
    if turn.no_repeat and words:
        check_not_repeated(words_of(turn, text), previous)
