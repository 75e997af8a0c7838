"""TofuKingdom rules with scripted replies (no model)."""

from __future__ import annotations

import asyncio
import collections
import itertools
import json

import pytest
from conftest import FakePlayer

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.events import HOST_MSG, REPLY
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.runner import play
from pytest_gameeval.engine.spec import EVALUATED, Row
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.games.tofukingdom import metrics
from pytest_gameeval.games.tofukingdom.roles import HIDDEN_ROLES, LIE, OBLIGATION, TRUTH, title
from pytest_gameeval.games.tofukingdom.rules import PRINCE_SEAT, read_name, read_role
from pytest_gameeval.games.tofukingdom.scripted import consistent_assignments
from pytest_gameeval.players.scripted import ReplayPlayer, scripted_binder

SPEC = get_spec("tofukingdom")


def new_game(seed: int = 0, evaluated: str = "prince"):
    options = SPEC.parse_options({"seed": seed, "evaluated": evaluated})
    game, game_seed = SPEC.setup(Row("game-001", {"index": 1}), 0, options)
    return game, game_seed


def j(**fields) -> str:
    return json.dumps({"thought": "t", **fields})


def who(game, role: str) -> str:
    return next(n for n, r in game.identities.items() if r == role)


def identity_answer(role: str) -> str:
    """A legal answer to "What is your identity?" for this role."""
    if OBLIGATION[role] == LIE:
        return j(answer="Maid" if role != "maid" else "Chef")
    return j(answer=title(role))


def run(game, players, seed=1):
    return asyncio.run(play(game, players, instance_id="t", seed=seed))


def standard_players(game, *, pick: str, extra_to: str = "Player 5", overrides=None, labels=None):
    """The Prince asks everyone "What is your identity?", an extra identity question, then picks."""
    overrides = overrides or {}
    labels = labels or {}
    prince = [j(question="identity") for _ in game.names]
    prince += [j(player=extra_to, question="identity"), j(princess=pick)]
    players = {PRINCE_SEAT: ReplayPlayer(prince, labels.get("prince", "replay"))}
    for name, role in game.identities.items():
        replies = overrides.get(name) or [identity_answer(role)] * (2 if name == extra_to else 1)
        camp = {"princess": "prince", "chef": "prince", "queen": "queen", "minister": "queen", "guard": "queen"}.get(
            role, "spy"
        )
        players[name] = ReplayPlayer(list(replies), labels.get(camp, "replay"))
    return players


def test_identities_are_seeded_and_shuffled():
    a, _ = new_game(seed=3)
    b, _ = new_game(seed=3)
    assert a.identities == b.identities
    assert sorted(a.identities.values()) == sorted(HIDDEN_ROLES)
    assert list(a.identities) == [f"Player {i}" for i in range(1, 8)]
    seen = collections.Counter()
    for seed in range(150):
        g, _ = new_game(seed=seed)
        seen.update(g.identities.items())
    # every role lands on every seat over many seeds, none overwhelmingly often
    assert len(seen) == 49
    assert max(seen.values()) < 45


def test_readers():
    names = [f"Player {i}" for i in range(1, 8)]
    assert read_name("player 3", names) == "Player 3"
    assert read_name("3", names) == "Player 3"
    assert read_name("Player 9", names) is None
    assert read_role("I am the Queen") == "queen"
    assert read_role("the chef") == "chef"
    assert read_role("Prince") is None


@pytest.mark.parametrize(
    "role,camp", [("princess", "prince"), ("queen", "queen"), ("chef", "spy"), ("maid", "spy"), ("spy", "spy")]
)
def test_outcome_by_named_player(role, camp):
    game, _ = new_game()
    record = run(game, standard_players(game, pick=who(game, role)))
    assert record.label == camp and record.outcome["winner"] == camp
    assert record.outcome["details"]["chosen_role"] == role
    assert record.failure_totals().get("rule", 0) == 0


