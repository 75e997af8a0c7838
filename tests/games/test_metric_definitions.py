"""Paper metric definitions on hand-built records, with the worked numbers written out.

These fill the gaps left by the per-game metric tests (issue 11, item 3): Ask-Guess rates and
rounds over several games, SpyGame's Win / Round / Voted aggregated over games, and SpyGPT's
per-mode means. SpyFall w_ab/l_ab (test_spyfall_metrics), TofuKingdom points (test_tofukingdom),
SpyGame ToM (test_spygame_metrics), AGE (test_age_metrics), GameArena (test_arena_metrics) and
Kendall tau / RBO (test_rank_correlation) are worked there. The last test checks item 2: every
metric in every game's summary carries an interval.
"""

import asyncio
import math

import pytest

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.askguess import metrics as askguess
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.games.spygame import metrics as spygame
from pytest_gameeval.games.spygpt import metrics as spygpt
from pytest_gameeval.players.scripted import scripted_binder


def record(game, label, details, seats=()):
    return GameRecord(
        game, "x", 0, 0, {}, list(seats), [], {"label": label, "winner": None, "details": details}, {}, {}
    )


# -- Ask-Guess (GameEval 3.1): outcome rates over games, mean rounds over successful games ---------------
def test_askguess_rates_and_rounds_by_hand():
    games = [
        ("ST", "apple", 3, 0),
        ("ST", "apple", 7, 1),
        ("RLE", "bear", 30, 2),
        ("EE", "bear", 4, 0),
        ("ST", "cloud", 2, 0),
    ]
    records = [record("askguess", lab, {"word": w, "rounds": n, "missed_guesses": m}) for lab, w, n, m in games]
    s = askguess.summarize(records)
    # ST = 3/5 = 0.6. Wilson, z = 1.959964, n = 5: centre (0.6 + z^2/10) / (1 + z^2/5) = 0.984146 / 1.768292
    # = 0.556552; half-width z / 1.768292 * sqrt(0.6*0.4/5 + z^2/100) = 1.108394 * 0.293964 = 0.325828
    st = s["rates"]["ST"]
    assert (st["k"], st["n"], st["value"]) == (3, 5, 0.6)
    assert st["ci"] == pytest.approx([0.230724, 0.882379], abs=1e-5)
    assert s["rates"]["RLE"]["value"] == 0.2 and s["rates"]["EE"]["value"] == 0.2 and s["rates"]["AME"]["value"] == 0.0
    # rounds of the ST games only: (3 + 7 + 2) / 3 = 4; the RLE game's 30 rounds are not in it
    # t interval: sd = sqrt(((3-4)^2 + (7-4)^2 + (2-4)^2) / 2) = sqrt(7), sem = sqrt(7/3) = 1.527525,
    # t(0.975, 2) = 4.302653 -> 4 +- 6.572411
    rounds = s["mean_rounds_st"]
    assert rounds["value"] == 4.0 and rounds["n"] == 3
    assert rounds["ci"] == pytest.approx([-2.572411, 10.572411], abs=1e-5)
    assert s["missed_guesses_per_game"]["value"] == pytest.approx(3 / 5)
    assert s["per_word"]["apple"] == {"ST": 2, "n": 2} and s["per_word"]["bear"] == {"RLE": 1, "EE": 1, "n": 2}
    # clustered by word: apple 2/2, bear 0/2, cloud 1/1 -> the same pooled 3/5, resampled by word
    clustered = s["st_clustered_by_word"]
    assert clustered["value"] == 0.6 and clustered["clusters"] == 3 and clustered["method"] == "cluster_bootstrap"
    assert clustered["ci"][0] <= 0.6 <= clustered["ci"][1]
    scored = askguess.score(records[2])
    assert scored["RLE"] == 1.0 and math.isnan(scored["rounds_st"]) and scored["rounds"] == 30.0


# -- SpyGame (Guo et al.): Win, Round (rounds the guest survived), Voted (votes per round alive) ----------
def ballots(*votes):
    """(round, chosen seat) first-stage ballots."""
    return [{"stage": "first", "round": r, "choice": c, "abstained": False} for r, c in votes]


def spygame_record(win, survived, alive_rounds, votes):
    d = {"guest": "P1", "guest_role": "spy", "guest_win": win, "survived": {"P1": survived}, "rounds": alive_rounds,
         "rounds_log": [{"round": r, "alive": ["P1", "P2", "P3"]} for r in range(1, alive_rounds + 1)],
         "ballots": ballots(*votes), "tom": None}
    return record("spygame", "spy_win" if win else "villager_win", d)


