"""The benchmark scripts' own logic (no timing assertions): token summaries, price tables, the
gate simulation's driver and the engine benchmark's policy/engine split."""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
from pathlib import Path

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.run.settings import GateConfig

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def record(game: str, seats: list[tuple[str, str, str]], usage: dict[str, tuple[int, int, int]]) -> dict:
    return {
        "game": game,
        "seats": [{"name": n, "role": r, "model": m} for n, r, m in seats],
        "usage": {s: {"input_tokens": i, "output_tokens": o, "calls": c} for s, (i, o, c) in usage.items()},
    }


def test_tokens_per_seat_role_and_cost():
    tokens = load("tokens")
    records = [
        record("g", [("A", "asker", "m1"), ("B", "teller", "m2")], {"A": (100, 10, 2), "B": (300, 30, 2)}),
        record("g", [("A", "asker", "m1"), ("B", "teller", "m2")], {"A": (200, 20, 4), "B": (100, 10, 2)}),
    ]
    prices = {
        "m1": {"input_per_million": 1.0, "output_per_million": 10.0},
        "*": {"input_per_million": 0, "output_per_million": 0},
    }
    out = tokens.summarize(records, prices)
    asker = out["g"]["seats"]["asker"]
    assert out["g"]["games"] == 2
    assert asker["prompt_tokens"]["mean"] == 150.0 and asker["calls"]["mean"] == 3.0
    low, high = asker["prompt_tokens"]["ci95"]
    assert low < 150 < high
    # (100*1 + 10*10)/1e6 and (200*1 + 20*10)/1e6 -> mean 3e-4
    assert asker["usd_per_seat_per_game"]["mean"] == pytest.approx(3e-4)
    assert out["g"]["seats"]["teller"]["usd_per_seat_per_game"]["mean"] == 0


def test_tokens_missing_price_is_said_not_guessed():
    tokens = load("tokens")
    rec = record("g", [("A", "asker", "m1")], {"A": (1, 1, 1)})
    out = tokens.summarize([rec], {"other": {"input_per_million": 1, "output_per_million": 1}})
    assert isinstance(out["g"]["seats"]["asker"]["usd_per_seat_per_game"], str)


@pytest.mark.parametrize("bad", ["[1, 2]", "{not json", '{"m": {"input_per_million": -1, "output_per_million": 1}}'])
def test_bad_price_table_is_one_clear_error(bad):
    with pytest.raises(GameEvalError, match="--prices"):
        load("tokens").load_prices(bad)


def test_gate_driver_stops_early_on_a_large_regression_and_not_on_equal_runs():
    gate = load("gate_savings")
    config = GateConfig(alpha=0.05, beta=0.1, tolerance=0.1, looks=4)
    rng = random.Random(1)
    base = [float(rng.random() < 0.8) for _ in range(200)]
    worse = [float(rng.random() < 0.1) for _ in range(200)]
    failed, used = gate.run_gate(base, worse, config, 0.1)
    assert failed and used == 50  # decided at the first look
    failed, used = gate.run_gate(base, list(base), config, 0.1)
    assert not failed and used <= 200


def test_gate_scenario_reports_both_procedures():
    gate = load("gate_savings")
    args = argparse.Namespace(reps=3, baseline_games=40, games=40, p0=0.5, alpha=0.05, beta=0.1, fixed_sizes=[20],
                              tolerance=0.1, looks=4)
    out = gate.scenario(0.5, args, random.Random(0))
    assert out["is_regression_beyond_tolerance"]
    assert out["fixed_n"]["games"] == 40 and out["fixed_n_smaller"][0]["games"] == 20
    assert 0 <= out["sequential"]["fail_rate"] <= 1
    assert out["sequential"]["mean_games"] <= 40


def test_engine_benchmark_splits_policy_time_from_engine_time():
    engine = load("engine_overhead")
    out = engine.measure("askguess", 2)
    assert out["games"] == 2 and out["turns"] > 0
    assert out["policy_cpu_ms_per_turn"] >= 0
    assert out["total_cpu_ms_per_turn"] == pytest.approx(
        out["engine_cpu_ms_per_turn"] + out["policy_cpu_ms_per_turn"], abs=2e-4)


