"""Shared by the SpyFall and SpyGame prompt scans: seats played by their scripted policy whose
private fields carry a marker unique to the seat, and the scan of every prompt they were sent."""

import asyncio
import json

from conftest import FakePlayer

from pytest_gameeval.engine.matching import mentions
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.rng import derive_seed
from pytest_gameeval.players.scripted import ScriptedPlayer

PRIVATE_FIELDS = ("thought", "guess", "reasoning")


def nested_pair(a: str, b: str) -> bool:
    """Pairs where one word contains the other ("milk" / "soy milk") cannot pass a word scan."""
    return mentions(a, b) or mentions(b, a)


def marked(seat: str):
    """The seat's private fields carry a marker unique to the seat."""

    def change(ctx, text: str) -> str:
        reply = json.loads(text)
        for key in PRIVATE_FIELDS:
            if key in reply:
                reply[key] = f"{key} secretof{seat.replace(' ', '')} {reply[key]}"
        return json.dumps(reply)

    return change


def play_marked(spec, row, options, strengths):
    players = {}

    def bind(seat, role):
        policy = spec.scripted[strengths.get(role, strengths["*"])][seat.role]
        players[seat.name] = FakePlayer(
            inner=ScriptedPlayer(policy, derive_seed(row.id, seat.name), "marked"), change=marked(seat.name)
        )
        return players[seat.name]

    record = asyncio.run(play_case(spec, row, 0, options, bind))
    return record, players


def scan(record, players):
    """Assert word isolation and thought privacy over every prompt sent in one game."""
    details = record.outcome["details"]
    spy_word, villager_word = details["spy_word"], details["villager_word"]
    roles = {s["name"]: s["role"] for s in record.seats}
    for name, player in players.items():
        if not player.prompts:  # only when an evaluated seat's forfeit ended the game before its turn
            assert record.label == "aborted", f"{name} was never asked"
            continue
        forbidden = villager_word if roles[name] == "spy" else spy_word
        for ctx in player.prompts:
            text = "\n".join(m["content"] for m in ctx.messages)
            assert not mentions(text, forbidden), f"{name} ({roles[name]}) saw {forbidden!r}"
            for other in players:
                if other != name:
                    assert f"secretof{other.replace(' ', '')}" not in text, f"{name} saw a private field of {other}"
        own = "\n".join(m["content"] for m in player.prompts[-1].messages)
        # a seat sees its own accepted replies (a settled turn's rejected ones leave its prompts)
        accepted = [
            e
            for e in record.events
            if e.kind == "reply" and e.speaker == name and not e.data.get("retracted") and "probe" not in e.data
        ]
        if len(accepted) > 1:
            assert f"secretof{name.replace(' ', '')}" in own  # a seat does see its own replies
