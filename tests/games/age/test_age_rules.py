"""AGE rules with scripted replies: matching, violations, seats, a game with known FCGs."""

import asyncio
import json
import math
from collections import Counter

import pytest

from pytest_gameeval.engine.degenerate import DegenerateMove
from pytest_gameeval.engine.errors import GameEvalError, ParseError
from pytest_gameeval.engine.matching import jaro_match
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.runner import play
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.games.age import SPEC, metrics, seat_role
from pytest_gameeval.games.age.rules import clean_guess, group_sizes, read_reply
from pytest_gameeval.players.scripted import ReplayPlayer, scripted_binder

PAIRS = {
    "list_a": [
        {
            "id": "a1",
            "topic": "Brands",
            "word_a": "Mercedes Benz",
            "word_b": "BMW",
            "synonyms_a": ["Mercedes"],
            "synonyms_b": ["Bayerische Motoren Werke"],
        },
        {"id": "a2", "topic": "Food", "word_a": "apple", "word_b": "pear", "synonyms_a": [], "synonyms_b": []},
        {
            "id": "a3",
            "topic": "Drinks",
            "word_a": "coffee",
            "word_b": "tea",
            "synonyms_a": ["espresso"],
            "synonyms_b": [],
        },
    ],
    "food": [
        {
            "id": "food-1",
            "topic": "Food",
            "word_a": "butter",
            "word_b": "margarine",
            "synonyms_a": [],
            "synonyms_b": ["marge"],
        },
        {
            "id": "food-2",
            "topic": "Food",
            "word_a": "basketball",
            "word_b": "baseball",
            "synonyms_a": [],
            "synonyms_b": [],
        },
    ],
}