def test_spygame_win_round_voted_by_hand():
    records = [
        spygame_record(True, 2, 3, [(1, "P1"), (3, "P1"), (3, "P1"), (2, "P2")]),  # 3 votes / 3 rounds = 1.0
        spygame_record(False, 0, 1, [(1, "P1"), (1, "P1"), (1, "P1")]),  # 3 votes / 1 round = 3.0
        spygame_record(False, 1, 2, [(1, "P2"), (2, "P3")]),  # 0 votes / 2 rounds = 0.0
    ]
    assert [spygame.score(r)["guest_voted"] for r in records] == [1.0, 3.0, 0.0]
    s = spygame.summarize(records)
    # Win = 1/3 with Wilson [0.061492, 0.792340]; Round = (2+0+1)/3 = 1; Voted = (1+3+0)/3 = 4/3
    assert s["win"]["value"] == pytest.approx(1 / 3) and s["win"]["ci"] == pytest.approx([0.061492, 0.792340], abs=1e-5)
    assert s["round"]["value"] == 1.0 and s["round"]["n"] == 3
    # Round: sd = 1, sem = 1/sqrt(3), t(0.975, 2) = 4.302653 -> 1 +- 2.484138
    assert s["round"]["ci"] == pytest.approx([-1.484138, 3.484138], abs=1e-5)
    assert s["voted"]["value"] == pytest.approx(4 / 3)


# -- SpyGPT (Liang et al.): per-mode mean target and distractor scores, one game = one unit -----------------
def spygpt_record(target, distractor_scores, unparsed, mode="aggressive"):
    d = {"mode": mode, "target_score": target, "distractor_scores": distractor_scores,
         "distractors": list(distractor_scores), "unparsed": unparsed, "description_words": 8}
    seats = [{"name": "D", "role": "describer", "model": "m1", "private": {}},
             {"name": "J", "role": "judge", "model": "m2", "private": {}}]
    return record("spygpt", "judged", d, seats)


def test_spygpt_means_by_hand():
    records = [
        spygpt_record(5, {"pear": 2, "peach": 1, "plum": 3}, 0),  # distractor mean 2, margin 3
        spygpt_record(4, {"pear": 4, "peach": None, "plum": 2}, 1),  # unparsed left out: mean 3, margin 1
        spygpt_record(None, {"pear": 1, "peach": 1, "plum": 1}, 1),  # no target score: margin undefined
    ]
    m = spygpt.summarize(records)["modes"]["aggressive"]
    assert m["target_score"]["value"] == 4.5 and m["target_score"]["n"] == 2  # (5 + 4) / 2
    assert m["distractor_score"]["value"] == 2.0 and m["distractor_score"]["n"] == 3  # (2 + 3 + 1) / 3
    assert m["target_minus_distractor"]["value"] == 2.0 and m["target_minus_distractor"]["n"] == 2  # (3 + 1) / 2
    # 2 unparsed of 3 games x 4 judgements = 12 -> 1/6
    assert m["unparsed_judgements"]["value"] == pytest.approx(1 / 6) and m["unparsed_judgements"]["n"] == 12
    assert m["self_judged_games"] == 0


# -- item 2: every metric of every summary carries an interval ---------------------------------------
COUNT_KEYS = {"games", "n", "pairs", "points", "answers", "violations", "games_probed", "tom_unanswered",
              "self_judged_games", "spy", "villager", "k", "clusters", "void_games", "void_attempts"}


def metric_leaves(x, path=""):
    """(path, metric dict) for every {"value": ...} dict; (path, number) for any other number."""
    if isinstance(x, dict):
        if "value" in x:
            yield path, x
            return
        for k, v in x.items():
            yield from metric_leaves(v, f"{path}.{k}")
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, x


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_summary_metric_has_an_interval(game):
    spec = get_spec(game)
    opts = spec.parse_options({})
    records = [asyncio.run(play_case(spec, row, 0, opts, scripted_binder(spec, {"*": "random"})))
               for row in spec.select_rows(opts)[:4]]
    leaves = list(metric_leaves(spec.summarize(records)))
    assert any(isinstance(v, dict) for _, v in leaves)
    for path, v in leaves:
        if isinstance(v, dict):
            assert "ci" in v and len(v["ci"]) == 2 and v.get("method") in ("wilson", "t", "cluster_bootstrap"), path
        else:  # a bare number is allowed only as a count
            assert path.rsplit(".", 1)[-1] in COUNT_KEYS or "per_word" in path, path


# -- the cluster bootstrap used where games share a word ------------------------------------------------
def test_cluster_bootstrap_widens_when_words_decide_the_outcome():
    from pytest_gameeval.metrics.cluster import clustered_mean
    from pytest_gameeval.metrics.stats import rate

    clusters = [i // 5 for i in range(50)]  # 10 words, 5 games each
    by_word = clustered_mean([1.0] * 25 + [0.0] * 25, clusters)  # each word always won or always lost
    mixed = clustered_mean([float(i % 2) for i in range(50)], clusters)  # every word half won
    wilson = rate(25, 50)["ci"]
    assert by_word["value"] == mixed["value"] == 0.5 and by_word["clusters"] == 10
    assert by_word["ci"][1] - by_word["ci"][0] > wilson[1] - wilson[0] > mixed["ci"][1] - mixed["ci"][0]
    assert clustered_mean([1.0] * 25 + [0.0] * 25, clusters) == by_word  # seeded: reports repeat
    assert clustered_mean([1.0, 0.0], ["w", "w"])["ci"] == [None, None]  # one word: no interval
    assert clustered_mean([1.0, 1.0], ["a", "b"])["ci"] == [1.0, 1.0]
