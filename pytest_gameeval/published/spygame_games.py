"""SpyGame's published Who-is-Spy games (github.com/Skytliang/SpyGame, commit 562c405, `benchmark/`,
GPL-3.0) read and replayed through our SpyGame rules.

The files are read where the user keeps them and never copied into the package. One JSON file per
game: the seats' models and words, the spy, the winner, and per round (`round-1`, ...) each seat's
description (`describe`), the keyword guess it wrote before describing (`describe_cot`; the first
speaker of the first round is asked none), its reasoning before the vote (`vote_cot`), its vote as
the host announced it (`vote`: "Host: Player 1 votes for Player 4. ...") and the round's `result`
("Player 3 has been voted out", "There is a tie ... a new round of descriptions", ...).

SpyGame's players replied in plain text, which its harness cut into those fields; our SpyGame asks
for JSON. A replay therefore rebuilds each reply in our reply format from the fields SpyGame kept
(`{"guess", "speak"}`, `{"reasoning", "name"}`), leaving out what SpyGame did not ask: it judges our
rules on SpyGame's real moves, not our reading of its text. The probe of our SpyGame's theory of
mind is off (SpyGame's published games have none).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.spygame import SPEC
from pytest_gameeval.games.spygame.rules import SpyGameGame, SpyGameOptions
from pytest_gameeval.games.voting import SPY_WIN, VILLAGER_WIN
from pytest_gameeval.published.gameeval_logs import DESCRIBE, VOTE, PublishedGame, PublishedReply
from pytest_gameeval.published.replaying import Replay, run_replay

_VOTE = re.compile(r"(Player \d+) votes for (Player \d+)")
_OUT = re.compile(r"(Player \d+) (?:has been voted out|is the spy and has been voted out|is not the spy)")
WINNERS = {SPY_WIN: "spy", VILLAGER_WIN: "villager"}


def _said(text: str | None, seat: str) -> str | None:
    """A field's text without its "Player k: " tag."""
    if text is None:
        return None
    return text.split(f"{seat}:", 1)[1].strip() if f"{seat}:" in text else text.strip()


def _round_replies(data: dict[str, Any], number: int, source: str) -> tuple[list[PublishedReply], str | None]:
    """One round's replies (descriptions in speaking order, then votes in voting order) and who went out."""
    round_ = data["rounds"][f"round-{number}"]
    replies = []
    for seat, text in round_["describe"].items():
        value = {"speak": _said(text, seat)}
        guess = _said(round_.get("describe_cot", {}).get(seat), seat)
        if guess is not None:
            value = {"guess": guess, **value}
        replies.append(PublishedReply(seat, DESCRIBE, number, value, value["speak"], f"{source} round-{number}"))
    for seat, text in round_["vote"].items():
        found = _VOTE.search(text)
        value = {"reasoning": _said(round_.get("vote_cot", {}).get(seat), seat) or "",
                 "name": found.group(2) if found else ""}
        replies.append(PublishedReply(seat, VOTE, number, value, text, f"{source} round-{number}"))
    out = _OUT.search(round_.get("result", ""))
    return replies, out.group(1) if out else None


def read_game(path: Path, root: Path) -> PublishedGame:
    data = json.loads(path.read_text(encoding="utf-8"))
    source = path.relative_to(root).as_posix()
    seats = sorted(data["players_model"], key=lambda s: int(s.split()[-1]))
    replies, eliminated, orders = [], {}, {}
    for number in range(1, len(data["rounds"]) + 1):
        got, out = _round_replies(data, number, source)
        replies += got
        orders[number] = list(data["rounds"][f"round-{number}"]["describe"])  # SpyGame shuffles it every round
        if out:
            eliminated[number] = out
    spy = data["spy"].split(" (")[0]
    return PublishedGame(source, data["spy_word"], data["villager_word"], seats,
                         {s: data["players_model"][s][0] for s in seats}, spy, data["win"], len(data["rounds"]),
                         replies, eliminated, orders)


def read_games(root: Path) -> list[PublishedGame]:
    files = sorted(p for p in root.rglob("*.json") if p.is_file())
    if not files:
        raise GameEvalError(f"{root}: no SpyGame game file (*.json) under it")
    return [read_game(path, root) for path in files]


class ReplayedSpyGame(SpyGameGame):
    """SpyGame seated as a recorded game, with the recorded speaking orders and eliminations forced."""

    def __init__(self, published: PublishedGame, options: SpyGameOptions):
        # before the base class starts round 1, which asks for its speaking order
        self.recorded_out, self.recorded_orders = dict(published.eliminated), dict(published.orders)
        info = {"pair_id": f"{published.spy_word}&{published.villager_word}", "orientation": "fwd", "domain": None,
                "replay_of": published.source}
        super().__init__(published.spy_word, published.villager_word, random.Random(0), options, info=info,
                         seated=(published.seats, published.spy))

    def forced_order(self) -> list[str] | None:
        order = [seat for seat in self.recorded_orders.get(self.round, []) if seat in self.alive]
        return order if sorted(order) == sorted(self.alive) else None

    def forced_out(self, leaders: list[str]) -> str | None:
        return self.recorded_out.get(self.round)


def replay_game(published: PublishedGame, protocol: str, *, strict: bool = False) -> Replay:
    """Replay one SpyGame game under `protocol`, as SpyGame played it: public votes, a tie starts a
    new round with nobody out, no theory-of-mind probe, the spy's seat and the guest the file's."""
    options = SPEC.parse_options({"protocol": protocol, "players": len(published.seats), "voting": "public",
                                  "tie": "nobody", "revote": False, "tom": False, "guest": "spy",
                                  "shuffle_seats": False, "shuffle_order": False, "shuffle_options": False})
    return run_replay(ReplayedSpyGame(published, options), published, protocol, WINNERS,  # type: ignore[arg-type]
                      strict=strict)
