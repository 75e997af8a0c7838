"""docs/adding-a-game.md, followed once on every run: its toy game High-Low is written from the
page's code blocks into a temporary folder, registered with one line, and played through the engine
with scripted players, through inspect's Task factory with `gameeval/scripted` and as the pytest
plugin's cases. Nothing else in the package is touched: a new game is one folder plus one registry
line."""

from __future__ import annotations

import asyncio
import json
import math
import re
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import pytest_gameeval.run.runner  # noqa: F401  (imported once: pytester runs in-process)
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.games import registry
from pytest_gameeval.inspect_ext.task import game_task
from pytest_gameeval.players.scripted import scripted_binder

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "adding-a-game.md"
BLOCK = re.compile(r"^```\w*\n(.*?)^```", re.S | re.M)


def doc_files() -> dict[str, str]:
    """path -> text of every block whose first line names a file of the game ('# highlow/...')."""
    files = {}
    for block in BLOCK.findall(DOC.read_text(encoding="utf-8")):
        first, _, rest = block.partition("\n")
        if re.fullmatch(r"# highlow/\S+", first):
            files[first[2:]] = rest
    return files


def registry_line() -> tuple[str, str]:
    """The page's registry line: ("highlow", "pytest_gameeval.games.highlow")."""
    blocks = [b for b in BLOCK.findall(DOC.read_text(encoding="utf-8")) if b.strip().startswith('"highlow":')]
    assert len(blocks) == 1, "the page shows the registry line once"
    name, module = re.fullmatch(r'\s*"(\w+)": "([\w.]+)",\s*', blocks[0]).groups()
    return name, module


@pytest.fixture
def highlow(tmp_path, monkeypatch):
    """The page's game written into tmp_path/highlow and registered with the page's one line (under
    its temporary top-level name, since the folder lies outside the package)."""
    files = doc_files()
    assert {"highlow/__init__.py", "highlow/rules.py", "highlow/prompts.py", "highlow/scripted.py",
            "highlow/metrics.py", "highlow/data/numbers.jsonl", "highlow/data/README.md"} <= set(files)
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    name, module = registry_line()
    assert (name, module) == ("highlow", "pytest_gameeval.games.highlow")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.GAMES, name, "highlow")
    yield registry.get_spec("highlow")
    for mod in [m for m in sys.modules if m == "highlow" or m.startswith("highlow.")]:
        monkeypatch.delitem(sys.modules, mod)


def test_the_toy_game_plays_through_the_engine(highlow):
    spec = highlow
    options = spec.parse_options({})
    rows = spec.select_rows(options)
    assert [r.id for r in rows] == ["n7", "n42", "n99"]  # read from its own data/ folder
    strong = [asyncio.run(play_case(spec, row, 0, options, scripted_binder(spec, {"*": "strong"}))) for row in rows]
    assert [r.label for r in strong] == ["win"] * 3  # bisection finds 1..100 within 7 guesses
    assert all(r.outcome["details"]["guesses"][-1] == r.outcome["details"]["secret"] for r in strong)
    weak = [asyncio.run(play_case(spec, row, e, options, scripted_binder(spec, {"*": "random"}, seed=e)))
            for row in rows for e in range(10)]
    assert sum(r.label == "win" for r in weak) < 10  # a random guesser rarely finds one of 100 in 7
    summary = spec.summarize(strong + weak)
    assert summary["games"] == 33 and summary["rates"]["win"]["ci"][0] > 0
    assert spec.score(strong[0])["win"] == 1.0 and math.isnan(
        spec.score(next(r for r in weak if r.label == "lose"))["guesses_win"]
    )


def test_the_toy_game_plays_through_inspect(highlow, tmp_path):
    [log] = inspect_eval(game_task("highlow", limit=2, top=50), model="gameeval/scripted/strong",
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    assert len(log.samples) == 2
    for sample in log.samples:
        [score] = sample.scores.values()
        assert score.value["win"] == 1.0 and score.answer == "win"
        assert sample.metadata["gameeval_record"]["game"] == "highlow"


def test_the_toy_game_becomes_pytest_cases(highlow, pytester):
    result = pytester.runpytest_inprocess(
        "-p",
        "no:cacheprovider",
        "-v",
        "--gameeval-model",
        "gameeval/scripted/strong",
        "--gameeval-games",
        "highlow",
        "--gameeval-report",
        "report.json",
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*gameeval::highlow[[]n7-t0[]] PASSED*", "*win*100.0%*3/3*"])
    report = json.loads((pytester.path / "report.json").read_text())
    assert list(report["games"]) == ["highlow"]
    assert [c["game"] for c in report["cases"]] == ["highlow"] * 3


def test_the_toy_game_rejects_bad_task_arguments_in_one_line(highlow):
    with pytest.raises(Exception, match="unknown task argument"):
        highlow.parse_options({"tops": 5})
    with pytest.raises(Exception) as error:  # the declaration's bound, checked once
        highlow.parse_options({"top": "0"})
    assert str(error.value) == "task argument top=0 must be at least 1"
