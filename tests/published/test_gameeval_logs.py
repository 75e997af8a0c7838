"""GameEval's SpyFall log format read and replayed, on logs written here in that format (our own
made-up games: the published ones are never copied into the project; tests/published/
test_published_games.py reads those where they are)."""

import json

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.published.gameeval_logs import DESCRIBE, VOTE, read_games
from pytest_gameeval.published.replaying import FAILED_CALL, READ_UNREADABLE, REJECTED, SAME_MOVE
from pytest_gameeval.published.spyfall_replay import replay_game

SEATS = ["player2", "player1", "player3", "player4", "player5", "player6"]  # speaking order
MODELS = ["text003", "text003", "gpt4", "gpt4", "gpt3", "gpt3"]
SPY = "player3"


def user(text):
    return {"role": "user", "content": text}


def describe(seat, words="a clue"):
    return [user(f"{seat}: {words}"), {"thought": "hm", "speak": words}]


def vote(seat, name, raw=None):
    reply = raw if raw is not None else {"thought": "hm", "speak": f"{name} is odd", "name": name}
    return [user(f"{seat}: {name} is odd, i will vote {name} as the spy."), reply]


def round_values(alive, votes, out=None):
    values = [user("host: Now the living players are:" + json.dumps(alive))]
    for seat in alive:
        values += describe(seat)
    values.append(user("host: now the voting start, please vote for the player you think is the spy."))
    for seat in alive:
        values += vote(seat, votes.get(seat, SPY)) if not isinstance(votes.get(seat), list) else votes[seat]
    if out:
        values.append(user(f"host: the voting result is {out}, he is not the spy, the spy still lives "))
    return values


def write_game(folder, name, rounds, winner, round_, rerun_first=False):
    values = [user("host: the game now start, players, please take turns to speak.")]
    for r in rounds:
        values += r
    (folder / name).write_text("\n\n".join(json.dumps(v) for v in values), encoding="utf-8")
    result = {"winer": winner, "players": SEATS, "llms": MODELS, "spy_index": SEATS.index(SPY) + 1,
              "round": round_, "log": name}
    with (folder / "res.json").open("a", encoding="utf-8") as out:
        if rerun_first:  # an earlier run of the same log file: the last line is its game
            out.write(json.dumps({**result, "winer": "exit", "round": -1}) + "\n")
        out.write(json.dumps(result) + "\n")


@pytest.fixture
def pair(tmp_path):
    folder = tmp_path / "random" / "Oboe&Clarinet"
    folder.mkdir(parents=True)
    round1 = round_values(SEATS, {"player3": "player1", **{s: "player1" for s in SEATS if s not in ("player1", SPY)},
                                  "player1": "player2"}, out="player1")
    alive = [s for s in SEATS if s != "player1"]
    round2 = round_values(alive, {"player3": "player2"})  # everyone else votes out the spy
    write_game(folder, "0.log", [round1, round2], "villager", 2, rerun_first=True)
    return folder


def test_the_log_reads_into_seats_replies_and_eliminations(pair):
    (game,) = read_games(pair.parent)
    assert game.source == "Oboe&Clarinet/0.log" and (game.spy_word, game.villager_word) == ("Oboe", "Clarinet")
    assert game.seats == SEATS and game.spy == SPY and game.models["player3"] == "gpt4"
    assert (game.winner, game.rounds) == ("villager", 2)  # the last res.json line of the log
    assert game.eliminated == {1: "player1"}
    assert [r.action for r in game.replies[:7]] == [DESCRIBE] * 6 + [VOTE]
    first = game.replies[0]
    assert first.seat == "player2" and json.loads(first.text)["speak"] == "a clue" and first.round == 1
    assert len(game.replies) == 12 + 10


@pytest.mark.parametrize("protocol", ["paper", "default"])
def test_a_recorded_game_replays_to_its_published_winner_and_round(pair, protocol):
    (game,) = read_games(pair.parent)
    replay = replay_game(game, protocol, strict=True)
    assert replay.diverged is None and replay.same_outcome
    assert replay.outcome == {"winner": "villager", "round": 2}
    assert {f.fate for f in replay.fates} == {SAME_MOVE}
    assert replay.record.seats[2]["model"] == "GPT-4"


