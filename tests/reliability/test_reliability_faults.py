"""Fault injection across every registered game (issue 9, item 1).

Two levels:
- the engine: a seat player that fails a share of calls (chat error after retries) or returns a
  reply cut in half. Fast, many seeds.
- the whole inspect path: `gameeval/scripted -M fault_rate=...` raises rate-limit, server and
  timeout errors (inspect retries them) and truncates replies, for every task in one eval.

Either way: no crash, every game ends with one of its outcome labels, chat errors are counted in
the record, and no sample is missing from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path

import pytest
from conftest import FakePlayer

from pytest_gameeval.engine.game import CHAT_ERROR
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Reply
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.players.scripted import scripted_binder

ROOT = Path(__file__).resolve().parents[2]


def faults(rng: random.Random, rate: float, counts: dict[str, int]):
    """A change for FakePlayer: at `rate`, the scripted seat's call fails (chat error) or comes back truncated."""

    def change(ctx, text: str) -> Reply | str | None:
        counts["calls"] += 1
        if rng.random() >= rate:
            return None
        if rng.random() < 0.5:
            counts["chat"] += 1
            return Reply("", error=rng.choice(["RateLimitError: 429", "APIError: 503", "TimeoutError: read timed out"]))
        counts["truncated"] += 1
        return Reply(text[: len(text) // 2])

    return change


def play_with_faults(game: str, seed: int, rate: float, counts: dict[str, int]):
    spec = get_spec(game)
    options = spec.parse_options({"seed": seed})
    rows = spec.select_rows(options)
    row = rows[seed * 11 % len(rows)]
    strength = "random" if "random" in spec.scripted else next(iter(spec.scripted))
    inner = scripted_binder(spec, {"*": strength}, seed)
    rng = random.Random(seed)
    return asyncio.run(
        play_case(
            spec,
            row,
            0,
            options,
            lambda seat, role: FakePlayer(inner=inner(seat, role), change=faults(rng, rate, counts)),
        )
    )


def check_classified(game: str, record, counts: dict[str, int]) -> None:
    spec = get_spec(game)
    assert record.label in spec.outcome_labels, record.label
    spec.score(record)  # scoring never crashes on a faulty game
    assert record.failure_totals()[CHAT_ERROR] >= 0


@pytest.mark.parametrize("game", sorted(GAMES))
def test_ten_percent_faults_every_game_ends_classified(game):
    counts = {"calls": 0, "chat": 0, "truncated": 0}
    records = [play_with_faults(game, seed, 0.10, counts) for seed in range(6)]
    for record in records:
        check_classified(game, record, counts)
    # every injected chat error is in some record, none invented
    assert sum(r.failure_totals()[CHAT_ERROR] for r in records) == counts["chat"]
    assert counts["calls"] > 0


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_call_failing_ends_in_a_chat_error_outcome(game):
    counts = {"calls": 0, "chat": 0, "truncated": 0}
    spec = get_spec(game)
    options = spec.parse_options({})
    row = spec.select_rows(options)[0]

    def dead(ctx):
        counts["chat"] += 1
        return None  # a failed call

    record = asyncio.run(
        play_case(
            spec,
            row,
            0,
            options,
            lambda seat, role: FakePlayer(dead, label="dead", error="APIError: 503 service unavailable"),
        )
    )
    assert record.label in spec.outcome_labels
    if "CE" in spec.outcome_labels:  # games without a CE class forfeit by their own rule
        assert record.label == "CE"
    assert record.failure_totals()[CHAT_ERROR] == counts["chat"] > 0


def inspect_faults(log_dir: str, limit: int, fault_rate: float, seed: int = 3):
    """Every task through inspect with injected provider faults; returns the logs and figures."""
    from inspect_ai import eval as inspect_eval

    with contextlib.chdir(ROOT):  # inspect takes task files by relative path only
        logs = inspect_eval(
            [f"tasks/{g}.py" for g in sorted(GAMES)], model="gameeval/scripted",
            model_args={"fault_rate": fault_rate, "seed": seed}, limit=limit, log_dir=log_dir,
            display="none", max_retries=3,
        )
    figures = {"calls": 0, "faults_seen": 0, "games": 0, "chat_errors": 0}
    for log in logs:
        for sample in log.samples or []:
            figures["games"] += 1
            for event in sample.events:
                if event.event == "model":
                    figures["calls"] += 1
                    figures["faults_seen"] += bool(event.error) + (event.output.stop_reason == "max_tokens")
            record = sample.metadata["gameeval_record"]
            figures["chat_errors"] += sum(c.get(CHAT_ERROR, 0) for c in record["failures"].values())
    return logs, figures


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_inspect_path_with_ten_percent_provider_faults(tmp_path):
    logs, figures = inspect_faults(str(tmp_path / "logs"), limit=1, fault_rate=0.10)
    assert len(logs) == len(GAMES)
    for log in logs:
        assert log.status == "success", (log.eval.task, log.error)
        assert log.results.completed_samples == log.results.total_samples == 1
        game = log.eval.task.split("/")[-1]
        spec = get_spec(game)
        for sample in log.samples:
            (score,) = sample.scores.values()
            label = sample.metadata["gameeval_record"]["outcome"]["label"]
            assert label in spec.outcome_labels
            # the ANSWER is the label, or in games with sides the evaluated seat's won/lost ending in it
            assert score.answer == label or score.answer.endswith(f"({label})"), score.answer
    assert figures["faults_seen"] > 0  # faults really were injected
