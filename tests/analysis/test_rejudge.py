"""`gameeval rejudge` (issue 45): recorded games replayed through the installed rules with no model
call. A game whose replies the installed rules judge as recorded replays to the same record; a move
judged differently is listed (and a reply now rejected ends the replay as diverged, with where and
why); a report from a previous game version becomes a re-judged report that the gate and
`report diff` accept as a baseline when its prompts are unchanged, and refuse, saying why, when not."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gameeval.analysis.rejudge.record import NOT_ASKED, rejudge_record
from pytest_gameeval.analysis.report.file import records_seal
from pytest_gameeval.engine.events import FAILURE, REPLY, Event
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.players.scripted import scripted_binder

FIXED = {"shuffle_seats": False, "shuffle_order": False, "shuffle_options": False}


def scripted_record(game: str, protocol: str = "default", row: int = 0, **options) -> GameRecord:
    spec = get_spec(game)
    typed = spec.parse_options({"protocol": protocol, **options})
    return asyncio.run(play_case(spec, spec.select_rows(typed)[row], 0, typed, scripted_binder(spec, {"*": "random"})))


@pytest.mark.parametrize("protocol", ["default", "paper"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_game_judged_as_recorded_replays_to_the_same_record(game, protocol):
    record = scripted_record(game, protocol)
    result = rejudge_record(record)
    assert result.error is None and result.diverged is None and result.changes == []
    assert result.host_line is None and not result.outcome_changed
    assert result.new.outcome == record.outcome and result.new.seats == record.seats
    assert result.new.failures == record.failures


def test_a_reply_now_rejected_ends_the_replay_as_diverged_with_where_and_why():
    """As if a previous version had accepted a description that says the speaker's own word."""
    record = scripted_record("spyfall", **FIXED)
    first = next(i for i, e in enumerate(record.events) if e.kind == REPLY)
    seat = record.events[first].speaker
    word = next(s["private"]["word"] for s in record.seats if s["name"] == seat)
    record.events[first].text = json.dumps({"thought": "t", "speak": f"it is a {word}"})
    result = rejudge_record(record)
    assert result.new is None and result.diverged["kind"] == "re-prompt" and result.diverged["seat"] == seat
    assert result.diverged["where"] == f"event {first}, round 1"
    (change,) = result.changes
    assert change["seat"] == seat and change["was"] == "accepted" and change["now"].startswith("rule: ")


def test_a_reply_now_accepted_skips_the_recorded_re_prompts():
    """As if a previous version had rejected a paper-protocol vote for oneself, then taken the retry."""
    record = scripted_record("spyfall", "paper", **FIXED)
    vote = next(i for i, e in enumerate(record.events) if e.kind == REPLY and e.data.get("action") == "vote")
    voter, retry = record.events[vote].speaker, record.events[vote].text
    record.events[vote].text = json.dumps({"thought": "t", "speak": "me", "name": voter})
    failure = Event(FAILURE, "you cannot vote for yourself", voter, (), 1,
                    {"kind": "rule", "action": "vote", "attempt": 0})
    again = Event(REPLY, retry, voter, (voter,), 1, {"action": "vote", "attempt": 1})
    record.events[vote + 1:vote + 1] = [failure, again]
    result = rejudge_record(record)
    assert result.diverged is None and result.new is not None
    assert [(c["attempt"], c["was"], c["now"]) for c in result.changes] == [
        (0, "rule: you cannot vote for yourself", "accepted"), (1, "accepted", NOT_ASKED)]


