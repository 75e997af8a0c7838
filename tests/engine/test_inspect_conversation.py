"""A seat's prompt converted to inspect messages incrementally: always equal to a full conversion,
re-sending the unchanged prefix as the same message objects (what inspect's log pooling keys on)."""

from __future__ import annotations

import asyncio

from conftest import FakePlayer

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.model import InspectConversation, to_inspect


def same(a, b) -> bool:
    return [(type(m), m.content) for m in a] == [(type(m), m.content) for m in b]


def test_a_growing_prompt_reuses_the_prefix_objects():
    conversation = InspectConversation()
    first = [{"role": "system", "content": "rules"}, {"role": "user", "content": "Host: begin"}]
    sent1 = conversation.convert(first)
    second = [*first, {"role": "assistant", "content": "Is it red?"}, {"role": "user", "content": "Host: no"}]
    sent2 = conversation.convert(second)
    assert same(sent2, to_inspect(second))
    assert sent2[0] is sent1[0] and sent2[1] is sent1[1]  # re-sent, not rebuilt
    assert sent2 is not sent1 and len(sent1) == 2  # each call gets its own list; the earlier one is untouched


def test_a_changed_or_removed_message_ends_the_shared_prefix():
    conversation = InspectConversation()
    base = [{"role": "system", "content": "rules"}, {"role": "user", "content": "Host: begin"},
            {"role": "assistant", "content": "probe answer"}, {"role": "user", "content": "Host: next"}]
    sent1 = conversation.convert(base)
    merged = [base[0], {"role": "user", "content": "Host: begin\nPlayer 2: hi"}]  # last user line merged in
    sent2 = conversation.convert(merged)
    assert same(sent2, to_inspect(merged)) and sent2[0] is sent1[0] and sent2[1] is not sent1[1]
    without_probe = [base[0], base[1], base[3]]  # a record-only exchange left the view
    sent3 = conversation.convert(without_probe)
    assert same(sent3, to_inspect(without_probe))
    role_changed = [base[0], {"role": "assistant", "content": "Host: begin"}]
    assert same(conversation.convert(role_changed), to_inspect(role_changed))


def test_every_prompt_of_a_real_game_converts_as_a_full_conversion_would():
    spec = get_spec("askguess")
    options = spec.parse_options({"max_rounds": 6})
    row = spec.rows(options)[0]
    conversations: dict[str, InspectConversation] = {}
    sent: dict[str, list] = {}
    checked = []

    def check(ctx) -> str:
        conversation = conversations.setdefault(ctx.seat.name, InspectConversation())
        messages = conversation.convert(ctx.messages)
        assert same(messages, to_inspect(ctx.messages))
        previous = sent.get(ctx.seat.name, [])
        assert all(a is b for a, b in zip(messages, previous[:-1]))  # all but a merged last message re-sent
        sent[ctx.seat.name] = messages
        checked.append(len(messages))
        return f"Is it something you can hold in one hand, number {len(checked)}?"  # a question may not repeat

    record = asyncio.run(play_case(spec, row, 0, options, lambda seat, role: FakePlayer(check, label="check")))
    assert record.label == "RLE" and len(checked) == 12 and max(checked) > 10