def test_real_models_power_says_when_pairs_tie_and_what_an_effect_needs():
    real = load("real_models")
    tied = real.paired_test([(0.0, 0.0)] * 8)
    assert tied["tied_pairs"] == 8 and tied["games_for_80pct_power"] is None and tied["detectable_difference"] is None
    mixed = real.paired_test([(0.0, 1.0)] * 3 + [(0.0, 0.0)] * 17)  # +0.15 mean difference, 20 pairs
    assert mixed["tied_pairs"] == 17 and mixed["games_for_80pct_power"] > 20
    assert 0.15 < mixed["detectable_difference"] < 0.5  # not detectable at 20: needs more games


def test_http_benchmark_server_plays_every_game_to_the_call_count_the_benchmark_assumes():
    """benchmarks/http_concurrency.py's ideal and its call-count check assume that the loopback
    server's replies are legal moves that never end a game: it stopped running when a new move
    check (repeated questions) made the server's fixed question a rule violation. Every word of the
    dataset, every seat on the server (none on the reference policy), two rounds past the server's
    question list."""
    import asyncio

    from pytest_gameeval.engine.play import play_case
    from pytest_gameeval.engine.player import Player, Reply
    from pytest_gameeval.games.registry import get_spec

    http = load("http_concurrency")
    server = load("loopback_openai")
    rounds = len(server.QUESTIONS) + 2
    spec = get_spec("askguess")
    options = spec.parse_options(http.game_options(rounds))
    calls: list[str] = []

    class Server(Player):  # what the loopback server answers, in-process (unit test: no HTTP)
        label = "loopback"

        async def act(self, ctx):
            calls.append(ctx.seat.name)
            return Reply(server.reply_for(ctx.messages))

    async def main():
        records = []
        for row in spec.rows(options):
            game, _ = spec.setup(row, 0, options)
            roles = spec.seat_model_roles(game).values()
            assert sum(not spec.plays_reference(role, options) for role in roles) == http.HTTP_SEATS
            before = len(calls)
            records.append(await play_case(spec, row, 0, options, lambda seat, role: Server()))
            assert len(calls) - before == http.calls_per_game(rounds), (row.id, records[-1].outcome)
        return records

    records = asyncio.run(main())
    assert len(records) == 100 and {r.outcome["label"] for r in records} == {"RLE"}
    assert all(sum(n for seat in r.failures.values() for n in seat.values()) == 0 for r in records)


def test_spyfall_speed_keeps_the_games_prompts_and_load(tmp_path, capsys):
    """The SpyFall timing script on the scripted model: one game per protocol, its record, every
    call's prompt and reply, each seat's prompt size call by call, and `uptime` beside the times."""
    import json

    from pytest_gameeval.engine.record import read_records

    speed = load("spyfall_speed")
    sizes = {}
    for protocol in ("paper", "default"):
        records, calls = tmp_path / f"{protocol}.jsonl", tmp_path / f"{protocol}.calls.jsonl"
        speed.main(
            [
                "--model",
                "gameeval/scripted/strong",
                "-T",
                f"protocol={protocol}",
                "--records",
                str(records),
                "--calls",
                str(calls),
            ]
        )
        out = json.loads(capsys.readouterr().out)
        game = out["games"][0]
        assert out["options"] == {"protocol": protocol} and "load average" in out["uptime_before"]
        (record,) = read_records(records)
        assert record.options["protocol"] == protocol and record.label == game["outcome"]
        lines = [json.loads(line) for line in calls.read_text().splitlines()]
        assert len(lines) == game["calls"] and all(c["messages"][0]["role"] == "system" and c["reply"] for c in lines)
        assert sum(map(len, game["prompt_tokens_per_seat"].values())) == game["calls"]
        sizes[protocol] = lines[0]["messages"]
    assert "Reply with one JSON object" in sizes["paper"][-1]["content"]
    assert "JSON" not in sizes["default"][-1]["content"] and "JSON" in sizes["default"][0]["content"]
