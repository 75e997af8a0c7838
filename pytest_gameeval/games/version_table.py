"""The committed table of game versions (`games/versions.json`), held against the code, and the
one command that gives changed games a new version (`gameeval versions --bump GAME --note ...`).

The table says, per game, its version and the fingerprint of the code and data that version
names (engine/versions.py says what the fingerprint covers), and the package version they were
fixed in: the package version follows the games, so a new game version is a new package version.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.versions import TABLE, fingerprints, read_table
from pytest_gameeval.games.registry import GAMES

CHANGELOG = "## Changelog"
BUMP_HINT = "gameeval versions --bump {game} --note 'what changed; which metrics move'"


def package_dir() -> Path:
    import pytest_gameeval

    return Path(pytest_gameeval.__file__).parent


def changelog_versions(readme: str) -> list[int]:
    """The versions a game README's changelog has an entry for (`### Version N ...`)."""
    _, found, tail = readme.partition(CHANGELOG)
    return [int(v) for v in re.findall(r"^### Version (\d+)\b", tail, re.M)] if found else []


def package_version(root: Path) -> str:
    found = re.search(r'^__version__ = "([^"]*)"', (root / "__init__.py").read_text(encoding="utf-8"), re.M)
    return found.group(1) if found else "?"


def problems(root: Path | None = None) -> list[str]:
    """One line per thing the table and the code disagree on (empty: every game is versioned)."""
    root = root or package_dir()
    current = package_version(root)
    table = read_table(root)  # type: ignore[arg-type]
    out: list[str] = []
    if table.get("package") != current:
        out.append(f"{TABLE} names package version {table.get('package')}, the package is {current}: "
                   "the package version follows the games (gameeval versions --bump sets both)")
    actual_of = fingerprints(list(GAMES.values()), root)  # type: ignore[arg-type]
    for game, package in GAMES.items():
        entry = table["games"].get(game)
        actual = actual_of[package]
        hint = BUMP_HINT.format(game=game)
        if entry is None:
            out.append(f"{game} has no version in {TABLE}: give it one with `{hint}`")
            continue
        if entry["fingerprint"] != actual:
            out.append(
                f"{game} changed since its version {entry['version']} (fingerprint {actual[:12]}, the table's "
                f"{entry['fingerprint'][:12]}): its rules, prompts, reply formats, move checks, metrics, data or the "
                f"engine code it plays through differ, so reports of it measure something else. Give it a new "
                f"version: `{hint}` (docs/versions.md)"
            )
        readme = root / "games" / game / "README.md"
        if entry["version"] not in changelog_versions(readme.read_text(encoding="utf-8")):
            out.append(
                f"{readme.relative_to(root.parent)}: no changelog entry '### Version {entry['version']}' under "
                f"'{CHANGELOG}'"
            )
    return out


def _next_minor(version: str) -> str:
    major, minor, *_ = (version.split(".") + ["0", "0"])[:3]
    return f"{major}.{int(minor) + 1}.0"


def _set_package_version(root: Path, version: str) -> None:
    init = root / "__init__.py"
    text = init.read_text(encoding="utf-8")
    init.write_text(
        re.sub(r'^__version__ = "[^"]*"', f'__version__ = "{version}"', text, count=1, flags=re.M), encoding="utf-8"
    )


def _add_changelog(readme: Path, version: int, package: str, note: str, amend: bool) -> None:
    text = readme.read_text(encoding="utf-8").rstrip("\n")
    if CHANGELOG not in text:
        text += (
            f"\n\n{CHANGELOG}\n\nOne entry per version of this game (docs/versions.md): what changed, "
            "which metrics move."
        )
    heading = f"### Version {version} (pytest-gameeval {package}, {time.strftime('%Y-%m-%d', time.gmtime())})"
    if amend and version in changelog_versions(text):
        text += f"\n\nAlso: {note}"
    else:
        text += f"\n\n{heading}\n\n{note}"
    readme.write_text(text + "\n", encoding="utf-8")


def bump(games: list[str], note: str, *, amend: bool = False, root: Path | None = None) -> dict[str, Any]:
    """Give each game a new version (or, with `amend`, keep the version a branch already bumped
    and record its code again), record the fingerprints, raise the package's minor version once
    (not when amending) and add the note to each game's changelog. Returns the new table."""
    root = root or package_dir()
    current = package_version(root)
    unknown = [g for g in games if g not in GAMES]
    if unknown or not games:
        raise GameEvalError(
            f"--bump: unknown game(s) {', '.join(unknown) or '(none given)'}; known games: {', '.join(GAMES)}"
        )
    if not note.strip():
        raise GameEvalError("--note: say what changed and which metrics move (it goes into the game's changelog)")
    if not (root / TABLE).parent.is_dir() or not (root / "__init__.py").is_file():
        raise GameEvalError(f"{root}: not a source checkout of pytest-gameeval (run this in an editable install)")
    table = read_table(root)  # type: ignore[arg-type]
    package = (table.get("package") or current) if amend else _next_minor(current)
    actual_of = fingerprints([GAMES[g] for g in games], root)  # type: ignore[arg-type]
    for game in games:
        old = table["games"].get(game, {}).get("version", 0)
        version = max(old, 1) if amend else old + 1
        table["games"][game] = {"version": version, "fingerprint": actual_of[GAMES[game]]}
        _add_changelog(root / "games" / game / "README.md", version, package, note.strip(), amend)
    table["package"] = package
    table["games"] = {g: table["games"][g] for g in GAMES if g in table["games"]}
    (root / TABLE).write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    _set_package_version(root, package)
    return table
