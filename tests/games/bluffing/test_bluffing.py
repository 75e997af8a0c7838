"""Bluffing rules, probes and scripted players, with scripted replies (no model)."""

from __future__ import annotations

import asyncio
import json

import pytest

from pytest_gameeval.engine.errors import GameEvalError, ParseError
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.spec import Row
from pytest_gameeval.games.bluffing import SPEC
from pytest_gameeval.games.bluffing.rules import read_level, read_verdict
from pytest_gameeval.players.scripted import ReplayPlayer, scripted_binder

TRUE_ROW = {"id": "s1", "statement": "I have climbed Kilimanjaro.", "label": True, "topic": "travel",
            "persona": {"name": "Ana", "facts": ["I climbed it in 2019 with my brother.", "I live in Lisbon."]}}
FALSE_ROW = {**TRUE_ROW, "id": "s2", "label": False, "persona": {"name": "Ben", "facts": ["I have never left the UK."]}}
VERDICT = "I believe your statement is: {}"


def play(replies: dict[str, list], row=TRUE_ROW, **options):
    opts = SPEC.parse_options({"retrospective": False, **options})
    players = {name: ReplayPlayer(replies.get(name, []), name) for name in ("Interrogator", "User")}
    record = asyncio.run(play_case(SPEC, Row(row["id"], row), 0, opts, lambda seat, role: players[seat.name]))
    return record, players


def test_early_right_verdict_wins():
    record, _ = play({"Interrogator": ["When?", VERDICT.format("True")], "User": ["In 2019."]})
    assert record.label == "win" and record.outcome["details"]["rounds"] == 1


def test_wrong_verdict_loses_and_label_false_is_respected():
    record, _ = play({"Interrogator": [VERDICT.format("True")]}, row=FALSE_ROW)
    assert record.label == "lose" and record.outcome["details"]["truth"] is False


def test_verdict_is_due_after_the_last_question():
    record, players = play({"Interrogator": ["Q1?", "Q2?", "I think it is false", VERDICT.format("**False**")],
                            "User": ["A1.", "A2."]}, row=FALSE_ROW, max_questions=2)
    assert record.label == "win"
    assert record.failures["Interrogator"]["format"] == 1
    assert "verdict" in players["Interrogator"].prompts[2].messages[-1]["content"]


def test_missing_verdict_loses_and_chat_error():
    record, _ = play({"Interrogator": ["Q1?", "no", "no", "no"], "User": ["A1."]}, max_questions=1)
    assert record.label == "no_verdict"
    record, _ = play({"Interrogator": ["Q1?"], "User": [None]})
    assert record.label == "CE"


def test_user_secret_stays_with_the_user():
    record, players = play({"Interrogator": ["Q1?", VERDICT.format("False")], "User": ["Sure."]}, row=FALSE_ROW)
    user_system = players["User"].prompts[0].messages[0]["content"]
    assert "FALSE" in user_system and "lie consistently" in user_system
    for ctx in players["Interrogator"].prompts:
        assert "FALSE" not in json.dumps(ctx.messages) and "never left" not in json.dumps(ctx.messages)


def test_read_verdict_and_level():
    assert read_verdict("Hmm. I believe your statement is: false.") is False
    assert read_verdict('I believe your statement is "True"') is True
    assert read_verdict("It is true") is None
    assert read_level("Possibly  true, I'd say")["level"] == "Possibly true"
    assert read_level("FALSE")["level"] == "False"
    assert read_level("unknown for now")["level"] == "Unknown"
    with pytest.raises(ParseError):
        read_level("no idea")


def test_retrospective_levels_are_recorded_hidden_and_scored():
    interrogator = ["Q1?", "Unknown", "Q2?", "Possibly false", "Q3?", "False", VERDICT.format("False")]
    record, players = play(
        {"Interrogator": interrogator, "User": ["A1.", "A2.", "A3."]},
        row=FALSE_ROW,
        retrospective=True,
        max_questions=3,
    )
    assert record.label == "win"
    score = SPEC.score(record)
    assert score["hopping"] == 2.0 and score["spearman"] == pytest.approx(-1.0)
    assert score["first_correct_side"] == 2.0 and score["final_distance"] == 0.0
    assert "Retrospective" not in json.dumps(players["Interrogator"].prompts[-1].messages)
    assert all("Retrospective" not in json.dumps(c.messages) for c in players["User"].prompts)


def test_scripted_random_interrogator_is_a_coin(tmp_path, monkeypatch):
    rows = [{**TRUE_ROW, "id": f"t{i}"} for i in range(10)] + [{**FALSE_ROW, "id": f"f{i}"} for i in range(10)]
    (tmp_path / "bluffing").mkdir()
    (tmp_path / "bluffing" / "statements.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    opts = SPEC.parse_options({"retrospective": True})
    records = [asyncio.run(play_case(SPEC, r, 0, opts, scripted_binder(SPEC, {"*": "random"}, seed=i)))
               for i, r in enumerate(SPEC.select_rows(opts))]
    wins = sum(r.label == "win" for r in records)
    assert 3 <= wins <= 17  # a coin: P(outside) < 0.003
    assert all(r.label in ("win", "lose") for r in records)
    assert SPEC.summarize(records)["retrospective"]["probe_failure_rate"]["value"] == 0.0


def test_bad_data_is_one_clear_error(tmp_path, monkeypatch):
    (tmp_path / "bluffing").mkdir()
    (tmp_path / "bluffing" / "statements.jsonl").write_text(json.dumps({**TRUE_ROW, "label": "yes"}) + "\n")
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    with pytest.raises(GameEvalError, match="statements.jsonl:1: key 'label'"):
        SPEC.select_rows(SPEC.parse_options({}))


def test_real_statements_are_enough_and_balanced():
    rows = SPEC.select_rows(SPEC.parse_options({}))
    labels = [r.data["label"] for r in rows]
    assert len(rows) >= 60
    assert labels.count(True) == labels.count(False)  # never all false


@pytest.mark.parametrize("style", ["chat", "flat"])
@pytest.mark.parametrize("protocol", ["default", "paper"])
def test_copying_the_hosts_whole_verdict_line_is_no_verdict(style, protocol):
    """Issue 45: the host's line as the prompt shows it, prefix and both offered answers included,
    read as a reply: no verdict (a format error: it gives both), in either style and protocol."""
    from pytest_gameeval.engine.player import Reply

    class CopiesTheHost(ReplayPlayer):
        async def act(self, ctx):
            if ctx.turn.action != "verdict":
                return await super().act(ctx)
            shown = "\n".join(m["content"] for m in ctx.messages).splitlines()
            return Reply(next(line for line in reversed(shown) if "No questions left" in line))

    opts = SPEC.parse_options({"retrospective": False, "max_questions": 1, "style": style, "protocol": protocol})
    seats = {"Interrogator": CopiesTheHost(["Q1?"], "Interrogator"), "User": ReplayPlayer(["A1."], "User")}
    record = asyncio.run(play_case(SPEC, Row("s1", TRUE_ROW), 0, opts, lambda seat, role: seats[seat.name]))
    assert record.label == "no_verdict" and record.outcome["details"]["verdict"] is None
    assert record.failures["Interrogator"]["format"] >= 1 and record.failures["Interrogator"]["rule"] == 0
    with pytest.raises(ParseError, match="both verdicts"):
        read_verdict('"I believe your statement is: True" or "... False"')