def write_data(root, pairs=PAIRS):
    (root / "age").mkdir(parents=True, exist_ok=True)
    for name, rows in pairs.items():
        (root / "age" / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


@pytest.fixture
def data(tmp_path, monkeypatch):
    write_data(tmp_path)
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    return tmp_path


def options(**given):
    return SPEC.parse_options(given)


def row(pair_id, **given):
    return next(r for r in SPEC.rows(options(lists="list_a,food", **given)) if r.data["id"] == pair_id)


def reply(description, guess=""):
    return json.dumps({"description": description, "guess": guess})


# -- matching --------------------------------------------------------------------------------
@pytest.mark.parametrize("guess, target, synonyms", [
    ("Mercedes-Benz", "Mercedes Benz", []),
    ("mercedes benz", "Mercedes-Benz", []),
    ("MERCEDES", "Mercedes Benz", ["Mercedes"]),  # an accepted synonym
    ("margarin", "margarine", []),  # a typo is within Jaro 0.8
])
def test_jaro_accepts(guess, target, synonyms):
    assert jaro_match(guess, target, synonyms)


@pytest.mark.parametrize("guess, target", [
    ("car", "cat"),  # Jaro 0.78: different words of the same shape are rejected
    ("tennis", "tenant"),  # 0.78
    ("lemon", "melon"),  # 0.73: an anagram is not the word
    ("tiger", "lion"),
])
def test_jaro_rejects_near_misses(guess, target):
    assert not jaro_match(guess, target)


def test_jaro_looseness_we_keep_and_document():
    # The paper's rule is loose for prefixes and one-letter changes; we keep it and say so.
    assert jaro_match("Mercedes", "Mercedes Benz")  # 0.89
    assert jaro_match("beard", "bread")  # 0.87


def test_clean_guess_drops_lead_ins_and_articles():
    assert clean_guess(" I think it is the BMW. ") == "BMW"
    assert clean_guess('"pear"') == "pear"


# -- replies -----------------------------------------------------------------------------------
def test_read_reply_json_and_labelled_lines():
    assert read_reply('Sure! {"description": "a fruit", "guess": "pear"}', False) == {
        "description": "a fruit",
        "guess": "pear",
    }
    assert read_reply("Description: a fruit\nGuess: pear", False) == {"description": "a fruit", "guess": "pear"}
    assert read_reply('{"Description": "a fruit"}', False)["guess"] == ""
    with pytest.raises(ParseError):
        read_reply("I like fruit", False)
    with pytest.raises(DegenerateMove, match="placeholder"):  # well-formed, no content (issue 25)
        read_reply('{"description": "<your clue>", "guess": "<the other word>"}', False)
    assert read_reply('{"description": "sweet", "guess": "<the other word>"}', False)["guess"] == ""
    with pytest.raises(ParseError):
        read_reply(reply("x", "a b c d e f g h"), False)
    with pytest.raises(ParseError):  # chain-of-thought mode wants the JSON object
        read_reply("Description: a fruit\nGuess: pear", True)


# -- seats --------------------------------------------------------------------------------------
def test_group_sizes():
    assert group_sizes(4) == (2, 2) and group_sizes(5) == (3, 2) and group_sizes(2) == (1, 1)


def test_seats_random_but_seeded(data):
    r = row("a1")
    layouts = set()
    for epoch in range(6):
        game, _ = SPEC.setup(r, epoch, options())
        again, _ = SPEC.setup(r, epoch, options())
        layout = tuple((s.name, s.private["slot"], s.private["group"]) for s in game.seats.values())
        assert layout == tuple((s.name, s.private["slot"], s.private["group"]) for s in again.seats.values())
        assert sorted(s.private["slot"] for s in game.seats.values()) == [1, 2, 3, 4]
        assert Counter(s.private["group"] for s in game.seats.values()) == {"A": 2, "B": 2}
        for s in game.seats.values():
            assert s.private["word"] == ("Mercedes Benz" if s.private["group"] == "A" else "BMW")
        layouts.add(layout)
    assert len(layouts) > 1  # the order and the split change with the game seed


def test_seat_model_roles(data):
    game, _ = SPEC.setup(row("a1"), 0, options())
    roles = SPEC.seat_model_roles(game)
    by_slot = {game.seats[n].private["slot"]: r for n, r in roles.items()}
    assert by_slot == {1: EVALUATED, 2: "seat2|players[0]", 3: "seat3|players[1]", 4: "seat4|players[2]"}
    assert seat_role(1) == EVALUATED


# -- a scripted game with known FCGs ------------------------------------------------------------
def run(game, replies_by_group_index):
    """Replay replies per seat; `replies_by_group_index[(group, i)]` for the i-th seat of a group."""
    seen = Counter()
    players = {}
    for name in game.order:
        g = game.group[name]
        players[name] = ReplayPlayer(replies_by_group_index[(g, seen[g])], label=f"replay-{g}{seen[g]}")
        seen[g] += 1
    rec = asyncio.run(play(game, players, instance_id="t", seed=0))
    return rec, players


def test_scripted_game_with_known_fcgs(data):
    game, _ = SPEC.setup(row("a2"), 0, options(max_rounds=4))
    # A (apple) seats: A0 finds "pear" in round 2, A1 never; B (pear) seats: B0 in round 3, B1 never.
    script = {
        ("A", 0): [
            reply("red or green, crunchy", "plum"),
            reply("grows on trees", "Pears"),
            reply("keeps the doctor away"),
            reply("in pies"),
        ],
        ("A", 1): [
            reply("round fruit", "plum"),
            reply("sweet", "peach"),
            reply("juicy", "grape"),
            reply("has seeds", "fig"),
        ],
        ("B", 0): [
            reply("soft when ripe", "plum"),
            reply("bell shaped", "orange"),
            reply("yellow skin", "an apple"),
            reply("a tree fruit"),
        ],
        ("B", 1): [
            reply("green skin", "kiwi"),
            reply("grainy flesh", "lime"),
            reply("in tarts", "cherry"),
            reply("from orchards", "quince"),
        ],
    }
    rec, players = run(game, script)
    d = rec.outcome["details"]
    assert rec.label == "limit" and d["rounds"] == 4
    by_label = {players[s].label: f for s, f in d["fcg"].items()}
    assert by_label == {"replay-A0": 2, "replay-A1": None, "replay-B0": 3, "replay-B1": None}
    rows = {players[r["seat"]].label: r for r in metrics.player_scores(rec)}
    assert rows["replay-A0"]["comprehension"] == pytest.approx(1 / math.log2(3))
    assert rows["replay-A0"]["confusion"] == pytest.approx(math.log(3) / math.log(5))  # min(B) = 3
    assert rows["replay-B0"]["confusion"] == pytest.approx(math.log(2) / math.log(5))  # min(A) = 2
    assert rows["replay-A1"]["fcg"] == 5  # never guessed: l + 1
    assert metrics.in_full_length_filter(rec)
    # guesses are private: the other apple seat never sees "pear" guessed by A0
    a1 = players[next(s for s in game.order if players[s].label == "replay-A1")]
    for ctx in a1.prompts:
        assert all("pear" not in m["content"].lower() for m in ctx.messages if m["role"] != "assistant")
    # and nobody is told the other group's word in the system prompt
    for name, p in players.items():
        other = "pear" if game.group[name] == "A" else "apple"
        assert other not in p.prompts[0].messages[0]["content"].lower()


def test_game_ends_when_everyone_has_guessed(data):
    game, _ = SPEC.setup(row("a3"), 1, options())
    script = {
        ("A", 0): [reply("hot drink", "tea")], ("A", 1): [reply("morning cup", "Tea")],
        ("B", 0): [reply("leaves in water", "espresso")], ("B", 1): [reply("with milk", "cofee")],
    }
    rec, _ = run(game, script)
    assert rec.label == "solved" and rec.outcome["details"]["rounds"] == 1
    assert all(f == 1 for f in rec.outcome["details"]["fcg"].values())
    assert all(r["age"] == 0.0 for r in metrics.player_scores(rec))  # everyone revealed at once


def test_own_word_and_repeats_are_counted_rule_violations(data):
    game, _ = SPEC.setup(row("a1"), 0, options(max_rounds=2))
    bad = reply("I drive a Mercedes-Benz", "audi")
    script = {
        ("A", 0): [
            bad,
            reply("a mercedes is nice"),
            reply("luxury car brand", "audi"),
            reply("three-pointed star", "audi"),
        ],
        ("A", 1): [
            reply("German cars", "audi"),
            reply("German cars", "audi"),
            reply("German cars"),
            reply("German cars"),
            reply("from Stuttgart"),
        ],
        ("B", 0): [reply("from Munich", "Mercedes"), reply("blue and white logo")],
        ("B", 1): [reply("kidney grille", "bmw"), reply("sporty sedans", "Mercedes-Benz")],
    }
    rec, players = run(game, script)
    fail = {players[s].label: c for s, c in rec.failures.items()}
    assert fail["replay-A0"]["rule"] == 2 and fail["replay-A0"]["forfeit"] == 0
    # A1 repeats its own earlier clue in round 2 three times in a row: forfeits that turn
    assert fail["replay-A1"]["rule"] == 3 and fail["replay-A1"]["forfeit"] == 1
    by_label = {players[s].label: f for s, f in rec.outcome["details"]["fcg"].items()}
    assert by_label["replay-B0"] == 1  # a synonym
    assert by_label["replay-B1"] == 2  # "bmw" is its own word; "Mercedes-Benz" in round 2
    assert rec.label == "limit"
    assert metrics.score(rec)["age"] >= 0.0


def test_own_word_guess_never_counts(data):
    # basketball / baseball are within Jaro 0.8: naming your own word must not find the other one
    game, _ = SPEC.setup(row("food-2"), 0, options(max_rounds=1))
    script = {
        ("A", 0): [reply("orange ball, hoops", "basketball")], ("A", 1): [reply("played indoors", "baseball")],
        ("B", 0): [reply("bat and glove", "baseball")], ("B", 1): [reply("diamond field", "basketbal")],
    }
    rec, players = run(game, script)
    by_label = {players[s].label: f for s, f in rec.outcome["details"]["fcg"].items()}
    # B1 (baseball) guesses "basketbal", a typo of its target: it counts
    assert by_label == {"replay-A0": None, "replay-A1": 1, "replay-B0": None, "replay-B1": 1}
    game, _ = SPEC.setup(row("food-2"), 0, options(max_rounds=1))
    script[("A", 1)] = [reply("played indoors", "basebal")]  # a typo of the target still counts
    script[("A", 0)] = [reply("orange ball, hoops", "basketbal")]  # a typo of its own word does not
    rec, players = run(game, script)
    by_label = {players[s].label: f for s, f in rec.outcome["details"]["fcg"].items()}
    assert by_label["replay-A1"] == 1 and by_label["replay-A0"] is None


def test_format_errors_and_chat_error(data):
    game, _ = SPEC.setup(row("a2"), 0, options(max_rounds=1))
    first = game.order[0]
    players = {
        s: ReplayPlayer(["no json here", "still nothing", "nope"] if s == first else [reply(f"clue {s}"), None])
        for s in game.order
    }
    rec = asyncio.run(play(game, players, instance_id="t", seed=0))
    assert rec.failures[first]["format"] == 3 and rec.failures[first]["forfeit"] == 1
    assert rec.label == "limit"
    game, _ = SPEC.setup(row("a2"), 0, options(max_rounds=1))
    players = {s: ReplayPlayer([None]) for s in game.order}
    rec = asyncio.run(play(game, players, instance_id="t", seed=0))
    assert rec.label == "CE" and math.isnan(SPEC.score(rec)["age"])


# -- scripted policies ----------------------------------------------------------------------------
def test_oracle_beats_random(data):
    opts = options(lists="list_a", max_rounds=3)
    bind = scripted_binder(SPEC, {EVALUATED: "oracle", "*": "random"})
    records = [asyncio.run(play_case(SPEC, r, 0, opts, bind)) for r in SPEC.select_rows(opts)]
    summary = SPEC.summarize(records)
    oracle = summary["per_model"]["scripted/oracle"]
    rnd = summary["per_model"]["scripted/random"]
    assert oracle["comprehension"]["value"] == 1.0
    assert oracle["age"]["value"] > rnd["age"]["value"]
    assert all(sum(c.values()) == 0 for r in records for c in r.failures.values())  # scripted never breaks rules
    assert summary["evaluated"]["n"] == len(records)


def test_all_oracle_game_scores_zero(data):
    opts = options(lists="list_a")
    bind = scripted_binder(SPEC, {"*": "oracle"})
    rec = asyncio.run(play_case(SPEC, SPEC.select_rows(opts)[0], 0, opts, bind))
    assert rec.label == "solved" and rec.outcome["details"]["rounds"] == 1
    assert SPEC.score(rec)["age"] == 0.0


# -- bad input ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("given, message", [
    ({"lists": "nonsense"}, "unknown list"),
    ({"players": 1}, "task argument players=1 must be between 2 and 8"),
    ({"max_rounds": 0}, "task argument max_rounds=0 must be at least 1"),
    ({"pairs": "zzz"}, "unknown pair"),
])
def test_bad_task_arguments(data, given, message):
    with pytest.raises(GameEvalError, match=message):
        SPEC.select_rows(options(**given))


