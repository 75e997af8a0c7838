"""`gameeval history page` (issue 68): one static HTML file of a store, opened from disk in headless
Chromium with no network: per game a trend chart with the verdict markers and a break where the
rules changed, a table of runs with their gate verdicts and links to each run's files; on a local
store and on an S3 API (moto's server on 127.0.0.1, no client mock)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_history_store import s3  # noqa: F401  (the S3 server fixture)
from test_leaderboard import _chrome

from pytest_gameeval.analysis.history.store import RunStore
from pytest_gameeval.cli import main as cli

RUN = ["-p", "no:cacheprovider", "--gameeval-only", "--gameeval-games", "askguess", "--gameeval-limit", "30"]
# four releases: random, oracle (better), random (worse), oracle under other rules (max_rounds: not compared)
RELEASES = [("random", "release-1", []), ("oracle", "release-2", []), ("random", "release-3", []),
            ("oracle", "release-4", ["--gameeval-option", "max_rounds=5"])]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A local store of four real plugin runs."""
    where = tmp_path_factory.mktemp("project")
    (where / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    for strength, name, extra in RELEASES:
        done = subprocess.run([sys.executable, "-m", "pytest", *RUN, f"--gameeval-model=gameeval/scripted/{strength}",
                               "--gameeval-storage=store", f"--gameeval-save={name}", *extra],
                              cwd=where, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:]
    return where / "store"


def _open(page: Path) -> dict:
    """What a reader of the page sees in Chromium, and what the browser fetched for it."""
    driver = _chrome()
    try:
        driver.get(page.resolve().as_uri())
        seen = {
            "charts": len(driver.find_elements("css selector", "section.game svg.trend")),
            "better": len(driver.find_elements("css selector", "svg.trend polygon.marker.better")),
            "worse": len(driver.find_elements("css selector", "svg.trend polygon.marker.worse")),
            "breaks": len(driver.find_elements("css selector", "svg.trend line.break")),
            "points": len(driver.find_elements("css selector", "svg.trend circle.point")),
            "runs": [[td.text for td in tr.find_elements("tag name", "td")]
                     for tr in driver.find_elements("css selector", "table.runs tbody tr")],
            "links": [a.get_attribute("href") for a in driver.find_elements("css selector", "table.runs a")],
            "fetched": driver.execute_script("return performance.getEntriesByType('resource').length"),
        }
        return seen
    finally:
        driver.quit()


@pytest.mark.slow  # four plugin runs and a browser: .ci/run's chromium stage (-n 0)
def test_a_local_stores_page_shows_the_trend_verdicts_break_and_runs(store, tmp_path):
    page = tmp_path / "site" / "history.html"
    assert cli(["history", "--storage", str(store), "page", "--output", str(page)]) == 0
    seen = _open(page)
    assert seen["charts"] == 1 and seen["points"] == 4
    assert seen["better"] == 1 and seen["worse"] == 1 and seen["breaks"] == 1
    assert seen["fetched"] == 0  # self-contained: nothing loaded but the file itself
    runs = seen["runs"]
    assert [r[1] for r in runs] == ["release-4", "release-3", "release-2", "release-1"]  # newest first
    assert all(r[4].startswith("gameeval/scripted/") and r[6] == "not priced" for r in runs)
    links = seen["links"]
    assert sum(h.endswith("/report.json") for h in links) == 4 and sum(h.endswith(".jsonl") for h in links) == 4
    for href in links:  # each link opens a stored file (relative to the page)
        assert Path(href.removeprefix("file://")).is_file(), href


@pytest.mark.slow  # an S3 server, four stored runs and a browser
def test_an_s3_stores_page(store, s3, tmp_path):  # noqa: F811
    for run in RunStore(store).runs():
        assert cli(["history", "--storage", s3, "add", str(store / "runs" / run.id / "report.json"),
                    "--name", run.name]) == 0
    page = tmp_path / "history.html"
    assert cli(["history", "--storage", s3, "page", "--output", str(page)]) == 0
    seen = _open(page)
    assert seen["charts"] == 1 and seen["better"] == 1 and seen["worse"] == 1 and seen["breaks"] == 1
    assert len(seen["runs"]) == 4 and seen["fetched"] == 0
    assert all(h.startswith(s3 + "/runs/") for h in seen["links"])  # the stored objects' URLs


def test_the_page_needs_a_run(tmp_path, capsys):
    assert cli(["history", "--storage", str(tmp_path / "empty"), "page", "--output", str(tmp_path / "h.html")]) == 2
    assert "no stored run for a page" in capsys.readouterr().err and not (tmp_path / "h.html").exists()
