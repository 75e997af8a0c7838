"""What SpyFall accepts as a move (issue 45): protocol=paper accepts what GameEval's harness accepted
(a vote for oneself, the own word, no thought, "vote" for "name"; well-formed JSON only); the
default protocol reads what a referee would read (near-JSON with unquoted values, "vote" for
"name", a JSON object after prose), and nothing of it can carry a second move."""

import json

import pytest
from conftest import play_all_fake

from pytest_gameeval.engine.errors import ParseError
from pytest_gameeval.engine.events import ACTION, FAILURE, SPEECH
from pytest_gameeval.games.referee_reading import near_json_object, read_move
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.spyfall import prompts
from pytest_gameeval.players.scripted import cot

SPEC = get_spec("spyfall")
FIXED = dict(shuffle_seats=False, shuffle_order=False, shuffle_options=False)  # spy = Player 1 (default naming)


def play(protocol, first_vote, describe=None):
    """One game in which Player 2's first vote is `first_vote` (text); everyone else votes out the spy."""
    options = SPEC.parse_options({**FIXED, "protocol": protocol, "naming": 1, "revote": False})
    row = next(r for r in SPEC.rows(options) if r.id.startswith("ipad-iphone"))
    sent = {"Player 2": 0}

    def answer(ctx):
        name = ctx.seat.name
        if ctx.turn.action == "describe":
            return describe(ctx) if describe else cot(f"clue from {name}")
        if name == "Player 2" and sent[name] == 0:
            sent[name] += 1
            return first_vote
        target = "Player 1" if name != "Player 1" else "Player 2"
        return json.dumps({"thought": "t", "speak": "because", "name": target})

    record, _ = play_all_fake(SPEC, row, 0, options, answer)
    return record


def first_failure(record, seat="Player 2"):
    return next((e.text for e in record.events if e.kind == FAILURE and e.speaker == seat), None)


def ballots(record, seat="Player 2"):
    return [e.data["choice"] for e in record.events if e.kind == ACTION and e.speaker == seat and "choice" in e.data]


# -- protocol=paper: what GameEval's harness accepted ------------------------------------------------
def test_a_vote_for_oneself_counts_under_paper_and_is_rejected_by_default():
    self_vote = json.dumps({"thought": "t", "speak": "me", "name": "Player 2"})
    paper = play("paper", self_vote)
    assert first_failure(paper) is None and ballots(paper) == ["Player 2"]
    default = play("default", self_vote)
    assert "cannot vote for yourself" in first_failure(default)


def test_a_vote_whose_reason_says_the_own_word_counts_and_the_default_withholds_the_reason():
    """Player 2 is a villager (the spy sits in seat 1): its vote counts under both protocols (the
    paper's rules forbid the word in descriptions only); the default keeps the word from the others."""
    row = next(r for r in SPEC.rows(SPEC.parse_options({**FIXED})) if r.id.startswith("ipad-iphone"))
    said = f"my {row.data['villager_word']} says so"
    reason = json.dumps({"thought": "t", "speak": said, "name": "Player 1"})
    paper, default = play("paper", reason), play("default", reason)
    assert first_failure(paper) is None and first_failure(default) is None
    assert ballots(paper) == ballots(default) == ["Player 1"]
    public = lambda record: [e.text for e in record.events if e.kind == SPEECH and e.to is None]  # noqa: E731
    assert said in public(paper) and said not in public(default)
    assert any(e.data.get("withheld_reason") == "Player 2" for e in default.events)


@pytest.mark.parametrize("protocol", ["paper", "default"])
def test_thought_is_optional_and_vote_stands_for_name(protocol):
    record = play(protocol, json.dumps({"speak": "because", "vote": "Player 1"}))
    assert first_failure(record) is None and ballots(record) == ["Player 1"]


def test_paper_reads_only_well_formed_json_as_gameeval_did():
    near = '{"thought": I am not sure, "speak": He was vague, "name": Player 1}'
    assert "no JSON object" in first_failure(play("paper", near))
    assert first_failure(play("default", near)) is None


# -- the default protocol: what a referee reads --------------------------------------------------
VOTE = prompts.short_vote(["Player 1", "Player 3"])


@pytest.mark.parametrize("text", [
    '{"thought": I need to guess, "speak": It is a kind of vehicle., "name": Player 1}',
    '{\\"thought\\":I think so. \\"speak\\":Careful with him. \\"name\\":Player 1}',
    "{thought: 'hmm', speak: 'careful', name: 'Player 1'}",
    '{"thought": "hmm", "speak": "careful", "name": "Player 1"}'.replace('"', "\u201c", 1).replace('"', "\u201d"),
    'Sure, here is my vote:\n{"thought": "hmm", "speak": "careful", "name": "Player 1"}',
])
def test_the_default_reads_near_json_and_json_after_prose(text):
    assert read_move(VOTE, text)["name"] == "Player 1"


def test_near_json_naming_a_field_twice_is_no_move():
    """A second "name" inside the reason cannot cast a second vote, nor replace the first."""
    smuggled = '{"thought": x, "speak": I vote "name": Player 3 too, "name": Player 1}'
    with pytest.raises(ParseError, match="more than once"):
        near_json_object(smuggled, ["thought", "speak", "name"])
    record = play("default", smuggled)
    assert "more than once" in first_failure(record)


def test_a_vote_hidden_in_a_reason_or_in_prose_is_never_a_second_ballot():
    """JSON inside the public reason is text; of two objects only the last is the move: one ballot."""
    inside = json.dumps({"thought": "t", "speak": 'say {"name": "Player 3"}', "name": "Player 1"})
    assert read_move(VOTE, inside)["name"] == "Player 1"
    two = '{"name": "Player 3", "speak": "a"} and then {"thought": "t", "speak": "b", "name": "Player 1"}'
    record = play("default", two)
    assert ballots(record) == ["Player 1"]  # one ballot for the voter, the last object's


def test_a_describe_turn_never_becomes_a_vote():
    """A description whose text carries a vote object casts nothing: describe turns have no ballot."""
    sneaky = lambda ctx: '{"thought": x, "speak": clue {"name": "Player 3"}}'  # noqa: E731
    record = play("default", json.dumps({"thought": "t", "speak": "b", "name": "Player 1"}), describe=sneaky)
    votes = [e for e in record.events if e.kind == ACTION and "choice" in e.data and e.round == 1]
    assert len(votes) == len({e.speaker for e in votes})  # one ballot per voter in round 1
