"""What the three GameArena games (Akinator, Taboo, Bluffing) share: a user seat, prompt
variants drawn per game, and the retrospective probe.

The retrospective probe (on by default; ``retrospective=false`` turns it off): after a round, with the
history fixed, the evaluated seat is asked an extra question about its current belief (a
ranked candidate list, or a truth level in Bluffing). The probe is an engine Turn marked
``record_only``, so it uses the same player, system prompt and generation settings, but:

- its instruction and reply are visible to the evaluated seat only while it is being asked,
  and the runner hides them from every prompt afterwards, so the game goes on exactly as if
  the probe never happened;
- its parser never raises: an unreadable or echoed reply is stored as a failed probe (``ok: false``)
  instead of a game format error, so the engine's format/rule counts stay the game's own;
  there is no re-prompt for a probe (one attempt);
- its result is one record-only ACTION event with ``data.probe`` set, which metrics read.
A failed model *call* during a probe is still counted by the engine as a chat error of the
seat (the call failed), but it does not end the game; the probe event records it too.
"""

from __future__ import annotations

import random
import re
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, final

from pytest_gameeval.engine.degenerate import DEGENERATE, DegenerateMove, check_list_items
from pytest_gameeval.engine.echo import check_not_echo
from pytest_gameeval.engine.errors import GameEvalError, ParseError, RuleViolation
from pytest_gameeval.engine.game import Game, Seat, Turn
from pytest_gameeval.engine.matching import normalize
from pytest_gameeval.engine.options import DataGameOptions, option
from pytest_gameeval.engine.replies import ReplyFormat, text_reply
from pytest_gameeval.engine.spec import EVALUATED

RETRO = "retrospective"  # action (and data.probe value) of the evaluated seat's belief probe
CLASSIFY = "classify"  # action (and data.probe value) of the judge's classification (Akinator)
PROBE_ACTIONS = (RETRO, CLASSIFY)
USER = "User"  # the seat name of the (simulated or human) user in every arena game
USER_ROLE = "user"  # its game role and its model role (--model-role user=...)

# length of a retrospective candidate list: GameArena asks for up to 16 and accepts a confident
# single candidate, so one item is a list, not a failed probe
MIN_LIST, MAX_LIST = 1, 16
MAX_SINGLE_WORDS = 4  # an unnumbered one-item answer longer than this is a sentence, not a candidate
SCRIPTED_LIST = 5  # scripted players list at least this many candidates

@dataclass(frozen=True, kw_only=True)
class ArenaOptions(DataGameOptions):
    """The options of every GameArena game (Akinator, Taboo, Bluffing), besides its own."""

    retrospective: bool = option(
        True, "after each round, probe the evaluated model's current belief (record only; GameArena's headline metrics)"
    )
    variant: int = option(-1, "system prompt variant of the evaluated seat (-1: drawn per game from the seed)")


def arena_model_roles(evaluated_role: str) -> dict[str, str]:
    return {evaluated_role: EVALUATED, USER_ROLE: USER_ROLE}


def pick_variant(rng: random.Random, count: int, requested: int) -> int:
    """The prompt variant of one game: the requested one, else drawn from the game's rng."""
    if requested is not None and requested >= 0:
        if requested >= count:
            raise GameEvalError(f"task argument variant={requested}: choose from -1 (drawn) or 0..{count - 1}")
        return requested
    return rng.randrange(count)


# -- parsing helpers -----------------------------------------------------------------

_ITEM_LINE = re.compile(r"^\s*(?:\(?\d{1,2}[.):\]]|[-*\u2022])\s*(.+?)\s*$")
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)


def _clean_item(item: str) -> str:
    item = re.sub(r"[*_`\"]", "", item).strip()
    item = re.split(r"\s+[-\u2013\u2014(:]\s*|\s*\(", item, maxsplit=1)[0]  # drop "(reason)" / "- reason"
    item = _ARTICLE.sub("", item.strip().rstrip(".,;:!?"))
    return item.strip()


def parse_ranked_list(text: str, min_items: int = MIN_LIST, max_items: int = MAX_LIST) -> dict[str, Any]:
    """A ranked candidate list: numbered or bulleted lines, else one comma-separated line.

    Duplicates keep their first (best) rank. More than `max_items` are cut to the first
    `max_items` (recorded as truncated); fewer than `min_items` is a probe format error.
    """
    lines = [m.group(1) for m in map(_ITEM_LINE.match, text.splitlines()) if m]
    if not lines:
        body = " ".join(text.split())
        body = body.split(":", 1)[1] if ":" in body and body.index(":") < 60 else body
        lines = re.split(r"\s*[,;]\s*", body)
        if len(lines) == 1 and len(lines[0].split()) > MAX_SINGLE_WORDS:
            lines = []  # a sentence, not a confident single candidate
    items: list[str] = []
    seen: set[str] = set()
    for raw in lines:
        item = _clean_item(raw)
        key = normalize(item)
        if item and len(item) <= 60 and key not in seen:
            seen.add(key)
            items.append(item)
    if len(items) < min_items:
        raise ParseError(f"the list has {len(items)} usable items; give {min_items} to {max_items}, one per line")
    return {"items": items[:max_items], "truncated": len(items) > max_items}


# a retrospective list under structured decoding: the list's text in one field
RANKED_LIST = text_reply("candidates", "<1. most likely item, 2. next item, ...>", 200)


def ranked_list_instruction(what: str) -> str:
    return (
        "Retrospective check, outside the game: this question and your answer are not shown to the "
        f"other player and do not count as a move. List the {what} you now think most likely, most "
        f"likely first: {MIN_LIST} to {MAX_LIST} items (one if you are sure), one per line, numbered like '1. item'. "
        "Reply with the list only."
    )