def test_every_player_asked_exactly_once_then_extra_then_choice():
    game, _ = new_game()
    players = standard_players(game, pick=who(game, "princess"))
    record = run(game, players)
    asks = [e for e in record.events if e.kind == REPLY and e.speaker == PRINCE_SEAT]
    assert [e.data["action"] for e in asks] == ["ask"] * 7 + ["extra", "choose"]
    answered = [e.speaker for e in record.events if e.kind == "speech" and "answer" in e.data]
    assert answered[:7] == game.names  # each player once, in seat order
    assert all(not p.replies for p in players.values())  # every scripted reply was used


def test_extra_question_is_answered_by_the_addressed_player():
    game, _ = new_game(seed=5)
    addressed = "Player 6"
    players = standard_players(game, pick=who(game, "princess"), extra_to=addressed)
    record = run(game, players)
    extra = [e for e in record.events if e.kind == REPLY and e.data["action"] == "extra_answer"]
    assert [e.speaker for e in extra] == [addressed]
    last_answer = [e for e in record.events if e.kind == "speech" and "answer" in e.data][-1]
    assert last_answer.speaker == addressed
    assert record.outcome["details"]["extra_addressee"] == addressed
    # the player asked the extra question was asked twice in all; everybody else once
    assert len(players[addressed].prompts) == 2
    assert all(len(players[n].prompts) == 1 for n in game.names if n != addressed)


def test_liar_telling_the_truth_is_a_rule_violation_then_reprompted():
    game, _ = new_game(seed=2)
    queen = who(game, "queen")
    players = standard_players(game, pick=who(game, "queen"), extra_to=who(game, "princess"),
                               overrides={queen: [j(answer="Queen"), j(answer="Princess")]})
    record = run(game, players)
    assert record.failures[queen]["rule"] == 1 and record.failures[queen]["forfeit"] == 0
    retry = [
        e for e in record.events if e.kind == HOST_MSG and e.data.get("shown_to") == [queen] and "must lie" in e.text
    ]
    assert retry, "the re-prompt names the problem"
    said = [e for e in record.events if e.kind == "speech" and e.speaker == queen]
    assert said[0].text == "I am the Princess."
    by_role = metrics.violations_by_role([record])
    assert by_role["queen"]["violations"] == 1 and by_role["queen"]["first_attempt_rate"]["k"] == 1
    assert all(by_role[r]["violations"] == 0 for r in HIDDEN_ROLES if r != "queen")
    assert record.label == "queen"


def test_truth_teller_lying_is_a_rule_violation_and_forfeits_after_retries():
    game, _ = new_game(seed=4)
    chef = who(game, "chef")
    players = standard_players(game, pick=who(game, "princess"), extra_to=who(game, "princess"),
                               overrides={chef: [j(answer="Queen")] * 3})
    record = run(game, players)
    assert record.failures[chef] == {"format": 0, "rule": 3, "degenerate": 0, "chat": 0, "forfeit": 1}
    assert record.outcome["details"]["forfeits"]["answer"] == 1
    assert any(e.kind == HOST_MSG and e.to is None and e.text == f"{chef} gave no valid answer." for e in record.events)
    assert not any(e.kind == "speech" and e.speaker == chef for e in record.events)  # nothing substituted
    assert metrics.score(record)["forfeited_answers"] == 1
    assert metrics.violations_by_role([record])["chef"]["violations"] == 3


