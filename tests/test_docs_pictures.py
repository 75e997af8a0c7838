"""The docs' pictures say which game versions they show, and those are the current ones (issue 68):
a caption that names `version N` must name the version the game has now, so a picture is retaken
(docs/leaderboard_picture.py, docs/screenshots.py) when a game's version is bumped."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_gameeval.games.registry import GAMES, get_spec

ROOT = Path(__file__).resolve().parents[1]
PICTURE = re.compile(r"!\[(?P<caption>.*?)\]\((?P<path>[^()\s]+\.png)\)")  # a caption may hold [0, 1]
VERSION = re.compile(r"\bversions? (\d+)\b")


def pictures() -> list[tuple[Path, str, str]]:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [(doc, m["caption"], m["path"]) for doc in docs for m in PICTURE.finditer(doc.read_text(encoding="utf-8"))]


def games_named(caption: str) -> list[str]:
    """The games a caption names (by name or title); none named: it speaks of every game."""
    named = [g for g in GAMES if re.search(rf"\b({re.escape(g)}|{re.escape(get_spec(g).title)})\b", caption, re.I)]
    return named or list(GAMES)


def stale_versions(caption: str) -> list[str]:
    """Each `version N` in the caption that is not the current version of a game it speaks of."""
    stale = []
    for found in VERSION.findall(caption):
        stale += [f"{g} is at version {get_spec(g).version}, the caption says {found}"
                  for g in games_named(caption) if str(get_spec(g).version) != found]
    return stale


def test_every_picture_exists_and_names_only_current_versions():
    problems = []
    for doc, caption, path in pictures():
        if not (doc.parent / path).is_file():
            problems.append(f"{doc.name}: {path}: no such picture")
        problems += [f"{doc.name}: {path}: {why}" for why in stale_versions(caption)]
    assert not problems, "\n".join(problems)


def test_a_stale_caption_is_caught():
    current = get_spec("askguess").version
    assert stale_versions(f"Ask-Guess at version {current}") == []
    assert stale_versions(f"Ask-Guess at version {int(current) - 1}")
    assert stale_versions("every game, version 0")  # no game named: every game's version is checked
