"""The shared voting machinery: names, ballot validation, vote stages and the bias randomisation."""

import random
from collections import Counter

import pytest
from scipy import stats

from pytest_gameeval.engine.errors import GameEvalError, ParseError, RuleViolation
from pytest_gameeval.engine.replies import Field
from pytest_gameeval.games.ballots import Ballot, VoteStage, ballot_parser, match_name, vote_format, votes_per_round
from pytest_gameeval.games.spyfall import SPEC as SPYFALL
from pytest_gameeval.games.spyfall.rules import SpyFallGame
from pytest_gameeval.games.voting import SpyWordGame, same_word, seat_names

NAMES = [f"Player {k}" for k in range(1, 11)]


def test_naming_methods():
    assert seat_names(1, 4) == ["Player 1", "Player 2", "Player 3", "Player 4"]
    assert seat_names(2, 4) == ["Aaron One", "Barbara Two", "Charlie Three", "David Four"]
    assert seat_names(3, 4)[:4] == ["Jack", "Mary", "Alice", "Tom"]
    assert len(set(seat_names(3, 12))) == 12
    with pytest.raises(GameEvalError):
        seat_names(4, 4)
    with pytest.raises(GameEvalError):
        seat_names(1, 2)


@pytest.mark.parametrize("raw, expected", [
    ("Player 3", "Player 3"), ("player3", "Player 3"), (" PLAYER 3 ", "Player 3"),
    ("I vote for Player 3.", "Player 3"), ("Player 1", "Player 1"), ("Player 10", "Player 10"),
    ("Player 3 or Player 4", None), ("nobody", None), ("", None),
])
def test_match_name(raw, expected):
    assert match_name(raw, NAMES) == expected


def parser(voter="Player 1", options=("Player 2", "Player 3"), alive=("Player 1", "Player 2", "Player 3"), required=()):
    reply = vote_format("vote", list(options), *(Field(r, f"<{r}>") for r in required))
    return ballot_parser(voter, list(options), list(alive), NAMES[:4], reply)


def test_valid_ballot_keeps_fields():
    ballot = parser(required=("speak",))('{"thought": "t", "speak": "why", "name": "Player 2"}')
    assert ballot == Ballot("Player 2", {"thought": "t", "speak": "why", "name": "Player 2"})


@pytest.mark.parametrize("reply, problem", [
    ('{"name": "Player 1"}', "yourself"),
    ('{"name": "Player 4"}', "out of the game"),
    ('{"name": "Player 99"}', "no player called"),
    ('{"name": "Mr Nobody"}', "no player called"),
])
def test_invalid_votes_are_rule_violations(reply, problem):
    with pytest.raises(RuleViolation, match=problem):
        parser()(reply)


def test_revote_outside_the_tie_is_a_rule_violation():
    with pytest.raises(RuleViolation, match="not among"):
        parser(options=("Player 2",))('{"name": "Player 3"}')


@pytest.mark.parametrize("reply", ["Player 2", "{}", '{"name": 2}', '{"speak": "x"}', "{not json"])
def test_unreadable_votes_are_format_errors(reply):
    with pytest.raises(ParseError):
        parser(required=("speak",))(reply)


def test_stage_secret_asks_everyone_public_one_at_a_time():
    rng = random.Random(0)
    secret = VoteStage("first", ["A", "B", "C"], ["A", "B", "C"], rng, secret=True)
    public = VoteStage("first", ["A", "B", "C"], ["A", "B", "C"], rng, secret=False)
    assert secret.waiting() == ["A", "B", "C"]
    assert public.waiting() == ["A"]
    public.cast("A", Ballot("B"))
    assert public.waiting() == ["B"]
    assert all(v not in secret.options[v] for v in "ABC")


