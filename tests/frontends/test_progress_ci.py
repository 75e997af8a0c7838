"""Without a terminal (CI, output to a file) both front ends print progress lines: games finished of
the total and the headline so far, every GAMEEVAL_PROGRESS_SECONDS (here a short interval, and a
scripted model with latency so the games take a few seconds)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.progress import PROGRESS_ENV, Tally, progress_seconds

BIN = Path(sys.executable).parent
LINE = re.compile(
    r"^gameeval progress \((\d+) s\): (askguess[^:]*): (\d+)(?: of (\d+))? games? finished, (\d+) playing(.*)$", re.M
)


def run_without_terminal(args: list[str], cwd: Path, seconds: str = "0.5") -> str:
    """The command with stdout and stderr going to a file, as in CI; returns what it wrote."""
    out = cwd / "out.txt"
    env = {**os.environ, "CI": "true", PROGRESS_ENV: seconds, "PATH": f"{BIN}:{os.environ['PATH']}",
           "INSPECT_LOG_DIR": str(cwd / "logs")}
    with out.open("w") as f:
        subprocess.run(
            args, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=600
        )
    return out.read_text()


def lines_of(text: str) -> list[re.Match[str]]:
    return list(LINE.finditer(text))


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_inspect_eval_prints_progress_lines_on_stderr(tmp_path):
    text = run_without_terminal(["inspect", "eval", "gameeval/askguess", "--model", "gameeval/scripted/random",
                                 "-M", "latency=0.2", "--limit", "6", "-T", "max_rounds=8",
                                 # two games at a time, so some have finished while others play (all six at
                                 # once end together on an idle machine, before any line can count them)
                                 "--max-samples", "2"], tmp_path)
    found = lines_of(text)
    assert len(found) >= 2, text[-3000:]
    assert {m[4] for m in found} == {"6"}  # the total is the eval's samples (--limit), not the dataset
    assert any(
        int(m[3]) > 0 and "played_quality " in m[6] and "(headline)" in m[6] and "outcomes " in m[6] for m in found
    ), text[-3000:]
    # each game in play says how far it has got, so a long game's line still moves
    assert any(re.search(r"; in play: \S+ round \d+, turn \d+", m[6]) for m in found), text[-3000:]


@pytest.mark.slow  # a plugin run long enough for progress lines (~11 s on 2 busy cores)
def test_the_plugin_prints_progress_lines_in_one_process(tmp_path):
    text = run_without_terminal([str(BIN / "pytest"), "--gameeval-only", "-p", "no:cacheprovider",
                                 "--gameeval-model=gameeval/scripted/random", "--gameeval-model-arg", "latency=0.2",
                                 "--gameeval-games", "askguess", "--gameeval-limit", "6",
                                 "--gameeval-option", "max_rounds=8"], tmp_path)
    found = lines_of(text)
    assert len(found) >= 2, text[-3000:]
    assert {m[4] for m in found} == {"6"}
    assert any(int(m[3]) > 0 and "(headline)" in m[6] for m in found), text[-3000:]
    assert "6 passed" in text  # and the final summary as usual


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_the_plugin_prints_progress_lines_from_xdist_workers(tmp_path):
    text = run_without_terminal([str(BIN / "pytest"), "-n", "2", "--gameeval-only", "-p", "no:cacheprovider",
                                 "--gameeval-model=gameeval/scripted/random", "--gameeval-model-arg", "latency=0.2",
                                 "--gameeval-games", "askguess", "--gameeval-limit", "6", "--gameeval-shard-size", "3",
                                 "--gameeval-option", "max_rounds=8"], tmp_path)
    found = lines_of(text)
    workers = {re.search(r"\((gw\d)'s share of 6\)", m[2])[1] for m in found if "share" in m[2]}
    assert workers == {"gw0", "gw1"}, text[-3000:]


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_no_lines_when_turned_off(tmp_path):
    text = run_without_terminal([str(BIN / "pytest"), "--gameeval-only", "-p", "no:cacheprovider",
                                 "--gameeval-model=gameeval/scripted/random", "--gameeval-model-arg", "latency=0.1",
                                 "--gameeval-games", "askguess", "--gameeval-limit", "2"], tmp_path, seconds="0")
    assert not lines_of(text) and "2 passed" in text


def test_a_line_names_how_far_each_game_in_play_has_got():
    from pytest_gameeval.engine.live import register, unregister
    from pytest_gameeval.games.registry import get_spec

    spec = get_spec("askguess")
    options = spec.parse_options({})
    rows = spec.select_rows(options)
    games = [spec.setup(row, 0, options)[0] for row in rows[:6]]
    entries = [register(row.id, game) for row, game in zip(rows, games)]
    entries[0].turns, games[0].round = 7, 3
    tally = Tally("askguess", 6, "played_quality")
    tally.game_started()
    try:
        line = tally.line()
        assert f"; in play: {rows[0].id} round 3, turn 7; " in line and line.endswith("; +2 more")
    finally:
        for entry in entries:
            unregister(entry)
    assert "in play" not in tally.line()


def test_a_reply_awaited_long_shows_as_a_growing_wait():
    """A model that does not answer (a server down: inspect retries without end by default) must
    not print the same line for minutes: from WAITING_SHOWN seconds the wait is shown, counting up."""
    from pytest_gameeval.engine.live import WAITING_SHOWN, register, unregister
    from pytest_gameeval.games.registry import get_spec

    spec = get_spec("askguess")
    options = spec.parse_options({})
    row = spec.select_rows(options)[0]
    entry = register(row.id, spec.setup(row, 0, options)[0])
    try:
        entry.asked(1)
        asked = entry.asked_at
        assert entry.where(asked + WAITING_SHOWN - 1) == f"{row.id} round 1, turn 1"
        assert entry.where(asked + 840) == f"{row.id} round 1, turn 1 (reply awaited 840 s)"
        assert entry.where(asked + 855) != entry.where(asked + 840)
        entry.asked(2)  # the next turn: its own wait
        assert "awaited" not in entry.where(entry.asked_at + 1)
    finally:
        unregister(entry)


def test_a_line_counts_outcomes_and_skips_undefined_headlines(monkeypatch):
    tally = Tally("spyfall", 4, "spy_win")
    for label, scores in [
        ("villager_win", {"spy_win": 0.0}),
        ("spy_win", {"spy_win": 1.0}),
        ("x", {"spy_win": float("nan")}),
    ]:
        tally.game_started()
        tally.game_finished(label, scores)
    tally.game_started()
    assert (
        tally.line()
        == "spyfall: 3 of 4 games finished, 1 playing, spy_win 1/2 = 50% (headline), outcomes spy_win 1 villager_win "
           "1 x 1"
    )
    tally.game_finished(None, None)
    assert tally.line().endswith(", 1 harness errors")
    monkeypatch.setenv(PROGRESS_ENV, "soon")
    with pytest.raises(GameEvalError, match=f"^{PROGRESS_ENV}='soon' must be a number of seconds"):
        progress_seconds()


@pytest.mark.parametrize(
    "command",
    [
        ["inspect", "eval", "gameeval/askguess", "--model", "gameeval/scripted", "--limit", "1"],
        [
            str(BIN / "pytest"),
            "--gameeval-only",
            "-p",
            "no:cacheprovider",
            "--gameeval-model=gameeval/scripted",
            "--gameeval-games",
            "askguess",
            "--gameeval-limit",
            "1",
        ],
    ],
    ids=["inspect", "pytest"],
)
def test_a_bad_interval_is_one_line(tmp_path, command):
    text = run_without_terminal(command, tmp_path, seconds="soon")
    assert "Traceback" not in text
    assert f"gameeval: {PROGRESS_ENV}='soon' must be a number of seconds" in " ".join(text.split()), text[-2000:]


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_inspect_eval_ends_with_full_score_names_and_no_nan_for_partly_defined_keys(tmp_path):
    """issue 27: inspect's 80-column summary cut names (`format_err…`) and printed `rounds_st mean nan`
    when one game had no success. Our final line names every score in full; a key defined for some
    games is averaged over those games (mean, with n_defined), so the log and summary hold no NaN."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    env_columns = os.environ.pop("COLUMNS", None)
    try:
        text = run_without_terminal(["inspect", "eval", "gameeval/askguess", "--model", "gameeval/scripted",
                                     "--limit", "6", "--display", "full"], tmp_path)
    finally:
        if env_columns is not None:
            os.environ["COLUMNS"] = env_columns
    (path,) = list_eval_logs(str(tmp_path / "logs"))
    scores = read_eval_log(path).results.scores
    values = {s.name: {k: m.value for k, m in s.metrics.items()} for s in scores if s.metrics}
    assert 0 < values["rounds_st"]["n_defined"] < 6, text[-3000:]  # defined for some games only (ST)
    for name, metrics in values.items():
        for metric, value in metrics.items():
            undefined = metric == "stderr" and metrics.get("n_defined", 2) < 1
            assert value == value or undefined, (name, metric)  # not NaN
    (final,) = re.findall(r"^gameeval final: askguess scores: (.*)$", text, re.M)
    shown = [part.split(" ")[0] for part in final.split(", ") if not part[0].isdigit()]
    assert shown == list(values), final  # every score, its full name, in the log's order
    assert "nan" not in final and "…" not in final
    n = int(values["rounds_st"]["n_defined"])
    assert f"rounds_st {values['rounds_st']['mean']:.3g} over {n} game" in final
