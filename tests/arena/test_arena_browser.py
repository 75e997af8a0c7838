"""A real browser (headless Chromium through selenium and chromedriver) plays a full Taboo game
with JavaScript on (replies arrive without a reload) and a full Bluffing game with JavaScript off
(plain form posts), against `gameeval/scripted`, then reads the results page.

Screenshots of the game page and the results page are written to $GAMEEVAL_ARENA_SCREENSHOTS
when set (docs/img holds the committed ones), else to the test's temporary directory.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from arena_support import load_bench

bench = load_bench("arena_load")
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (BROWSER and DRIVER),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)


def _driver(javascript: bool):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1000,1400",
    ):
        options.add_argument(arg)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(240)  # the results page imports matplotlib on first use; CI machines are shared
    return driver


def _start(driver, url: str, game: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(url + "/")
    from selenium.webdriver.support.ui import WebDriverWait

    Select(driver.find_element(By.ID, "game-choice")).select_by_value(game)
    driver.find_element(By.ID, "start").click()
    WebDriverWait(driver, 180).until(lambda d: "/s/" in d.current_url or d.find_elements(By.TAG_NAME, "h1")
                                    and d.find_element(By.TAG_NAME, "h1").text != "gameeval arena")
    assert "/s/" in driver.current_url, driver.find_element(By.TAG_NAME, "body").text[:300]


def _play(driver, game: str, shots: Path | None, javascript: bool) -> str:
    """Type what the page asks until the outcome shows; returns the outcome's text."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 180)
    card = driver.find_element(By.ID, "card").text
    word = re.search(r'secret word is "([^"]+)"', card)
    for turn in range(30):
        if driver.find_elements(By.ID, "outcome"):
            return driver.find_element(By.ID, "outcome").text
        text = bench.person_reply(game, "", turn)
        assert not word or word.group(1).lower() not in text.lower()
        if javascript:
            driver.execute_script("window.arenaNoReload = true;")
        old = driver.find_element(By.ID, "game")
        driver.find_element(By.ID, "text").send_keys(text)
        driver.find_element(By.ID, "send").click()
        wait.until(EC.staleness_of(old))
        wait.until(EC.presence_of_element_located((By.ID, "game")))
        if javascript:
            assert driver.execute_script("return window.arenaNoReload === true;"), "the page reloaded"
        lines = driver.find_elements(By.CSS_SELECTOR, "#transcript li.you")
        assert lines and lines[-1].text.endswith(text)
        if shots and turn <= 1:  # the second move's page, or the first's when the game ends after one move
            driver.save_screenshot(str(shots / f"arena-{game}.png"))
    raise AssertionError(f"{game} did not end within 30 moves")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("arena-browser")
    with bench.ArenaServer(str(tmp / "arena.db"), log=tmp / "server.log") as running:
        yield running


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = Path(os.environ.get("GAMEEVAL_ARENA_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    where.mkdir(parents=True, exist_ok=True)
    return where


def test_a_person_plays_taboo_with_javascript_and_bluffing_without_then_reads_the_results(server, shots):
    from selenium.webdriver.common.by import By

    driver = _driver(javascript=True)
    try:
        _start(driver, server.url, "taboo")
        assert "Taboo" in driver.title and driver.find_element(By.ID, "card").text.startswith("You are the user")
        outcome = _play(driver, "taboo", shots, javascript=True)
        assert outcome.startswith(("You win", "You lose"))
        assert "You played against gameeval/scripted" in driver.find_element(By.ID, "game").text
        if len(driver.find_elements(By.CSS_SELECTOR, "#transcript li.you")) >= 2:  # a round ended without a guess
            assert driver.find_elements(By.ID, "probes"), "the model's beliefs are shown after the end"
    finally:
        driver.quit()
    driver = _driver(javascript=False)
    try:
        _start(driver, server.url, "bluffing")
        assert driver.find_element(By.CSS_SELECTOR, "#transcript li.model").text.startswith("Interrogator:")
        outcome = _play(driver, "bluffing", shots, javascript=False)
        assert outcome.startswith(("You win", "You lose"))
        driver.find_element(By.ID, "to-results").click()
        rows = {
            r.find_elements(By.TAG_NAME, "td")[0].text
            for r in driver.find_elements(By.CSS_SELECTOR, "#win-rates tr")[1:]
        }
        assert rows == {"Taboo", "Bluffing"}
        assert (
            int(driver.find_element(By.ID, "started").text) == 2
            and int(driver.find_element(By.ID, "finished").text) == 2
        )
        assert driver.find_elements(By.CSS_SELECTOR, "#ratings tr")[1:], "people and the model rated"
        assert driver.execute_script(
            "const i = document.getElementById('plot'); return i.complete && i.naturalWidth > 0;"
        )
        driver.save_screenshot(str(shots / "arena-results.png"))
    finally:
        driver.quit()
    assert (shots / "arena-taboo.png").stat().st_size > 10_000 and (shots / "arena-results.png").stat().st_size > 10_000


# A hostile person's text: markdown that would render as a link and an image, and HTML that would
# run a script. The first is a valid Taboo message (it reaches the model's Messages tab); the HTML
# is refused by the game's placeholder rule and stays in the record (the JSON tab shows it).
MARKDOWN = "Think **bold** [link](http://evil.example/) ![pic](http://evil.example/p.png) `code` &amp;"
HTML = '<img src=x onerror="window.pwned=1"> <b>hi</b><script>window.pwned=2</script>'


def _hostile_export(tmp: Path) -> tuple[Path, str]:
    """One finished Taboo game whose person typed MARKDOWN and HTML, exported by the real command:
    (the log's directory, the sample id)."""
    import asyncio
    import random
    import subprocess
    import sys

    from conftest import FakePlayer

    from pytest_gameeval.arena.export import sample_id
    from pytest_gameeval.arena.live import advance, new_session
    from pytest_gameeval.arena.store import Store
    from pytest_gameeval.games.registry import get_spec

    spec, rng = get_spec("taboo"), random.Random(0)
    model = FakePlayer(lambda ctx: spec.scripted["random"][ctx.seat.role](ctx, rng), label="scripted-stand-in")
    store = Store(str(tmp / "arena.db"))
    session = new_session(spec, "gameeval/scripted", None, {"max_rounds": "2", "retrospective": "false"})
    store.create(session)
    for turn in range(8):
        played, _ = asyncio.run(advance(spec, store.get(session.id), store, model, (MARKDOWN, HTML)[turn % 2]))
        if played.record:
            break
    store.close()
    assert played.record is not None
    logs = tmp / "logs"
    logs.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_gameeval.cli",
            "arena",
            "export",
            "--db",
            str(tmp / "arena.db"),
            str(logs / "arena.eval"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return logs, sample_id(session)


def test_the_exported_log_shows_a_hostile_persons_text_as_text_in_inspect_view(tmp_path, shots):
    import subprocess
    import sys

    import httpx
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    logs, sid = _hostile_export(tmp_path)
    port = bench.free_port()
    view = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "inspect"),
            "view",
            "--log-dir",
            str(logs),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    driver = None
    try:
        for _ in range(300):  # bounded: up to a minute for the viewer to listen
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.HTTPError:
                assert view.poll() is None, "inspect view exited"
                __import__("time").sleep(0.2)
        driver = _driver(javascript=True)
        sample = f"http://127.0.0.1:{port}/#/logs/arena.eval/samples/sample/{sid}/1"
        for tab, shown in (("messages", f'User: "{MARKDOWN}"'), ("json", 'onerror=\\"window.pwned=1\\"')):
            driver.get(f"{sample}/{tab}")
            WebDriverWait(driver, 180).until(lambda d: shown in d.find_element(By.TAG_NAME, "body").text)
            found = driver.find_elements(By.XPATH, "//*[contains(text(), 'evil.example/p.png')]")
            if found:
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", found[-1])
            driver.save_screenshot(str(shots / f"inspect-view-hostile-{tab}.png"))
            rendered = driver.execute_script(
                'return [document.querySelectorAll(\'a[href*="evil"], img[src*="evil"], img[src="x"]\').length'
                " + Array.from(document.scripts).filter(s => s.text.includes('pwned')).length, window.pwned === "
                "undefined]"
            )
            assert rendered == [0, True], f"{tab}: the person's text rendered as markup: {rendered}"
        assert (shots / "inspect-view-hostile-messages.png").stat().st_size > 10_000
    finally:
        if driver is not None:
            driver.quit()
        os.killpg(view.pid, 15)
        view.wait(30)