def test_princess_must_name_herself_and_liars_must_not_name_the_princess():
    game, _ = new_game(seed=7)
    princess, minister = who(game, "princess"), who(game, "minister")
    prince = [j(question="princess")] * 7 + [j(player=minister, question="princess"), j(princess=princess)]
    players = {PRINCE_SEAT: ReplayPlayer(prince)}
    for name, role in game.identities.items():
        if role == "princess":
            players[name] = ReplayPlayer([j(answer=minister), j(answer=name)])  # a lie first: refused
        elif role == "minister":
            players[name] = ReplayPlayer(
                [j(answer=princess), j(answer="Player 9"), j(answer=minister)] + [j(answer=minister)]
            )
        elif OBLIGATION[role] == TRUTH:
            players[name] = ReplayPlayer([j(answer=princess)])
        elif OBLIGATION[role] == LIE:
            players[name] = ReplayPlayer([j(answer=name)])
        else:
            players[name] = ReplayPlayer([j(answer=princess)])  # the Spy camp may tell the truth
    record = run(game, players)
    assert record.failures[princess]["rule"] == 1
    assert record.failures[minister] == {
        "format": 1,
        "rule": 1,
        "degenerate": 0,
        "chat": 0,
        "forfeit": 0,
    }  # truth, then no player
    assert record.label == "prince"
    spy_camp = [n for n, r in game.identities.items() if r in ("spy", "maid")]
    assert all(sum(record.failures[n].values()) == 0 for n in spy_camp)


def test_spy_camp_may_lie_or_tell_the_truth():
    game, _ = new_game(seed=8)
    spy, maid = who(game, "spy"), who(game, "maid")
    players = standard_players(game, pick=spy, extra_to=spy,
                               overrides={spy: [j(answer="Spy"), j(answer="Princess")], maid: [j(answer="Queen")]})
    record = run(game, players)
    assert sum(record.failures[spy].values()) == sum(record.failures[maid].values()) == 0
    assert record.label == "spy"


def test_invalid_questions_are_reprompted_then_forfeited():
    game, _ = new_game(seed=9)
    bad = [
        j(question="identity_of", target="Player 1"),
        j(question="favourite colour"),
        j(question="identity_of", target="Prince"),
    ]
    prince = (
        bad
        + [j(question="identity")] * 6
        + [j(player="Player 12", question="identity"), "no json", "{}", j(princess="Player 3")]
    )
    players = {PRINCE_SEAT: ReplayPlayer(prince)}
    for name, role in game.identities.items():
        players[name] = ReplayPlayer([identity_answer(role)] if name != "Player 1" else [])
    record = run(game, players)
    assert record.failures[PRINCE_SEAT] == {"format": 3, "rule": 3, "degenerate": 0, "chat": 0, "forfeit": 2}
    assert record.outcome["details"]["forfeits"] == {"ask": 1, "answer": 0, "extra": 1, "extra_answer": 0, "choose": 0}
    assert any(e.text == "The Prince asked Player 1 no valid question." for e in record.events)
    assert any(e.text == "The Prince asked no extra question." for e in record.events)
    assert record.outcome["details"]["chosen"] == "Player 3"


def test_no_final_choice_means_the_spy_camp_wins():
    game, _ = new_game(seed=10)
    players = standard_players(game, pick="Player 99")
    players[PRINCE_SEAT].replies[-1:] = [j(princess="Player 99"), None]  # a bad name, then a failed call
    record = run(game, players)
    assert record.label == "spy"
    assert record.outcome["details"]["chosen"] is None
    assert record.outcome["details"]["pick_forfeit"] == "chat"
    assert metrics.summarize([record])["pick_forfeits"]["k"] == 1


def test_camp_scoring_points_go_to_the_winning_camps_model():
    records = []
    for seed, role in [(0, "princess"), (1, "queen"), (2, "chef"), (3, "princess")]:
        game, _ = new_game(seed=seed)
        players = standard_players(game, pick=who(game, role), labels={"prince": "A", "queen": "B", "spy": "C"})
        records.append(run(game, players))
    assert [r.label for r in records] == ["prince", "queen", "spy", "prince"]
    assert metrics.camp_models(records[0]) == {"prince": "A", "queen": "B", "spy": "C"}
    pts = metrics.points(records)
    assert {m: p["points"] for m, p in pts.items()} == {"A": 2, "B": 1, "C": 1}
    assert all(p["games"] == 4 for p in pts.values())
    low, high = pts["A"]["rate"]["ci"]
    assert low < 0.5 < high and pts["A"]["points_ci"][0] <= 2 <= pts["A"]["points_ci"][1]
    assert [metrics.score(r)["win"] for r in records] == [1.0, 0.0, 0.0, 1.0]  # evaluated = prince camp


