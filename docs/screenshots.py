"""Screenshots of `inspect view` as a reader sees it, taken with headless Chromium.

    python docs/screenshots.py --out docs/img                      # scripted players (seconds)
    python docs/screenshots.py --out /tmp/shots --model gameeval/local   # the embedded model

Plays one SpyFall and one TofuKingdom game with `inspect eval` (by default with the games'
scripted players, `gameeval/scripted` (random) and `gameeval/scripted/oracle`: fast and the same
every time; a scripted player's private thought is the word "scripted"), serves the logs with `inspect view`
on 127.0.0.1, opens each sample's transcript and
the log list in Chromium through selenium and chromedriver, and saves PNGs. Prints one JSON object:
the files written and, per page, which of the expected texts were visible (the setup card, the
seat-named turn spans, the host's lines). Needs `chromium` and `chromium-driver` (Debian) and
selenium (`pip install -e ".[dev]"`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

GAMES = {  # game -> (scripted model, what the sample's transcript must show without any clicking)
    "spyfall": ("gameeval/scripted", ["Setup", "knows only its own row", "(spy)", "(villager)", "Host"]),
    "tofukingdom": ("gameeval/scripted/oracle", ["Setup", "knows only its own row", "Prince", "(princess)", "Host"]),
}
CHROME_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> tuple[str, str] | None:
    """(browser, driver) paths, or None when either is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def play(game: str, model: str, log_dir: Path) -> tuple[str, str]:
    """Play one game into log_dir; (log file name, sample id)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    before = {info.name for info in list_eval_logs(str(log_dir))}
    subprocess.run(
        ["inspect", "eval", f"gameeval/{game}", "--model", model, "--limit", "1", "--log-dir", str(log_dir),
         "--display", "none"],
        check=True,
    )
    (info,) = [i for i in list_eval_logs(str(log_dir)) if i.name not in before]
    log = read_eval_log(info.name)
    if log.status != "success" or not log.samples:
        raise SystemExit(f"{game}: inspect eval ended with status {log.status}")
    return Path(info.name).name, str(log.samples[0].id)


def wait_for(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def shoot(driver, url: str, path: Path, expect: list[str], settle: float) -> dict[str, bool]:
    """Open url, wait until the expected texts show (or `settle` seconds pass), save a PNG."""
    driver.get(url)
    deadline = time.monotonic() + settle
    seen: dict[str, bool] = {}
    while True:
        text = driver.find_element("tag name", "body").text
        seen = {e: e.lower() in text.lower() for e in expect}
        if all(seen.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    time.sleep(1.0)  # let the last panels finish rendering
    driver.save_screenshot(str(path))
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of inspect view (SpyFall, TofuKingdom, the log list).")
    parser.add_argument("--out", type=Path, required=True, help="directory for the PNG files")
    parser.add_argument("--model", help="play every seat with this model instead of the scripted players")
    parser.add_argument("--log-dir", type=Path, help="keep the logs here (default: a temporary directory)")
    parser.add_argument("--size", default="1400,1800", help="browser window WIDTH,HEIGHT in pixels (default 1400,1800)")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds to wait for a page to show its texts")
    args = parser.parse_args(argv)
    found = chromium()
    if found is None:
        print("screenshots: chromium and chromedriver are needed (Debian: apt-get install chromium chromium-driver)",
              file=sys.stderr)
        return 2
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    args.out.mkdir(parents=True, exist_ok=True)
    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="gameeval-shots-"))
    samples = {game: play(game, args.model or model, log_dir) for game, (model, _) in GAMES.items()}

    port = free_port()
    server = subprocess.Popen(
        ["inspect", "view", "--log-dir", str(log_dir), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    report: dict[str, object] = {"log_dir": str(log_dir), "pages": {}}
    driver = None
    try:
        base = f"http://127.0.0.1:{port}/"
        wait_for(base)
        options = Options()
        for arg in [*CHROME_ARGS, f"--window-size={args.size}", f"--user-data-dir={tempfile.mkdtemp()}"]:
            options.add_argument(arg)
        options.binary_location = found[0]
        driver = webdriver.Chrome(options=options, service=Service(found[1]))
        pages = report["pages"]
        assert isinstance(pages, dict)
        for game, (log_name, sample_id) in samples.items():
            path = args.out / f"inspect-view-{game}.png"
            url = f"{base}#/logs/{log_name}/samples/sample/{sample_id}/1/transcript"
            pages[game] = {
                "file": str(path),
                "sample": sample_id,
                "seen": shoot(driver, url, path, GAMES[game][1], args.settle),
            }
        path = args.out / "inspect-view-log-list.png"
        driver.set_window_size(int(args.size.split(",")[0]), 420)
        pages["log-list"] = {
            "file": str(path),
            "seen": shoot(driver, base, path, ["spyfall", "tofukingdom", "score"], args.settle),
        }
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait(timeout=30)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