def test_rejudge_of_a_records_file_says_what_changed_and_writes_no_report(tmp_path, capsys):
    from pytest_gameeval.cli import main as cli_main
    from pytest_gameeval.engine.record import write_records

    records = [scripted_record("spyfall", row=i) for i in range(2)]
    records[1].events[next(i for i, e in enumerate(records[1].events) if e.kind == REPLY)].text = "not json"
    write_records(tmp_path / "games.jsonl", records)
    assert cli_main(["rejudge", str(tmp_path / "games.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "spyfall: version " in out and "1 of 2 games re-judged to their end, 1 moves judged differently" in out
    assert "diverged: " in out and "cannot stand in for a rerun: records without their report" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl"]


# -- a report of a previous game version, the gate and report diff ------------------------------------
GATE = ["--gameeval-only", "-p", "no:cacheprovider", "--gameeval-games", "spyfall", "--gameeval-limit", "3",
        "--gameeval-model=gameeval/scripted/random"]


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def as_previous_version(report_path: Path, *, prompts: str | None = None) -> None:
    """Make a report (and its records) say they were made by spyfall version 3, whose prompts were
    `prompts` (default: the installed ones)."""
    report = json.loads(report_path.read_text())
    game = report["games"]["spyfall"]
    game.update(version="3", fingerprint="0" * 64, **({"prompts": prompts} if prompts else {}))
    records = report_path.with_name(report_path.name + ".records.jsonl")
    rows = [json.loads(line) for line in records.read_text().splitlines()]
    records.write_text("".join(json.dumps({**r, "game_version": "3"}) + "\n" for r in rows))
    report["run"].update(records_seal(records))  # the pair stays one unit, as a run of version 3 wrote it
    report_path.write_text(json.dumps(report))


@pytest.fixture(scope="module")
def previous(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("rejudge")
    (cwd / "conftest.py").write_text("")
    made = run(cwd, "pytest", *GATE, "--gameeval-report=base.json")
    assert made.returncode == 0, made.stdout[-2000:]
    for name in ("base", "changed"):
        if name == "changed":
            (cwd / "changed.json").write_text((cwd / "base.json").read_text())
            (cwd / "changed.json.records.jsonl").write_text((cwd / "base.json.records.jsonl").read_text())
        as_previous_version(cwd / f"{name}.json", prompts="f" * 64 if name == "changed" else None)
    return cwd


@pytest.mark.slow
def test_a_previous_versions_baseline_is_refused_until_re_judged(previous):
    refused = run(previous, "pytest", *GATE, "--gameeval-baseline=base.json")
    assert refused.returncode == 4 and "incomparable game versions (old: 3" in refused.stdout + refused.stderr
    rejudged = run(previous, "pytest_gameeval.cli", "rejudge", "base.json")
    assert rejudged.returncode == 0, rejudged.stderr
    assert "spyfall: version 3 -> " in rejudged.stdout and "stands in for a rerun" in rejudged.stdout
    report = json.loads((previous / "base.rejudged.json").read_text())
    assert report["games"]["spyfall"]["rejudged"]["stands_in"] is True
    assert report["games"]["spyfall"]["version"] == get_spec("spyfall").version
    gated = run(previous, "pytest", *GATE, "--gameeval-baseline=base.rejudged.json")
    assert gated.returncode == 0, gated.stdout[-2000:]
    stand_in = "baseline re-judged by the installed rules, a fair stand-in: spyfall re-judged from version 3"
    assert stand_in in gated.stdout
    diff = run(previous, "pytest_gameeval.cli", "report", "diff", "base.rejudged.json", "reports/gameeval-report.json")
    assert "re-judged by the installed rules (gameeval rejudge)" in diff.stdout, diff.stdout + diff.stderr


@pytest.mark.slow
def test_a_re_judged_baseline_whose_prompts_changed_is_refused_with_the_reason(previous):
    rejudged = run(previous, "pytest_gameeval.cli", "rejudge", "changed.json", "--json")
    result = json.loads(rejudged.stdout)["games"]["spyfall"]
    assert result["stands_in"] is False and "prompts changed" in result["why"]
    refused = run(previous, "pytest", *GATE, "--gameeval-baseline=changed.rejudged.json")
    assert refused.returncode == 4
    assert "cannot stand in for a rerun: the prompts changed" in refused.stdout + refused.stderr