def test_stage_tally_leaders_and_abstentions():
    stage = VoteStage("first", ["A", "B", "C", "D"], ["A", "B", "C", "D"], random.Random(0))
    stage.cast("A", Ballot("B"))
    stage.cast("B", Ballot("C"))
    stage.abstain("C", "rule")
    assert not stage.complete
    stage.cast("D", Ballot("B"))
    assert stage.complete
    assert stage.tally() == {"A": 0, "B": 2, "C": 1, "D": 0}
    assert stage.leaders() == ["B"]
    recs = stage.records(1, ["A", "B", "C", "D"])
    assert [r["choice"] for r in recs] == ["B", "C", None, "B"] and recs[2]["abstained"] and recs[2]["why"] == "rule"


def test_no_valid_vote_makes_everyone_a_leader():
    stage = VoteStage("first", ["A", "B", "C"], ["A", "B", "C"], random.Random(0))
    for v in "ABC":
        stage.abstain(v, "format")
    assert stage.leaders() == ["A", "B", "C"]


def test_options_unshuffled_keep_seat_order():
    stage = VoteStage("first", ["C", "A", "B"], ["A", "B", "C"], random.Random(0), shuffle_options=False)
    assert stage.options == {"C": ["A", "B"], "A": ["B", "C"], "B": ["A", "C"]}


def test_votes_per_round_counts_first_ballots_only():
    details = {
        "rounds_log": [{"round": 1, "alive": ["A", "B", "C"]}, {"round": 2, "alive": ["A", "B"]}],
        "ballots": [
            {"round": 1, "stage": "first", "choice": "A"}, {"round": 1, "stage": "first", "choice": "A"},
            {"round": 1, "stage": "revote", "choice": "A"}, {"round": 2, "stage": "first", "choice": None},
        ],
    }
    assert votes_per_round(details, "A") == 1.0  # 2 votes over 2 rounds; the revote does not count
    assert votes_per_round(details, "C") == 0.0


@pytest.mark.parametrize("a, b, same", [
    ("iphone", "iPhone", True), ("an apple", "apple", True), ("apples", "apple", True),
    ("sea lion", "sea-lion", True), ("pear", "apple", False), ("", "apple", False), (None, "x", False),
])
def test_same_word(a, b, same):
    assert same_word(a, b) is same


# -- bias randomisation, checked over many seeds ------------------------------------------
def game(seed, **overrides):
    options = SPYFALL.parse_options(overrides)
    return SpyFallGame("ipad", "iphone", random.Random(seed), options)


def uniform_p(counts: Counter, categories) -> float:
    observed = [counts[c] for c in categories]
    return stats.chisquare(observed).pvalue


def test_spy_seat_first_speaker_and_first_option_are_uniform_over_seeds():
    spy, first, first_option = Counter(), Counter(), Counter()
    for seed in range(600):
        g = game(seed)
        spy[g.spy] += 1
        first[g.order[0]] += 1
        g._open_vote("first", list(g.alive))
        first_option[g.stage.options[g.order[0]][0]] += 1
    names = [f"Player {k}" for k in range(1, 7)]
    assert min(spy.values()) > 0 and uniform_p(spy, names) > 0.001
    assert uniform_p(first, names) > 0.001
    assert uniform_p(first_option, names) > 0.001
    # the spy seat and the speaking order are independent draws
    assert sum(1 for seed in range(600) if game(seed).order[0] == game(seed).spy) < 600 * 0.3


def test_switching_randomisation_off_fixes_seats_order_and_options():
    for seed in range(20):
        g = game(seed, shuffle_seats=False, shuffle_order=False, shuffle_options=False)
        assert g.spy == "Player 1"
        assert g.order == [f"Player {k}" for k in range(1, 7)]
        g._open_vote("first", list(g.alive))
        assert g.stage.options["Player 3"] == ["Player 1", "Player 2", "Player 4", "Player 5", "Player 6"]


def test_speaking_order_is_reshuffled_every_round():
    g = game(3)
    orders = set()
    for _ in range(30):
        g._start_round()
        orders.add(tuple(g.order))
    assert len(orders) > 5


def test_end_players_must_leave_a_game():
    with pytest.raises(GameEvalError):
        game(0, end_players=6)
    with pytest.raises(GameEvalError):
        game(0, end_players=1)
    assert isinstance(game(0, end_players=3), SpyWordGame)
