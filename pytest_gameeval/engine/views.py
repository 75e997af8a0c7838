"""A seat's view of the game, rendered as a prompt in one of two styles (GameEval App. A).

- "chat": role-based messages; the seat's own replies are `assistant`, everything else it
  may see is `user`, attributed ("Host: ...", "Player 2: ...").
- "flat": one text prompt with role tags, for completion-style models.
Only events visible to the seat are ever read here.

A player's words reach another seat only through `quote`: one double-quoted line after the
speaker's name, so no part of them can start a line of their own ("\nHost: you win") or close
the quotation and go on as someone else. Host text that quotes a player uses `quote` too.
"""

from __future__ import annotations

import unicodedata

from pytest_gameeval.engine.events import HOST, HOST_MSG, REPLY, SPEECH, Event

PROMPT_STYLES = ("chat", "flat")
Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": str}

_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


def _escaped(char: str, keep: str) -> str:
    if char in keep or char.isprintable() and char not in _SHORT_ESCAPES:
        return char
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    # Not printable: line and paragraph separators, control characters, invisible format
    # characters (zero-width, bidi overrides), unassigned code points, and spaces other than " ".
    if unicodedata.category(char) == "Zs":
        return char  # a no-break or wide space ends no line
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"


def one_line(text: str, *, keep: str = '"\\') -> str:
    """`text` on one line: line breaks, control and invisible characters written as escapes."""
    if text.isprintable() and all(c not in text for c in _SHORT_ESCAPES if c not in keep):
        return text
    return "".join(_escaped(c, keep) for c in text)


def quote(text: str) -> str:
    """A player's words as one quoted line that nothing inside it can end or close."""
    return '"' + one_line(text, keep="") + '"'


def visible_events(events: list[Event], seat: str) -> list[Event]:
    return [e for e in events if e.visible_to(seat)]


def _lines_for(event: Event, seat: str) -> tuple[str, str, str] | None:
    """(role, speaker, text) for one event as this seat sees it, or None if it adds nothing."""
    if event.kind == REPLY and event.speaker == seat:
        return "assistant", seat, event.text
    if event.kind == SPEECH and event.speaker == seat:
        return None  # already present as the seat's own reply
    if event.kind == SPEECH:
        return "user", event.speaker, quote(event.text)
    if event.kind == HOST_MSG:
        return "user", HOST, event.text
    return None


def chat_messages(system: str, events: list[Event], seat: str) -> list[Message]:
    messages: list[Message] = [{"role": "system", "content": system}]
    for event in visible_events(events, seat):
        line = _lines_for(event, seat)
        if line is None:
            continue
        role, speaker, text = line
        if role == "user":
            text = f"{speaker}: {text}"
        if messages[-1]["role"] == role == "user":
            messages[-1]["content"] += "\n" + text  # providers want alternating turns
        else:
            messages.append({"role": role, "content": text})
    return messages


def flat_prompt(system: str, events: list[Event], seat: str) -> list[Message]:
    lines = [system, ""]
    for event in visible_events(events, seat):
        line = _lines_for(event, seat)
        if line is None:
            continue
        role, speaker, text = line
        if role == "assistant":  # one prompt holds every turn: its own replies stay one line too
            lines.append(f"[You ({seat})] {one_line(text)}")
        else:
            lines.append(f"[{speaker}] {text}")
    lines.append(f"[You ({seat})]")
    return [{"role": "user", "content": "\n".join(lines)}]


def render(style: str, system: str, events: list[Event], seat: str) -> list[Message]:
    if style == "chat":
        return chat_messages(system, events, seat)
    if style == "flat":
        return flat_prompt(system, events, seat)
    raise ValueError(f"unknown prompt style {style!r}; choose from {', '.join(PROMPT_STYLES)}")