def test_model_roles_per_camp():
    game, _ = new_game(evaluated="queen")
    roles = SPEC.seat_model_roles(game)
    assert roles[PRINCE_SEAT] == "prince"
    for name, role in game.identities.items():
        expected = {"queen": EVALUATED, "minister": EVALUATED, "guard": EVALUATED,
                    "princess": "prince", "chef": "prince", "spy": "spy", "maid": "spy"}[role]
        assert roles[name] == expected


def test_bad_task_arguments_are_one_clear_error():
    with pytest.raises(GameEvalError, match="evaluated"):
        SPEC.parse_options({"evaluated": "king"})
    with pytest.raises(GameEvalError, match="unknown task argument"):
        SPEC.parse_options({"camp": "prince"})
    with pytest.raises(GameEvalError, match="games"):
        SPEC.rows(SPEC.parse_options({"games": 0}))


def unique_thoughts(seat: str):
    """The seat's every thought made unique, so a leak names its seat and turn."""
    turns = itertools.count(1)

    def change(ctx, text: str) -> str:
        obj = json.loads(text)
        obj["thought"] = f"SECRET-THOUGHT-{seat}-{next(turns)}"
        return json.dumps(obj)

    return change


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prompt_scan_prince_never_sees_identities_and_thoughts_stay_private(seed):
    game, game_seed = new_game(seed=seed)
    bind = scripted_binder(SPEC, {"*": "oracle"})
    roles = SPEC.seat_model_roles(game)
    players = {n: FakePlayer(inner=bind(s, roles[n]), change=unique_thoughts(n)) for n, s in game.seats.items()}
    asyncio.run(play(game, players, instance_id="scan", seed=game_seed))
    prince_text = "\n".join(m["content"] for ctx in players[PRINCE_SEAT].prompts for m in ctx.messages)
    for name, role in game.identities.items():
        assert f"{name}: {title(role)}" not in prince_text
        host_lines = [line for line in prince_text.splitlines() if line.startswith("Host:")]
        assert not any(f"{name} is the {title(role)}" in line for line in host_lines)
    for seat, player in players.items():
        text = "\n".join(m["content"] for ctx in player.prompts for m in ctx.messages)
        for other in players:
            if other != seat:
                assert f"SECRET-THOUGHT-{other}-" not in text
    # the others do know every identity (only the Prince is in the dark)
    some = game.names[0]
    assert all(
        f"{n}: {title(r)}" in players[some].prompts[0].messages[0]["content"] for n, r in game.identities.items()
    )


def test_deduction_helper_keeps_only_consistent_worlds():
    names = [f"Player {i}" for i in range(1, 8)]
    # Player 1 says "I am the Chef"; Player 2 says "The Princess is Player 1".
    answers = [("Player 1", "identity", None, "chef"), ("Player 2", "princess", None, "Player 1")]
    worlds = consistent_assignments(names, answers)
    assert not any(w["Player 1"] == "princess" for w in worlds)  # she would have said so
    assert not any(w["Player 2"] in ("princess", "chef") for w in worlds)  # a truth-teller would be wrong
    # Player 1: Chef (Player 2 then any of 5) or one of 5 others (Player 2 then one of 4); 5! for the rest
    assert len(worlds) == (5 + 5 * 4) * 120


def test_scripted_policies_are_legal_and_the_oracle_prince_is_stronger():
    def win_rate(strengths):
        opts = SPEC.parse_options({"games": 12})
        recs = [
            asyncio.run(play_case(SPEC, row, 0, opts, scripted_binder(SPEC, strengths)))
            for row in SPEC.select_rows(opts)
        ]
        assert all(sum(r.failure_totals().values()) == 0 for r in recs)
        return sum(r.label == "prince" for r in recs) / len(recs)

    assert win_rate({"evaluated": "oracle", "*": "random"}) > win_rate({"*": "random"})
