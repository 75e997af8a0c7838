"""GameEval's published SpyFall games (github.com/GameEval/GameEval, commit 70244bf, `spyfall/random/`),
read into what a replay needs: seats in speaking order, the model of each seat, the spy and the
words, every reply with the turn it answered, the eliminations the host announced, and the outcome
GameEval recorded.

The files are not ours (no licence: all rights reserved by their authors). This module reads them
from where the user keeps them and copies nothing into the package.

The format (checked on the published folder): one folder per pair, named `SPYWORD&VILLAGERWORD`,
holding `N.log` (JSON values separated by blank lines) and `res.json` (one line per game played;
a rerun appends a line, so the last line naming a log is its game). In a log, a public line
`{"role": "user", "content": "playerK: ..."}` is followed by playerK's own reply: the object it
returned (`{"thought", "speak"}` to describe, plus `"name"` to vote), a raw string the harness could
not parse (its public line then reads `None`), or `null` for a failed call. Host lines open a game,
each round ("Now the living players are:[...]"), each vote ("now the voting start") and announce
each elimination of a villager ("the voting result is playerK, he is not the spy"); the harness
prints the next round's opening before it checks whether the game is over, and announces no
elimination that ends the game with the spy's exposure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError

DESCRIBE, VOTE = "describe", "vote"
MODELS = {"gpt4": "GPT-4", "gpt3": "GPT-3.5", "text003": "text-davinci-003"}  # GameEval's labels, as people say them
_PUBLIC = re.compile(r"^(player\d+): ?(.*)$", re.S)
_OUT = re.compile(r"the voting result is (\w+), he is not the spy")
_decoder = json.JSONDecoder()


@dataclass
class PublishedReply:
    seat: str
    action: str  # DESCRIBE or VOTE
    round: int
    value: Any  # as the log holds it: the returned object, a raw string, or None (a failed call)
    public: str  # what the harness published for it (after "playerK: ")
    where: str  # "PAIR/N.log #k": the k-th JSON value of the log

    @property
    def text(self) -> str | None:
        """The reply as a model's text: the object re-serialised, a raw string as it is."""
        if self.value is None:
            return None
        return self.value if isinstance(self.value, str) else json.dumps(self.value, ensure_ascii=False)

    @property
    def parsed_by_harness(self) -> bool:
        return isinstance(self.value, dict)


@dataclass
class PublishedGame:
    source: str  # "PAIR/N.log"
    spy_word: str
    villager_word: str
    seats: list[str]  # in speaking order (GameEval keeps it for the whole game)
    models: dict[str, str]  # seat -> GameEval's model label (gpt4, gpt3, text003)
    spy: str
    winner: str  # "spy", "villager" or "exit" (the harness stopped on a vote for no living player)
    rounds: int  # the round the game ended in (-1 for "exit")
    replies: list[PublishedReply] = field(default_factory=list)
    eliminated: dict[int, str] = field(default_factory=dict)  # round -> the villager announced out
    orders: dict[int, list[str]] = field(default_factory=dict)  # round -> speaking order, where it changes


def json_values(text: str) -> list[Any]:
    """The JSON values of a log, in order (separated by whitespace)."""
    values, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return values
        value, at = _decoder.raw_decode(text, at)
        values.append(value)


def last_results(res_file: Path) -> dict[str, dict[str, Any]]:
    """log file name -> its game's result: the last line of res.json naming it (reruns append)."""
    results = {}
    for line in res_file.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            results[row["log"]] = row
    return results


def read_log(values: list[Any], source: str) -> tuple[list[PublishedReply], dict[int, str]]:
    """Every reply of one log with the turn it answered, and the announced eliminations."""
    replies: list[PublishedReply] = []
    eliminated: dict[int, str] = {}
    round_, action, speaker = 0, DESCRIBE, None
    for k, value in enumerate(values):
        line = value.get("content") if isinstance(value, dict) and value.get("role") == "user" else None
        if speaker is not None and line is None:  # the reply after a public line is its speaker's
            replies.append(PublishedReply(speaker[0], action, round_, value, speaker[1], f"{source} #{k}"))
            speaker = None
            continue
        if speaker is not None:  # a public line with no reply printed after it: as a failed call
            replies.append(PublishedReply(speaker[0], action, round_, None, speaker[1], f"{source} #{k} (none)"))
        speaker = None
        if line is None:
            raise GameEvalError(f"{source} #{k}: a reply with no public line before it")
        public = _PUBLIC.match(line)
        if public:
            speaker = (public.group(1), public.group(2))
        elif "living players are" in line:
            round_, action = round_ + 1, DESCRIBE
        elif "voting start" in line:
            action = VOTE
        elif out := _OUT.search(line):
            eliminated[round_] = out.group(1)
    if speaker is not None:  # the log ends after a public line
        replies.append(PublishedReply(speaker[0], action, round_, None, speaker[1], f"{source} end (none)"))
    return replies, eliminated


def read_pair(folder: Path, unreadable: list[str] | None = None) -> list[PublishedGame]:
    """The games of one pair folder `SPYWORD&VILLAGERWORD`, by log number; a log that cannot be
    read as GameEval wrote them is left out, with why, in `unreadable`."""
    spy_word, _, villager_word = folder.name.partition("&")
    results = last_results(folder / "res.json")
    games = []
    for log in sorted(folder.glob("*.log"), key=lambda p: int(p.stem) if p.stem.isdigit() else 0):
        result = results.get(log.name)
        if result is None:
            continue  # a log without its result line: no outcome to compare with
        source = f"{folder.name}/{log.name}"
        try:
            replies, eliminated = read_log(json_values(log.read_text(encoding="utf-8")), source)
        except (GameEvalError, ValueError) as e:  # json.JSONDecodeError is a ValueError
            (unreadable if unreadable is not None else []).append(f"{source}: {e}")
            continue
        seats = list(result["players"])
        games.append(PublishedGame(
            source, spy_word, villager_word, seats, dict(zip(seats, result["llms"])),
            seats[result["spy_index"] - 1],  # GameEval counts seats from 1
            result["winer"], result["round"], replies, eliminated,
        ))
    return games


def read_games(root: Path, unreadable: list[str] | None = None) -> list[PublishedGame]:
    """Every game under GameEval's `spyfall/random/` folder (one sub-folder per pair)."""
    folders = sorted(p for p in root.iterdir() if p.is_dir() and "&" in p.name)
    if not folders:
        raise GameEvalError(f"{root}: no GameEval pair folder (SPYWORD&VILLAGERWORD) in it")
    return [game for folder in folders for game in read_pair(folder, unreadable)]
