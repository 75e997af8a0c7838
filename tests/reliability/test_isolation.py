"""Seat isolation, generically for every registered game (issue 9, item 4).

Every seat is played by its scripted policy, wrapped so that (a) every TurnContext it receives is
captured and (b) every chain-of-thought reply carries a unique marker thought. Then, for every
prompt a seat received:

- no event from the seat's view is one it may not see (another seat's raw reply, a failure, an
  action or a judgement kept for the record);
- no other seat's marker thought appears anywhere in the prompt;
- no other seat's private string (word, object, statement, ...) appears in the text the HOST wrote
  for this seat (system prompt and host messages), unless this seat legitimately knows it too.

What players say is theirs: a secret said aloud by a player is that player's move, not a leak by the
harness, so speech by other seats is scanned only for marker thoughts. Documented exemptions (a
value the rules give the seat on purpose) are listed in PUBLIC_BY_DESIGN with the reason.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import itertools
import json
import re

import pytest

from pytest_gameeval.engine.events import HOST_MSG
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.players.scripted import scripted_binder

SEEDS = (0, 1, 2)

# (game, private key) -> why the other seats may see this value
PUBLIC_BY_DESIGN: dict[tuple[str, str], str] = {
    ("bluffing", "statement"): "the interrogator is asked whether this statement is true",
}


# Not conftest.FakePlayer: it keeps a copy of each view as shown at the time (a game may later
# hide events), where FakePlayer keeps the context itself.
class Spy(Player):
    """Wraps a seat's player: records every context and marks every private thought."""

    counter = itertools.count()

    def __init__(self, inner, log: list[TurnContext], thoughts: dict[str, str]):
        self.inner = inner
        self.label = inner.label
        self.log = log
        self.thoughts = thoughts  # marker -> seat that thought it

    async def act(self, ctx: TurnContext) -> Reply:
        # Snapshot the view: a game may later hide events from the record's view (SpyGame's
        # probe), and the check is about what the seat was shown at the time.
        self.log.append(dataclasses.replace(ctx, events=[copy.copy(e) for e in ctx.events]))
        reply = await self.inner.act(ctx)
        try:
            obj = json.loads(reply.text)
        except (TypeError, ValueError):
            return reply
        if isinstance(obj, dict) and "thought" in obj:
            marker = f"zqthought{next(self.counter)}x"
            self.thoughts[marker] = ctx.seat.name
            obj["thought"] = f"{obj['thought']} {marker}"
            reply.text = json.dumps(obj)
        return reply


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def _secrets(game_name: str, private: dict) -> set[str]:
    """A seat's private strings worth scanning for (short strings and non-strings skipped)."""
    out = set()
    for key, value in private.items():
        if (game_name, key) in PUBLIC_BY_DESIGN:
            continue
        out.update(s for s in _strings(value) if len(s.strip()) >= 3)
    return out


def _contains(text: str, needle: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(needle.lower()) + r"(?!\w)", text.lower()) is not None


def _play(game: str, seed: int, style: str, strength: str):
    spec = get_spec(game)
    extra = {"cot": True} if "cot" in spec.all_options() else {}
    options = spec.parse_options({"seed": seed, "style": style, **extra})
    rows = spec.select_rows(options)
    row = rows[seed * 7 % len(rows)]
    contexts: dict[str, list[TurnContext]] = {}
    thoughts: dict[str, str] = {}
    inner_bind = scripted_binder(spec, {"*": strength}, seed)

    def bind(seat, role):
        return Spy(inner_bind(seat, role), contexts.setdefault(seat.name, []), thoughts)

    record = asyncio.run(play_case(spec, row, 0, options, bind))
    return spec, record, contexts, thoughts


def _strength(spec) -> str:
    return "random" if "random" in spec.scripted else next(iter(spec.scripted))


def isolation_leaks(game: str, seed: int, style: str = "chat", strength: str | None = None) -> tuple[list[str], int]:
    """Every leak found in one game, and the number of prompts scanned."""
    spec = get_spec(game)
    spec, record, contexts, thoughts = _play(game, seed, style, strength or _strength(spec))
    seats = {s["name"]: s for s in record.seats}
    role_names = {s["role"].lower() for s in record.seats}
    leaks, scanned = [], 0
    for name, ctxs in contexts.items():
        own = {s.lower() for s in _strings(seats[name]["private"])}
        for ctx in ctxs:
            scanned += 1
            for event in ctx.events:
                if not event.visible_to(name):
                    leaks.append(f"{game}: {name} was given an event for {event.to}: {event.kind} {event.text[:60]!r}")
            whole = "\n".join(m["content"] for m in ctx.messages)
            for marker, thinker in thoughts.items():
                if thinker != name and marker in whole:
                    leaks.append(f"{game}: {name} saw {thinker}'s private thought")
            host_text = "\n".join(
                [ctx.messages[0]["content"].split("\n\n[")[0] if style == "flat" else ctx.messages[0]["content"]]
                + [e.text for e in ctx.events if e.kind == HOST_MSG]
            )
            for other, seat in seats.items():
                if other == name:
                    continue
                for secret in _secrets(game, seat["private"]):
                    if secret.lower() in own or secret in seats:  # seat names are public
                        continue
                    if secret.lower() in role_names:
                        # A role name is rules vocabulary (every prompt lists the roles); what is
                        # hidden is WHICH seat holds it.
                        if re.search(
                            rf"{re.escape(other)}\W+(is\W+)?(the\W+|an?\W+)?{re.escape(secret)}\b", host_text, re.I
                        ):
                            leaks.append(f"{game}: the host told {name} that {other} is the {secret}")
                    elif _contains(host_text, secret):
                        leaks.append(f"{game}: the host told {name} {other}'s private {secret!r}")
    return sorted(set(leaks)), scanned


@pytest.mark.parametrize("style", ["chat", "flat"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_seat_sees_what_its_role_may_not(game, style):
    total = 0
    for seed in SEEDS:
        leaks, scanned = isolation_leaks(game, seed, style)
        assert leaks == [], leaks
        total += scanned
    assert total > 0  # the scan really looked at prompts


def test_the_scan_catches_a_leaky_harness(monkeypatch):
    """The detector is not vacuous: a harness that gives the renderer every event and a renderer
    that copies every raw reply into every prompt, and rules that tell the questioner the secret
    word, are both caught."""
    from pytest_gameeval.engine import runner
    from pytest_gameeval.engine.events import REPLY
    from pytest_gameeval.games.askguess.rules import AskGuessGame

    real_render = runner.render

    def leaky_render(style, system, events, seat):
        messages = real_render(style, system, events, seat)
        messages[-1]["content"] += "\n" + "\n".join(e.text for e in events if e.kind == REPLY)
        return messages

    real_system = AskGuessGame.system_prompt

    def leaky_system(self, seat):
        return real_system(self, seat) + " (psst: " + self.seats["Answerer"].private["word"] + ")"

    monkeypatch.setattr(runner, "render", leaky_render)
    # the runner renders a seat's prompt from its filtered view: the leak is a harness that hands
    # the renderer every event instead
    monkeypatch.setattr(runner, "visible_events", lambda events, seat: list(events))
    monkeypatch.setattr(AskGuessGame, "system_prompt", leaky_system)
    leaks, _ = isolation_leaks("askguess", 0)
    assert any("private thought" in leak for leak in leaks), leaks
    assert any("the host told Questioner Answerer's private" in leak for leak in leaks), leaks
