"""Echoes: a reply that restates the host's words is not a move (a rule violation).

Small models copy host text all the time: the instruction ("Question 3 of 30: ask your
question."), the reply template ('{"speak": "<your description>"}'), an example move, or a
placeholder alone. Read as moves, these put the host's words in a player's mouth (Bluffing's
verdict instruction contains "I believe your statement is: True"). The runner checks every reply
the turn's parser could read against the host text its seat was shown for the turn. A reply that
cannot be read is a format error, echo or not; one that reads as a move but restates the host breaks
the rule that a move is the player's own: a rule violation (DESIGN's split: format = could not be
parsed, rule = parsed but not allowed). Under structured decoding the grammar guarantees the form,
so a copied placeholder there is what the model chose to write. What is checked:

- a placeholder (``<your description>``) of the system prompt or the turn's host messages
  (instruction, re-prompts) anywhere in the reply, or a reply (or JSON field) that is nothing but
  a placeholder of its own (``<your description>`` where the template says
  ``<your description: at most 12 words>``);
- a JSON object equal to a template or example object of that text;
- a whole sentence of at least ``MIN_SENTENCE_WORDS`` words of the turn's host messages. The
  system prompt's sentences are not checked: it holds what a seat may rightly say again (a
  persona's facts, the rules it argues from);
- a reply (or JSON field) that is nothing but a host message of the turn, or one sentence of it,
  however short, with or without the speaker tag the prompt shows ("Host: ...", "[Host] ..."); or
  nothing but a run of at least ``MIN_SENTENCE_WORDS`` of its words cut anywhere (a reply stopped
  by its length cap, the tail of an instruction), unless the run lies inside one of the message's
  quoted forms (Bluffing's "I believe your statement is: True" is the player's to use).

The reply is read as written and, for JSON replies (structured decoding), each string field
decoded: a quoted host sentence inside a JSON string has its quotes escaped.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from pytest_gameeval.engine.degenerate import DegenerateMove
from pytest_gameeval.engine.errors import RuleViolation
from pytest_gameeval.engine.matching import normalize
from pytest_gameeval.engine.parsing import json_objects

MIN_SENTENCE_WORDS = 6  # shorter sentences ("Is it alive?") may be a player's own words
_PLACEHOLDER = re.compile(r"<[^<>\n]{1,80}>")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_QUOTED = re.compile(r'"[^"\n]*"')
_SPEAKER_TAG = re.compile(r"^(?:\[host\]|host(?: \(to [^)]*\))?:)\s*")


def _squeezed(text: str) -> str:
    return " ".join(normalize(text).split())


def _untagged(squeezed: str) -> str:
    """A squeezed text without a leading speaker tag ("Host:", "[Host]"): how a prompt shows host lines."""
    return _SPEAKER_TAG.sub("", squeezed, count=1)


@lru_cache(maxsize=512)  # host texts recur turn after turn: read each once
def _host_parts(text: str) -> tuple[frozenset[str], tuple[dict, ...], tuple[str, ...], frozenset[str], str]:
    """(placeholders, JSON objects, long sentences, the whole text and each sentence, the whole text)
    of one host text, normalised."""
    placeholders = frozenset(_squeezed(p) for p in _PLACEHOLDER.findall(text))
    objects = tuple(json_objects(text))
    parts = [_squeezed(part) for part in _SENTENCE_END.split(text)]
    sentences = tuple(s for s in parts if len(s.split()) >= MIN_SENTENCE_WORDS)
    whole = _squeezed(text)
    return placeholders, objects, sentences, frozenset([whole, *filter(None, parts)]), whole


def _fragment_of(reply: str, host: str) -> bool:
    """`reply` is a run of at least MIN_SENTENCE_WORDS words of `host`, not lying inside one of its
    quoted examples (a quoted form such as "I believe your statement is: True" is the player's to use)."""
    reply = reply.strip()
    if len(reply.split()) < MIN_SENTENCE_WORDS:
        return False
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(host)]
    start = host.find(reply)
    while start >= 0:
        if not any(a <= start and start + len(reply) <= b for a, b in quoted):
            return True
        start = host.find(reply, start + 1)
    return False


def check_not_echo(reply: str, turn_texts: Iterable[str], system: str = "") -> None:
    """Raise RuleViolation if `reply` restates the turn's host messages or the system prompt's
    templates (see the module docstring)."""
    reply_objects = json_objects(reply)
    values = [v for obj in reply_objects for v in obj.values() if isinstance(v, str)]
    # the reply as written and each JSON string decoded: inside JSON a quoted host sentence is
    # escaped (\"...\"), so only the decoded value shows the echo (structured decoding's fields)
    said = [_squeezed(text) for text in (reply, *values)]
    alone = {_untagged(text) for text in said}
    for value in values or [reply]:
        if _PLACEHOLDER.fullmatch(value.strip()):
            raise DegenerateMove(f"your reply gives the placeholder {value.strip()} instead of your own words")
    for text, whole in ((system, False), *((t, True) for t in turn_texts)):
        if not text:
            continue
        placeholders, objects, sentences, lines, squeezed = _host_parts(text)
        sentences = sentences if whole else ()
        if whole and (alone & lines or any(_fragment_of(reply_text, squeezed) for reply_text in alone)):
            # the instruction (or one sentence of it) and nothing else, however short; or a run of
            # its words cut anywhere (a reply stopped by its length cap, an instruction's tail)
            raise RuleViolation("your reply repeats the host's instructions; reply with your own move only")
        for placeholder in placeholders:
            if any(placeholder in text for text in said):
                raise RuleViolation(
                    f"your reply copies the placeholder {placeholder} from the instructions; write your own words in "
                    "its place"
                )
        if objects and any(obj in objects for obj in reply_objects):
            raise RuleViolation("your reply copies the template or example from the instructions; give your own move")
        for sentence in sentences:
            if any(sentence in text for text in said):
                raise RuleViolation("your reply repeats the host's instructions; reply with your own move only")
