"""`gameeval play`: a person at the terminal plays the user seat (driven here with pexpect)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from pytest_gameeval.cli import main as cli  # noqa: E402
from pytest_gameeval.engine.record import read_records  # noqa: E402
from pytest_gameeval.games.registry import get_spec  # noqa: E402

GAMEEVAL = str(Path(sys.executable).with_name("gameeval"))


def spawn(*args: str) -> "pexpect.spawn":
    return pexpect.spawn(GAMEEVAL, ["play", *args], encoding="utf-8", timeout=30)


def test_akinator_person_answers_and_record_is_scored(tmp_path):
    out = tmp_path / "session.jsonl"
    child = spawn("akinator", "--model", "gameeval/scripted", "--case", "dog", "--seed", "1",
                  "-T", "max_questions=3", "--out", str(out))
    child.expect("You are thinking of: dog")
    child.expect("Questioner: ")
    child.expect("> ")
    child.sendline("maybe")  # not an allowed answer: the host re-asks
    child.expect("breaks a rule")
    child.expect("> ")
    child.sendline("No")
    answered = 1
    while child.expect(["> ", "Record saved to (\\S+)"]) == 0 and answered < 10:
        child.sendline("Don't know")
        if "finish with an empty line" in child.before:  # the retrospective judgement of a list
            child.sendline("")
        answered += 1
    assert child.match.group(1).strip() == str(out)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    [record] = read_records(out)
    assert record.game == "akinator" and record.instance_id == "dog"
    assert record.seat("User")["model"] == "human"
    assert record.failures["User"]["rule"] == 1
    assert record.label in ("win", "lose")
    spec = get_spec("akinator")
    assert spec.score(record)["rounds"] == 3.0
    assert spec.summarize([record])["games"] == 1


def test_taboo_clue_rules_apply_to_the_person(tmp_path):
    out = tmp_path / "taboo.jsonl"
    child = spawn("taboo", "--model", "gameeval/scripted", "--case", "dog", "--seed", "2",
                  "-T", "max_rounds=1", "--out", str(out))
    child.expect('secret word is "dog"')
    child.expect("> ")
    child.sendline("My dog barks")  # contains the word: re-asked
    child.expect("contains the secret word")
    child.expect("> ")
    child.sendline("It barks and wags its tail")
    child.expect("Record saved")
    child.expect(pexpect.EOF)
    child.close()
    [record] = read_records(out)
    assert record.failures["User"]["rule"] == 1
    said = [e.text for e in record.events if e.kind == "speech" and e.speaker == "User"]
    assert said == ["It barks and wags its tail"]


def test_end_of_input_ends_the_game_as_chat_error(tmp_path, monkeypatch, capsys):
    # in-process (no terminal needed): stdin is empty, so the first read raises EOFError
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    out = tmp_path / "eof.jsonl"
    assert cli(["play", "bluffing", "--model", "gameeval/scripted", "--seed", "3", "--out", str(out)]) == 0
    assert "Record saved to" in capsys.readouterr().out
    [record] = read_records(out)
    assert record.label == "CE" and record.failures["User"]["chat"] == 1


@pytest.mark.parametrize("args,message", [
    (["akinator", "--model", "gameeval/scripted", "--case", "unicorn-xyz", "--seed", "1"], "no case with id"),
    (["taboo", "--model", "gameeval/scripted", "-T", "colour=red"], "unknown task argument"),
    (["taboo", "--model", "gameeval/scripted", "-T", "oops"], "expected KEY=VALUE"),
    (["bluffing", "--model", "gameeval/scripted", "--out", "/nonexistent-dir-h7/x.jsonl"], "does not exist"),
])
def test_bad_arguments_are_one_line(args, message, capsys):
    assert cli(["play", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_the_end_is_said_from_the_persons_side_and_questions_are_counted(tmp_path):
    out = tmp_path / "aki.jsonl"
    child = spawn("akinator", "--model", "gameeval/scripted", "--case", "dog", "--seed", "1",
                  "-T", "max_questions=2", "--out", str(out))
    child.expect(r"\(question 1 of 2\)")
    child.expect("> ")
    child.sendline("No")
    child.expect(r"\(question 2 of 2\)")
    child.expect("> ")
    child.sendline("No")
    while child.expect(["> ", r"(You win|You lose): (.*)\(the model's outcome: (\w+)\)"]) == 0:
        child.sendline("No")  # any later turn (a multi-line one ends at the empty line)
        child.sendline("")
    verdict, label = child.match.group(1), child.match.group(3)
    child.expect(pexpect.EOF)
    [record] = read_records(out)
    assert label == record.label
    assert verdict == ("You win" if record.outcome["winner"] == "User" else "You lose")


def test_ctrl_d_is_said_plainly(tmp_path, monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert (
        cli(["play", "akinator", "--model", "gameeval/scripted", "--seed", "3", "--out", str(tmp_path / "x.jsonl")])
        == 0
    )
    text = capsys.readouterr().out
    assert "You ended the input (Ctrl-D), so the game stopped without a result" in text
    assert "Game over: CE" not in text
