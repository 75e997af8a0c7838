"""Progress lines on stderr for `inspect eval` without a terminal (CI logs).

inspect's display shows progress only on a terminal; written to a file it prints "Monitor from
another shell..." and nothing more until the end. These inspect hooks count each gameeval task's
samples (the total from the eval's own sample ids x epochs, so --limit and --epochs count) and
their scores as they end; a `Ticker` prints one line per game every GAMEEVAL_PROGRESS_SECONDS,
and at a task's end its final line and every score with its full name (`scores_line`).
Registered when a gameeval task is built (task.py imports this module), so inspect runs without
our tasks never load it; hooks of tasks that are not ours do nothing."""

from __future__ import annotations

import math
import sys

from inspect_ai.hooks import Hooks, SampleEnd, SampleStart, TaskEnd, TaskStart, hooks
from inspect_ai.log import EvalScore

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.progress import Tally, Ticker, progress_seconds, without_terminal
from pytest_gameeval.games.registry import get_spec

_TALLIES: dict[str, Tally] = {}  # eval id -> its game's counts
_SPEND: dict[str, "Spend"] = {}  # eval id -> what its games cost (with --model-cost-config)
_TICKER: list[Ticker] = []


class Spend:
    """A task's spend line: its finished games' cost (the `cost_usd` score, inspect's prices) and,
    at their mean, the cost of the games left. Silent until a game was priced."""

    def __init__(self, tally: Tally):
        self.tally, self.usd, self.priced = tally, 0.0, 0

    @property
    def started(self) -> int:
        return self.priced  # the Ticker prints a line only once there is one

    @property
    def finished(self) -> int:
        return self.tally.finished

    def add(self, cost: object) -> None:
        if isinstance(cost, (int, float)) and not math.isnan(cost):
            self.usd += float(cost)
            self.priced += 1

    def line(self) -> str:
        left = max(0, (self.tally.total or 0) - self.tally.finished)
        mean = self.usd / self.priced
        return (f"{self.tally.game} spend: ${self.usd:.4f} so far over {self.priced} priced games, about "
                f"${left * mean:.4f} to finish the {left} left (at ${mean:.4f} a game)")


def _write(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@hooks(name="gameeval_progress", description="gameeval: progress lines on stderr when there is no terminal")
class GameEvalProgress(Hooks):
    def enabled(self) -> bool:
        try:
            return without_terminal(sys.stderr) and progress_seconds() is not None
        except GameEvalError:  # said in one line when the task is built (task.py)
            return False

    async def on_task_start(self, data: TaskStart) -> None:
        game = (data.spec.metadata or {}).get("gameeval_game")
        if not game:
            return
        dataset = data.spec.dataset
        samples = len(dataset.sample_ids) if dataset.sample_ids is not None else (dataset.samples or 0)
        epochs = data.spec.config.epochs or 1
        _TALLIES[data.eval_id] = Tally(game, samples * epochs, get_spec(game).headline)
        _SPEND[data.eval_id] = Spend(_TALLIES[data.eval_id])
        if not _TICKER:
            seconds = progress_seconds()
            assert seconds is not None  # enabled() checked it
            _TICKER.append(Ticker(seconds, lambda: [*_TALLIES.values(), *_SPEND.values()], _write).start())

    async def on_sample_start(self, data: SampleStart) -> None:
        tally = _TALLIES.get(data.eval_id)
        if tally is not None:
            tally.game_started()

    async def on_sample_end(self, data: SampleEnd) -> None:
        tally = _TALLIES.get(data.eval_id)
        if tally is None:
            return
        score = next(iter((data.sample.scores or {}).values()), None)
        values = score.value if score is not None and isinstance(score.value, dict) else None
        if values is None:  # the sample failed before it was scored
            tally.game_finished(None, None)
            return
        _SPEND[data.eval_id].add(values.get("cost_usd"))  # inspect_ext/scorer.py's COST_KEY
        labels = get_spec(tally.game).outcome_labels
        label = next((k for k in labels if values.get(k) == 1), "?")
        tally.game_finished(label, {k: float(v) for k, v in values.items() if isinstance(v, (int, float))})

    async def on_task_end(self, data: TaskEnd) -> None:
        tally = _TALLIES.pop(data.eval_id, None)
        spend = _SPEND.pop(data.eval_id, None)
        if tally is not None and data.log.results is not None:
            _write(f"gameeval final: {tally.line()}")
            if spend is not None and spend.priced:
                _write(f"gameeval final: {tally.game} cost ${spend.usd:.4f} over {spend.priced} priced games")
            _write(f"gameeval final: {scores_line(tally.game, data.log.results.scores)}")


def _number(value: float) -> str:
    return "no value" if math.isnan(value) else f"{value:.3g}"


def scores_line(game: str, scores: list[EvalScore]) -> str:
    """Every score key with its full name: inspect's own summary lays scores out four to an
    80-column row without a terminal and cuts longer names (`format_err…`)."""
    parts = []
    for score in scores:
        m = {name: metric.value for name, metric in score.metrics.items()}
        if "n_defined" in m:  # defined for some games only: say over how many
            defined = m.get("n_defined", 0)
            n = int(defined) if math.isfinite(defined) else 0  # no game defines it: inspect gives NaN
            parts.append(f"{score.name} {_number(m['mean'])} over {n} game{'s' if n != 1 else ''}")
        elif "low95" in m:
            parts.append(f"{score.name} {_number(m['mean'])} [{_number(m['low95'])}, {_number(m['high95'])}]")
        elif "mean" in m:
            parts.append(f"{score.name} {_number(m['mean'])}")
    return f"{game} scores: " + ", ".join(parts)