def test_lists_expand(data):
    rows = SPEC.rows(options(lists="list_a,food", pairs="a1,food-1"))
    assert [r.id for r in rows] == ["a1", "food-1"]
    assert rows[0].data["list"] == "list_a"


def test_duplicate_ids_across_lists_are_an_error(tmp_path, monkeypatch):
    write_data(tmp_path, {"list_a": PAIRS["list_a"], "food": PAIRS["list_a"][:1]})
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    with pytest.raises(GameEvalError, match="'a1' is in both"):
        SPEC.rows(options(lists="list_a,food"))


def test_malformed_data_is_one_clear_error(tmp_path, monkeypatch):
    write_data(tmp_path, {"list_a": PAIRS["list_a"]})
    (tmp_path / "age" / "list_a.jsonl").write_text(json.dumps(PAIRS["list_a"][0]) + "\n{oops\n")
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(tmp_path))
    with pytest.raises(GameEvalError, match=r"list_a.jsonl:2"):
        SPEC.rows(options())
    (tmp_path / "age" / "list_a.jsonl").write_text(json.dumps({**PAIRS["list_a"][0], "synonyms_a": "x"}) + "\n")
    with pytest.raises(GameEvalError, match="synonyms_a"):
        SPEC.rows(options())


def test_cot_thoughts_stay_private(data):
    game, _ = SPEC.setup(row("a2"), 0, options(max_rounds=1, cot=True))
    secret = "my private plan xyzzy"
    players = {
        s: ReplayPlayer([json.dumps({"thought": secret, "description": f"clue from {s}", "guess": "plum"})])
        for s in game.order
    }
    rec = asyncio.run(play(game, players, instance_id="t", seed=0))
    assert rec.label == "limit" and sum(c["format"] for c in rec.failures.values()) == 0
    last = players[game.order[-1]]
    others = [m["content"] for m in last.prompts[0].messages if m["role"] != "assistant"]
    assert any("clue from" in c for c in others) and not any(secret in c for c in others)
