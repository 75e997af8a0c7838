"""The docs' leaderboard picture (docs/img/leaderboard.png) from real play at the current versions.

    python docs/leaderboard_picture.py --out /tmp/board --scripted-n 40 --model-n 12

Plays every game with `inspect eval`: each of the game's scripted strengths, SmolLM2-135M
(`gameeval/local`) and Gemma-3-270M (`gameeval/local/gemma-3-270m`, the `gemma` extra), every model
of a column against the same opponents (below), then writes `gameeval leaderboard` over the logs
and screenshots its page in headless Chromium. Prints one JSON object: n per model, the options,
the seconds each model took and the files written.

Why fixed opponents: where a game has a reference policy (Ask-Guess's answerer, Akinator's,
Taboo's and Bluffing's user, SpyGame's host) it plays that seat anyway. The games without one
would be self-play, and a scripted strength playing itself is not the player its definition
describes: AGE's oracle guesses the other word in round 1, so in an all-oracle game every
opponent does too and every AGE score is 0 by the paper's formula (the picture retaken
2026-11-27 showed exactly that). So those seats are bound to one scripted opponent for every row:
the opponents tests/games/test_headlines.py fixes to order the strengths.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screenshots import CHROME_ARGS, chromium  # noqa: E402  (the docs' one way to start Chromium)

EMBEDDED = ["gameeval/local", "gameeval/local/gemma-3-270m"]
# the seats a game would give to the evaluated model itself (self-play), bound to one fixed opponent
OPPONENTS = {
    "tofukingdom": ["queen=gameeval/scripted/random", "spy=gameeval/scripted/random"],
    "spygpt": ["judge=gameeval/scripted/oracle"],
    "age": ["players=gameeval/scripted/random,gameeval/scripted/random,gameeval/scripted/random"],
    "spyfall": ["villager=gameeval/scripted/random"],
}
# shorter games than the defaults where a small model would otherwise run out of context
# (the README's first command's Ask-Guess); the same options for every row of a column
OPTIONS = {"askguess": ["max_rounds=5"], "akinator": ["max_questions=10"]}
DECODING = ["temperature=0.8"]  # the README's first command: at 0 SmolLM2 repeats itself


def strengths(game: str) -> list[str]:
    from pytest_gameeval.games.registry import get_spec

    return [f"gameeval/scripted/{s}" for s in get_spec(game).scripted if s != "reference"]


def play(game: str, model: str, limit: int, log_dir: Path) -> None:
    cmd = ["inspect", "eval", f"gameeval/{game}", "--model", model, "--limit", str(limit),
           "--log-dir", str(log_dir), "--display", "none", "--max-samples", "8"]
    if game == "tofukingdom":
        cmd += ["-T", f"games={max(limit, 20)}"]
    for opt in OPTIONS.get(game, []):
        cmd += ["-T", opt]
    for role in OPPONENTS.get(game, []):
        cmd += ["--model-role", role]
    if model in EMBEDDED:
        for arg in DECODING:
            cmd += ["-M", arg]
    subprocess.run(cmd, check=True)


def shoot(page: Path, png: Path, size: str) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = chromium() or (None, None)
    if browser is None:
        raise SystemExit("leaderboard_picture: chromium and chromedriver are needed")
    options = Options()
    for arg in [*CHROME_ARGS, f"--window-size={size}", f"--user-data-dir={tempfile.mkdtemp()}"]:
        options.add_argument(arg)
    options.binary_location = browser
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        driver.get(page.resolve().as_uri())
        driver.find_element("css selector", "table.board")  # the file is local: loaded when get returns
        driver.save_screenshot(str(png))
    finally:
        driver.quit()


def main(argv: list[str] | None = None) -> int:
    from pytest_gameeval.games.registry import GAMES

    parser = argparse.ArgumentParser(description="Play every game for the leaderboard picture and screenshot it.")
    parser.add_argument("--out", type=Path, required=True, help="directory for the logs, the page and the PNG")
    parser.add_argument("--scripted-n", type=int, default=40,
                        help="cases per game for each scripted strength (0: none)")
    parser.add_argument("--model-n", type=int, default=12, help="cases per game for each embedded model")
    parser.add_argument("--models", default=",".join(EMBEDDED), help="embedded models to play (comma-separated)")
    parser.add_argument("--games", default=",".join(GAMES), help="games to play (comma-separated)")
    parser.add_argument("--size", default="1900,1000", help="browser window WIDTH,HEIGHT")
    parser.add_argument("--shoot-only", action="store_true",
                        help="play nothing: rebuild the page and PNG from --out/logs")
    args = parser.parse_args(argv)
    logs = args.out / "logs"
    seconds: dict[str, float] = {}
    games = [g for g in args.games.split(",") if g]
    if not args.shoot_only:
        plan = [(m, args.scripted_n) for g in games for m in strengths(g)] if args.scripted_n else []
        models = [m for m in args.models.split(",") if m]
        for model, limit in [*sorted(set(plan)), *[(m, args.model_n) for m in models]]:
            start = time.monotonic()
            for game in games:
                if model in EMBEDDED or model in strengths(game):
                    play(game, model, limit, logs)
            seconds[model] = round(time.monotonic() - start, 1)
            print(f"leaderboard_picture: {model}: {seconds[model]} s", file=sys.stderr, flush=True)
    board = args.out / "board"
    subprocess.run(["gameeval", "leaderboard", str(logs), "--out", str(board)], check=True)
    png = args.out / "leaderboard.png"
    shoot(board / "leaderboard.html", png, args.size)
    print(json.dumps({"scripted_n": args.scripted_n, "model_n": args.model_n, "options": OPTIONS,
                      "opponents": OPPONENTS, "decoding": DECODING, "seconds": seconds,
                      "png": str(png), "page": str(board / "leaderboard.html")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
