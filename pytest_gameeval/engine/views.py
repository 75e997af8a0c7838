"""A seat's view of the game, rendered as a prompt in one of two styles (GameEval App. A).

- "chat": role-based messages; the seat's own replies are `assistant`, everything else it
  may see is `user`, attributed ("Host: ...", "Player 2: ...").
- "flat": one text prompt with role tags, for completion-style models.
Only events visible to the seat are ever read here.
"""

from __future__ import annotations

from pytest_gameeval.engine.events import HOST_MSG, REPLY, SPEECH, Event

PROMPT_STYLES = ("chat", "flat")
Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": str}


def visible_events(events: list[Event], seat: str) -> list[Event]:
    return [e for e in events if e.visible_to(seat)]


def _lines_for(event: Event, seat: str) -> tuple[str, str] | None:
    """(role, text) for one event as this seat sees it, or None if it adds nothing."""
    if event.kind == REPLY and event.speaker == seat:
        return "assistant", event.text
    if event.kind == SPEECH and event.speaker == seat:
        return None  # already present as the seat's own reply
    if event.kind == SPEECH:
        return "user", f"{event.speaker}: {event.text}"
    if event.kind == HOST_MSG:
        return "user", f"Host: {event.text}"
    return None


def chat_messages(system: str, events: list[Event], seat: str) -> list[Message]:
    messages: list[Message] = [{"role": "system", "content": system}]
    for event in visible_events(events, seat):
        line = _lines_for(event, seat)
        if line is None:
            continue
        role, text = line
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
        role, text = line
        if role == "assistant":
            lines.append(f"[You ({seat})] {text}")
        else:
            speaker, _, said = text.partition(":")  # "Player 2: ..." -> "[Player 2] ..."
            lines.append(f"[{speaker}]{said}")
    lines.append(f"[You ({seat})]")
    return [{"role": "user", "content": "\n".join(lines)}]


def render(style: str, system: str, events: list[Event], seat: str) -> list[Message]:
    if style == "chat":
        return chat_messages(system, events, seat)
    if style == "flat":
        return flat_prompt(system, events, seat)
    raise ValueError(f"unknown prompt style {style!r}; choose from {', '.join(PROMPT_STYLES)}")