# -- the base class -----------------------------------------------------------------------


class ArenaGame(Game):
    """A two-seat game (evaluated seat against the user seat) with prompt variants and probes.

    It implements the engine's hooks (`pending`, `apply`, `forfeit`: final here) around the
    retrospective probe; a game of this family implements the abstract hooks below instead, and
    calls `round_done()` when a round's exchange is complete and the target is still hidden from the
    evaluated seat (docs/adding-a-game.md, "Two families of games").
    """

    evaluated_seat = ""
    variant_count = 5  # GameArena drew from five system prompts per session

    def __init__(self, seats: list[Seat], rng: random.Random, options: ArenaOptions):
        super().__init__(seats, rng, options)
        self.retrospective = options.retrospective
        self.variant = pick_variant(rng, self.variant_count, options.variant)
        self.judge(f"system prompt variant {self.variant} for the {self.evaluated_seat}", variant=self.variant)
        self._probe_due = False
        self._extra: list[Turn] = []  # other record-only turns queued by the game (Akinator's judge)

    # -- subclass hooks --------------------------------------------------------------
    @abstractmethod
    def pending_move(self) -> list[Turn]:
        """The game's next move (the engine's `pending` when no probe is due)."""

    @abstractmethod
    def apply_move(self, turn: Turn, text: str, action: Any) -> None:
        """Apply a validated move (never a probe's answer)."""

    @abstractmethod
    def forfeit_move(self, turn: Turn, kind: str, detail: str) -> None:
        """The game's rule for a move without a legal reply."""

    @abstractmethod
    def after_round(self) -> None:
        """Continue after a complete round: next round, or finish at the round limit."""

    @abstractmethod
    def probe_instruction(self) -> str:
        """The retrospective probe's question to the evaluated seat."""

    @abstractmethod
    def parse_probe(self, text: str) -> dict[str, Any]:
        """The probe's result; raise ParseError if unreadable (recorded, never re-prompted)."""

    probe_reply: ReplyFormat = RANKED_LIST  # the probe's reply format (structured decoding)

    def classified(self, turn: Turn, result: dict[str, Any]) -> None:
        """Hook for record-only judge turns (CLASSIFY)."""

    # -- engine interface --------------------------------------------------------------
    @final
    def round_done(self) -> None:
        if self.retrospective:
            self._probe_due = True
        else:
            self.after_round()

    @final
    def queue_record_only(self, seat: str, action: str, instruction: str, parse: Callable[[str], dict[str, Any]],
                          reply: ReplyFormat, **data: Any) -> None:
        """Ask `seat` a record-only question before the next move (hidden afterwards)."""
        self._extra.append(
            Turn(
                seat,
                action,
                instruction,
                _never_raises(parse, instruction),
                retries=0,
                data=dict(data),
                record_only=True,
                reply=reply,
                echo_check=False,
            )
        )

    @final
    def pending(self) -> list[Turn]:
        if self._extra:
            return [self._extra[0]]
        if self._probe_due:
            instruction = self.probe_instruction()
            return [
                Turn(
                    self.evaluated_seat,
                    RETRO,
                    instruction,
                    _never_raises(self.parse_probe, instruction),
                    retries=0,
                    record_only=True,
                    reply=self.probe_reply,
                    echo_check=False,
                )
            ]
        return self.pending_move()

    @final
    def apply(self, turn: Turn, text: str, action: Any) -> None:
        if turn.action in PROBE_ACTIONS:
            self._end_probe(turn, action)
        else:
            self.apply_move(turn, text, action)

    @final
    def forfeit(self, turn: Turn, kind: str, detail: str) -> None:
        if turn.action in PROBE_ACTIONS:
            self._end_probe(turn, {"ok": False, "error": f"{kind}: {detail}", "kind": kind})
        else:
            self.forfeit_move(turn, kind, detail)

    def _end_probe(self, turn: Turn, result: dict[str, Any]) -> None:
        # the runner has already taken the probe's exchange out of every view (record_only)
        self.act(turn.seat, f"{turn.action} probe: {_summary(result)}", probe=turn.action, **turn.data, **result)
        if turn.action == RETRO:
            self._probe_due = False
            self.after_round()
        else:
            self._extra.pop(0)
            self.classified(turn, result)

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        details.update(variant=self.variant, retrospective=self.retrospective)
        super().finish(label, winner, **details)


def _summary(result: dict[str, Any]) -> str:
    if not result.get("ok"):
        return f"failed ({result.get('error', '')})"
    if "items" in result:
        return ", ".join(result["items"])
    if "level" in result:
        return result["level"]
    if "disparity" in result:
        return f"{result['n_yes']} yes / {result['n_no']} no, disparity {result['disparity']:.2f}"
    return "ok"


def _never_raises(parse: Callable[[str], dict[str, Any]], instruction: str) -> Callable[[str], dict[str, Any]]:
    def safe(text: str) -> dict[str, Any]:
        try:
            answer = parse(text)
            check_not_echo(text, [instruction])  # an echoed probe question is a failed probe
            check_list_items(answer.get("items", []))  # so is a list of non-words (":[{")
            return {"ok": True, **answer}
        except ParseError as problem:
            return {"ok": False, "error": str(problem), "kind": "format"}
        except DegenerateMove as problem:
            return {"ok": False, "error": str(problem), "kind": "rule", "reason": DEGENERATE}
        except RuleViolation as problem:
            return {"ok": False, "error": str(problem), "kind": "rule"}

    return safe

