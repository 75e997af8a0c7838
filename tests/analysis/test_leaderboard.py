"""`gameeval leaderboard`: cells and rating from hand-built boards, bad input, and the page built
from real inspect logs (scripted players) and a committed report, read back in headless Chromium."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from pytest_gameeval.analysis.rankings import leaderboard as L
from pytest_gameeval.cli import main as cli_main
from pytest_gameeval.engine.errors import GameEvalError

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "reports" / "baseline-local-askguess.json"


def _board(cells: dict[tuple[str, str], list[float]]) -> L.Board:
    board = L.Board()
    for key, values in cells.items():
        board.cells[key].values.extend(values)
    return board


def test_cells_carry_value_interval_and_games():
    board = _board({("A", "askguess"): [1, 1, 0, 1], ("A", "spygpt"): [3.0, 4.0, 5.0]})
    result = L.build(board, n_resamples=50)
    cells = result["rows"][0]["cells"]
    assert (
        cells["askguess"]["value"] == 0.75
        and cells["askguess"]["method"] == "wilson"
        and cells["askguess"]["games"] == 4
    )
    assert cells["spygpt"]["method"] == "t" and cells["spygpt"]["ci"][0] < 4.0 < cells["spygpt"]["ci"][1]
    assert L.cell_text(cells["askguess"]).startswith("0.75 [0.30, 0.95] (n=4)")
    assert L.cell_text(None) == "not played"


def test_an_interval_of_a_bounded_headline_stays_inside_its_bounds():
    """Issue 45: Taboo 0.96 [0.78, 1.14] and SpyFall 0.10 [-0.13, 0.34] over 3 games each."""
    board = _board({("A", "taboo"): [0.9, 1.0, 0.98], ("A", "spyfall"): [0.0, 0.05, 0.25]})
    cells = L.build(board, n_resamples=50)["rows"][0]["cells"]
    for game in ("taboo", "spyfall"):
        low, high = cells[game]["ci"]
        assert 0.0 <= low <= cells[game]["value"] <= high <= 1.0 and cells[game]["method"] == "t, clipped to [0, 1]"
    assert cells["taboo"]["ci"][1] == 1.0 and cells["spyfall"]["ci"][0] == 0.0


def test_rating_orders_only_what_the_games_show():
    many = 200
    clear = _board({("strong", "askguess"): [1] * many, ("weak", "askguess"): [0] * many,
                    ("strong", "akinator"): [1] * many, ("weak", "akinator"): [0] * many})
    r = L.rating(clear, n_resamples=200)
    assert r["ratings"]["strong"]["rating"] == 1.0 and r["ratings"]["weak"]["rating"] == 0.0
    assert r["tiers"] == [["strong"], ["weak"]] and r["ranking"] == "strong > weak"
    # one game each, all lost/all won: a 1/1 against 0/1 proves nothing, so they are tied
    few = _board({("strong", "askguess"): [1], ("weak", "askguess"): [0]})
    r = L.rating(few, n_resamples=200)
    assert r["ratings"]["strong"]["rating"] == 1.0 and r["ranking"] == "strong = weak"
    # equal headlines: a tie (half a win each), and a model with no shared game is not rated
    tie = _board({("A", "askguess"): [0, 0], ("B", "askguess"): [0, 0], ("C", "taboo"): [1]})
    r = L.rating(tie, n_resamples=50)
    assert r["ratings"]["A"]["rating"] == r["ratings"]["B"]["rating"] == 0.5
    assert r["ratings"]["C"]["rating"] is None and r["ratings"]["C"]["games_rated"] == 0


def test_lower_is_better_headline_is_turned():
    spec = L.get_spec("askguess")
    assert L.higher_is_better("askguess") == spec.higher_is_better.get(spec.headline, True)


def test_bad_input_is_one_clear_error(tmp_path: Path, capsys):
    with pytest.raises(GameEvalError, match="no such file"):
        L.read_inputs([tmp_path / "missing"])
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(GameEvalError, match="neither an inspect log"):
        L.read_inputs([tmp_path / "notes.txt"])
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli_main(["leaderboard", str(empty), "--out", str(tmp_path / "out")]) == 2
    assert "no gameeval games" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing half-written


# -- the page from real logs ---------------------------------------------------------------------
SCRIPTED = {"gameeval/scripted/random": None, "gameeval/scripted/strong": None, "gameeval/scripted/first_option": None}


def _play(log_dir: Path, games_of: dict[str, list[str]], limit: int) -> None:
    from inspect_ai import eval as inspect_eval

    import gameeval.tasks as registered

    for model, games in games_of.items():
        tasks = [getattr(registered, g)() for g in games]
        logs = inspect_eval(tasks, model=model, limit=limit, log_dir=str(log_dir), display="none", max_tasks=len(tasks))
        assert all(log.status == "success" for log in logs)


def _chrome():
    pytest.importorskip("selenium", reason="needs selenium (pip install -e '.[dev]')")
    browser, driver = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
    if not (browser and driver):
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    for arg in ["--headless", "--no-sandbox", "--disable-gpu", "--window-size=1600,900",
                f"--user-data-dir={tempfile.mkdtemp(prefix='gameeval-chrome-')}"]:
        options.add_argument(arg)
    options.binary_location = browser
    return webdriver.Chrome(options=options, service=Service(driver))


def _read_table(driver) -> list[list[str]]:
    rows = driver.find_elements("css selector", "table.board tbody tr")
    return [[td.text for td in tr.find_elements("tag name", "td")] for tr in rows]


def _check_page(out: Path, models: set[str], games: int) -> None:
    driver = _chrome()
    try:
        driver.get((out / "leaderboard.html").resolve().as_uri())
        headings = [th.text for th in driver.find_elements("css selector", "table.board thead th")]
        assert headings[:2] == ["model", "rating"] and len(headings) == 2 + games
        table = _read_table(driver)
        assert {row[0] for row in table} == models
        for row in table:
            assert all(cell == "not played" or "n=" in cell for cell in row[2:])
            assert "[" in row[1] or row[1].startswith("not rated")
        # sorting by a column (our JS): the clicked column's numbers come out best first
        driver.find_elements("css selector", "table.board thead th")[1].click()
        ratings = [float(r[1].split()[0]) for r in _read_table(driver) if not r[1].startswith("not rated")]
        assert ratings == sorted(ratings, reverse=True)
        driver.find_elements("css selector", "table.board thead th")[1].click()
        ratings = [float(r[1].split()[0]) for r in _read_table(driver) if not r[1].startswith("not rated")]
        assert ratings == sorted(ratings)
        links = driver.find_elements("css selector", "table.board tbody a")
        assert links and all(
            "#/logs/" in a.get_attribute("href") or a.get_attribute("href").endswith(".json") for a in links
        )
    finally:
        driver.quit()


def test_page_from_logs_and_a_report_read_in_chromium(tmp_path: Path):
    logs = tmp_path / "logs"
    _play(logs, {m: ["spyfall"] for m in SCRIPTED}, limit=1)
    out = tmp_path / "board"
    assert cli_main(["leaderboard", str(logs), str(REPORT), "--out", str(out), "--bootstrap", "100"]) == 0
    board = json.loads((out / "leaderboard.json").read_text())
    local = json.loads(REPORT.read_text())["models"]["evaluated"]  # the GGUF by its identity, gameeval/local/FILE@SHA
    assert local.startswith("gameeval/local/") and "@" in local
    assert {r["model"] for r in board["rows"]} == {*SCRIPTED, local}
    assert [c["name"] for c in board["columns"]] == ["askguess", "spyfall"]
    md = (out / "leaderboard.md").read_text()
    assert f"| {local} |" in md and "(n=8)" in md  # the report's eight Ask-Guess games
    _check_page(out, {*SCRIPTED, local}, games=2)


def test_two_versions_of_a_game_are_two_columns_never_rated_against_each_other(tmp_path: Path):
    report = json.loads(REPORT.read_text())
    for name, version, model in [
        ("v1.json", "1", "model-a"),
        ("v2.json", "2", "model-b"),
        ("v2b.json", "2", "model-c"),
    ]:
        report["games"]["askguess"]["version"], report["models"]["evaluated"] = version, model
        (tmp_path / name).write_text(json.dumps(report))
    board = L.build(L.read_inputs([tmp_path]), n_resamples=50)
    assert [(c["game"], c["version"]) for c in board["columns"]] == [("askguess@1", "1"), ("askguess@2", "2")]
    assert board["columns"][0]["title"] == "Ask-Guess (version 1, not comparable with the other)"
    rows = {r["model"]: r for r in board["rows"]}
    assert (
        list(rows["model-a"]["cells"]) == ["askguess@1"] and rows["model-a"]["rating"]["rating"] is None
    )  # alone in its version
    assert rows["model-b"]["rating"]["games_rated"] == 1  # rated against model-c only, on version 2
    md = L.render_markdown(board)
    assert (
        "Ask-Guess (version 1, not comparable with the other)" in md
        and "Ask-Guess (version 2, not comparable with the other)" in md
    )


@pytest.mark.slow
def test_page_over_all_nine_games_and_three_models(tmp_path: Path):
    from pytest_gameeval.games.registry import GAMES, get_spec

    logs = tmp_path / "logs"
    models = ["gameeval/scripted/random", "gameeval/scripted/strong", "gameeval/scripted/oracle"]
    _play(logs, {m: [g for g in GAMES if m.rsplit("/", 1)[-1] in get_spec(g).scripted] for m in models}, limit=2)
    out = tmp_path / "board"
    assert cli_main(["leaderboard", str(logs), "--out", str(out), "--bootstrap", "100"]) == 0
    board = json.loads((out / "leaderboard.json").read_text())
    assert [c["name"] for c in board["columns"]] == list(GAMES)
    _check_page(out, set(models), games=len(GAMES))
