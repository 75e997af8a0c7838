"""SpyFall's two prompt sets: protocol=paper's exactly as first written, the default's shorter
(formats once in the system prompt, lower caps), and a settled tie that calls no model."""

import json

from conftest import play_all_fake

from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.players.scripted import cot

SPEC = get_spec("spyfall")

# protocol=paper's prompts, byte for byte as they were before the default's were shortened (issue 35)
PAPER_SYSTEM = (
    'You are Jack, playing SpyFall with 5 other players: Mary, Alice, Tom, Linda, Peter. Every player received a '
    'secret word. 5 players share the same word; one player, the spy, received a different but related word. '
    'Nobody is told whether they are the spy: work it out from what the others say. Your word is "ipad". Each '
    'round, every player still in the game describes their word in one short sentence without saying it; then '
    'every player votes for the player they think is the spy and says why. The player with the most votes is out; '
    'a tie goes to a revote among the tied players, then to a draw of lots. The villagers win as soon as the spy is '
    'voted out. The spy wins if it is still in the game when only 3 players remain. If the others\' descriptions do '
    'not fit your word, you are probably the spy: then describe your word vaguely so that you blend in, and vote '
    'for a villager. Never say your word.'
)
PAPER_DESCRIBE = (
    'Round 1: it is your turn to describe your word without saying it. Reply with one JSON object: {"thought": '
    '"<your private reasoning>", "speak": "<your description>"}. Only the speak field is heard by the other players; '
    'your thought stays private.'
)
PAPER_VOTE_TAIL = (
    'You cannot vote for yourself. Reply with one JSON object: {"thought": "<your private reasoning>", "speak": '
    '"<why you vote this way>", "name": "<the player you vote for>"}. The speak field and your vote are heard by '
    'everyone; your thought stays private.'
)


def row():
    return next(r for r in SPEC.rows(SPEC.parse_options({})) if r.id == "ipad-iphone-fwd")


def first_vote(ctx):
    return json.dumps({"thought": "t", "speak": "because", "name": ctx.turn.data["options"][0]})


def policy(ctx):
    return cot(f"clue from {ctx.seat.name}") if ctx.turn.action == "describe" else first_vote(ctx)


def prompts_of(seat, **options):
    given = {"shuffle_seats": False, "shuffle_order": False, "shuffle_options": False, **options}
    record, players = play_all_fake(SPEC, row(), 0, SPEC.parse_options(given), policy)
    return record, players[seat].prompts


def test_the_paper_protocol_keeps_its_prompts_byte_for_byte():
    _, asked = prompts_of("Jack", protocol="paper")
    assert asked[0].messages[0] == {"role": "system", "content": PAPER_SYSTEM}
    assert asked[0].turn.instruction == PAPER_DESCRIBE
    vote = next(c for c in asked if c.turn.action == "vote")
    assert (
        vote.turn.instruction
        == f"Vote for the player you think is the spy: make a choice from {vote.turn.data['options']}. "
           f"{PAPER_VOTE_TAIL}"
    )
    schema = asked[0].turn.reply.json_schema()["properties"]
    assert (schema["thought"]["maxLength"], schema["speak"]["maxLength"]) == (100, 120)


def test_the_default_protocol_gives_the_formats_once_and_caps_shorter():
    _, asked = prompts_of("Player 1")
    system = asked[0].messages[0]["content"]
    assert system.startswith("You are Player 1, playing SpyFall") and "Never say your word." in system
    assert '{"thought": "<your private reasoning>", "speak": "<your description>"}' in system
    assert '"name": "<the player you vote for>"' in system and "your thought stays private" in system
    turns = [c.turn for c in asked]
    assert {t.action for t in turns} == {"describe", "vote"}
    for turn in turns:  # no turn repeats a format line; a vote still lists its options
        assert "JSON" not in turn.instruction and "thought" not in turn.instruction
        assert len(turn.instruction) < 80 + len(str(turn.data.get("options", "")))
        if turn.action == "vote":
            assert str(turn.data["options"]) in turn.instruction
        schema = turn.reply.json_schema()["properties"]
        caps = (60, 80) if turn.action == "describe" else (60, 60)
        assert (schema["thought"]["maxLength"], schema["speak"]["maxLength"]) == caps
    assert all(m["content"] != system for c in asked for m in c.messages[1:])


TIE = {"Player 1": "Player 2", "Player 2": "Player 3", "Player 3": "Player 2", "Player 4": "Player 3"}


def villagers_tie(ctx):
    """The spy (Player 1) votes with the villagers; Players 2 and 3 get two votes each, every ballot."""
    if ctx.turn.action == "describe":
        return cot(f"clue from {ctx.seat.name}")
    options = ctx.turn.data["options"]
    name = TIE[ctx.seat.name] if TIE[ctx.seat.name] in options else options[0]
    return json.dumps({"thought": "t", "speak": "because", "name": name})


def test_a_tie_that_settles_the_game_asks_no_revote():
    """Four players, the spy wins at 3: whichever tied villager went out, the spy would win."""
    given = {"shuffle_seats": False, "shuffle_order": False, "shuffle_options": False, "players": 4, "end_players": 3}
    record, players = play_all_fake(SPEC, row(), 0, SPEC.parse_options(given), villagers_tie)
    details = record.outcome["details"]
    assert record.label == "spy_win" and details["rounds"] == 1 and details["eliminated"] == []
    assert [b["stage"] for b in details["ballots"]] == ["first"] * 4
    assert sum(len(p.prompts) for p in players.values()) == 8  # 4 descriptions, 4 ballots
    assert SPEC.score(record)["spy_living_round"] == 1.0
    # the same tie with the spy winning only at 2 decides who stays: it is revoted
    record, _ = play_all_fake(SPEC, row(), 0, SPEC.parse_options({**given, "end_players": 2}), villagers_tie)
    assert "revote" in {b["stage"] for b in record.outcome["details"]["ballots"]}