def test_a_self_vote_counts_under_paper_and_diverges_a_strict_default_replay(tmp_path):
    folder = tmp_path / "Oboe&Clarinet"
    folder.mkdir()
    round1 = round_values(SEATS, {"player2": "player2", "player3": "player1",
                                  **{s: "player2" for s in ("player1", "player4", "player5", "player6")}}, "player2")
    alive = [s for s in SEATS if s != "player2"]
    write_game(folder, "0.log", [round1, round_values(alive, {"player3": "player1"})], "villager", 2)
    (game,) = read_games(tmp_path)
    assert replay_game(game, "paper", strict=True).same_outcome
    strict = replay_game(game, "default", strict=True)
    assert strict.diverged["kind"] == "re-prompt" and strict.diverged["seat"] == "player2"
    assert strict.diverged["where"].startswith("Oboe&Clarinet/0.log #")
    lenient = replay_game(game, "default")  # the self-vote is rejected, then forfeited: the replay goes on
    assert lenient.same_outcome
    rejected = [f for f in lenient.fates if f.fate == REJECTED]
    assert len(rejected) == 1 and "yourself" in rejected[0].check


def test_unparsed_and_failed_replies_have_their_own_fates(tmp_path):
    folder = tmp_path / "Oboe&Clarinet"
    folder.mkdir()
    near = '{"thought": I think so, "speak": He is odd, "name": player3}'
    votes = {"player2": [user("player2: None, i will vote None as the spy."), near],
             "player1": [user("player1: None, i will vote None as the spy."), None]}
    write_game(folder, "0.log", [round_values(SEATS, {**votes, "player3": "player1"})], "villager", 1)
    (game,) = read_games(tmp_path)
    default, paper = replay_game(game, "default"), replay_game(game, "paper")
    fate = lambda replay, seat: [f.fate for f in replay.fates if f.reply.seat == seat][-1]  # noqa: E731
    assert fate(default, "player2") == READ_UNREADABLE and fate(paper, "player2") == REJECTED
    assert fate(default, "player1") == fate(paper, "player1") == FAILED_CALL
    assert default.same_outcome and paper.same_outcome


def test_a_folder_without_pairs_is_one_clear_error(tmp_path):
    with pytest.raises(GameEvalError, match="no GameEval pair folder"):
        read_games(tmp_path)


def test_a_log_that_cannot_be_read_is_left_out_with_why(pair):
    (pair / "1.log").write_text('{"role": "user", "content": "host: the game now start"}\n\n{"thought": "orphan"}')
    with (pair / "res.json").open("a") as out:
        out.write(json.dumps({"winer": "spy", "players": SEATS, "llms": MODELS, "spy_index": 3, "round": 3,
                              "log": "1.log"}) + "\n")
    unreadable: list[str] = []
    games = read_games(pair.parent, unreadable)
    assert [g.source for g in games] == ["Oboe&Clarinet/0.log"]
    assert unreadable == ["Oboe&Clarinet/1.log: Oboe&Clarinet/1.log #1: a reply with no public line before it"]


def test_a_public_line_without_its_reply_is_a_failed_call(tmp_path):
    folder = tmp_path / "Oboe&Clarinet"
    folder.mkdir()
    round1 = round_values(SEATS, {"player3": "player1"})
    missing = round1.index(user("player1: a clue")) + 1
    del round1[missing]  # player1's description reply was never printed
    write_game(folder, "0.log", [round1], "villager", 1)
    (game,) = read_games(tmp_path)
    first = [r for r in game.replies if r.seat == "player1"][0]
    assert first.value is None and first.text is None and first.action == DESCRIBE
    assert replay_game(game, "paper").same_outcome


def test_rejudge_seats_a_published_replay_again_and_lists_what_other_rules_change(tmp_path):
    """A replay record judged by the default protocol (the self-vote rejected; the re-prompt got a
    failed call, which settles the turn as forfeited),
    re-judged as if its rules had become the paper's: the self-vote is now accepted, its recorded
    re-prompts are not asked, and the game ends as GameEval's did."""
    from pytest_gameeval.analysis.rejudge.record import NOT_ASKED, rejudge_record

    folder = tmp_path / "Oboe&Clarinet"
    folder.mkdir()
    round1 = round_values(SEATS, {"player2": "player2", "player3": "player1",
                                  **{s: "player2" for s in ("player1", "player4", "player5", "player6")}}, "player2")
    alive = [s for s in SEATS if s != "player2"]
    write_game(folder, "0.log", [round1, round_values(alive, {"player3": "player1"})], "villager", 2)
    (game,) = read_games(tmp_path)
    record = replay_game(game, "default").record
    same = rejudge_record(record)
    assert same.new is not None and same.changes == [] and same.diverged is None
    record.options["protocol"] = "paper"
    changed = rejudge_record(record)
    assert changed.diverged is None and not changed.outcome_changed
    assert [(c["seat"], c["attempt"], c["was"].split(":")[0], c["now"]) for c in changed.changes] == [
        ("player2", 0, "rule", "accepted"), ("player2", 1, "failed call", NOT_ASKED)]
