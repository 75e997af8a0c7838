"""TofuKingdom rules (GameEval §3.3) as a state machine that never calls a model.

Flow: the Prince asks each of the seven players one structured question (in seat order),
each answer is checked by the host against the truth and the answerer's obligation
(truth / lie / free), then the Prince asks one extra question to a player of his choice —
answered by THAT player (GameEval answered it with the wrong one) — and finally names the
player he believes is the Princess.

After the retries the host substitutes nothing: a forfeited question or answer is announced
as missing and play moves on; a forfeited final choice names nobody, which is "anyone
else" in the rules, so the Spy camp wins (recorded as `pick_forfeit`).

protocol=paper plays GameEval's loop (game_tofukingdom.py): the extra question is answered by the
last player asked, whoever the Prince addressed; an answer that breaks the role's obligation is
accepted (recorded, `obligation_kept: false`), not re-prompted; and a turn with no valid reply
after the retries (or a failed call) voids the attempt, as GameEval drops a game with an error and
plays on until it has its 20 games: the host announces the void, the attempt's events leave every
seat's view (they stay in the record, marked `void_attempt`), and the game starts again with a new
asking order drawn from the game's random source (GameEval re-deals; the asking order is what a
deal changes for the Prince, and the seats keep their camps' models). After `MAX_ATTEMPTS` void
attempts the game ends "void" (no camp wins; left out of the win rates).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.engine.errors import ParseError, RuleViolation
from pytest_gameeval.engine.events import REFEREE_ONLY
from pytest_gameeval.engine.game import ABORTED, Game, Seat, Turn
from pytest_gameeval.engine.matching import squash
from pytest_gameeval.engine.options import GameOptions, option
from pytest_gameeval.games.tofukingdom import prompts
from pytest_gameeval.games.tofukingdom.roles import (
    CAMP_OF,
    CAMPS,
    FREE,
    HIDDEN_ROLES,
    OBLIGATION,
    PRINCE,
    QUESTIONS,
    TRUTH,
    question_text,
    title,
    true_answer,
    winning_camp,
)

PRINCE_SEAT = "Prince"
OUTCOMES = ("prince", "queen", "spy", "void", ABORTED)  # the winning camp; "void" only under protocol=paper
VOID = "void"
MAX_ATTEMPTS = 5  # protocol=paper: void attempts before the game ends void


def player_names(n: int = len(HIDDEN_ROLES)) -> list[str]:
    return [f"Player {i}" for i in range(1, n + 1)]


def read_name(text: Any, names: list[str]) -> str | None:
    """A player name from a reply field: "Player 3", "player3", or just "3"."""
    if isinstance(text, int) and not isinstance(text, bool):
        text = str(text)
    if not isinstance(text, str):
        return None
    key = squash(text)
    for name in names:
        if key in (squash(name), squash(name).removeprefix("player")):
            return name
    return None


def read_role(text: Any) -> str | None:
    """A hidden role from a reply field: "Queen", "the queen", "I am the Queen"."""
    if not isinstance(text, str):
        return None
    key = squash(text)
    for prefix in ("iamthe", "iam", "the"):
        key = key.removeprefix(prefix)
    return key if key in HIDDEN_ROLES else None


@dataclass(frozen=True, kw_only=True)
class TofuKingdomOptions(GameOptions):
    evaluated: str = option("prince", "the camp the evaluated model plays (every role of it)", CAMPS)
    games: int = option(20, "number of games (each a seeded deal of identities)", min=1)


class TofuKingdomGame(Game):
    name = "tofukingdom"

    def __init__(self, rng: random.Random, options: TofuKingdomOptions):
        names = player_names()
        roles = list(HIDDEN_ROLES)
        rng.shuffle(roles)  # seeded: anonymous names, shuffled identities
        self.identities = dict(zip(names, roles))
        seats = [Seat(PRINCE_SEAT, PRINCE, {})]
        for name, role in self.identities.items():
            seats.append(Seat(name, role, {"identity": role, "identities": dict(self.identities)}))
        super().__init__(seats, rng, options)
        self.names = names
        self.queue = list(names)  # each player is asked exactly one question, in seat order
        self.index = 0
        self.phase = "ask"
        self.current: dict[str, Any] = {}
        self.extra_addressee: str | None = None
        self.forfeits = {"ask": 0, "answer": 0, "extra": 0, "extra_answer": 0, "choose": 0}
        self.paper = options.protocol == "paper"
        self.voided: list[str] = []  # protocol=paper: why each void attempt was void
        self.round = 1
        self.host(f"TofuKingdom begins. The Prince questions {', '.join(names)}, one question each.")

    # -- prompts --------------------------------------------------------------------
    def system_prompt(self, seat: str) -> str:
        if seat == PRINCE_SEAT:
            return prompts.prince_system(self.names)
        role = self.seats[seat].role
        return prompts.player_system(seat, role, CAMP_OF[role], self.identities)

    def pending(self) -> list[Turn]:
        if self.phase == "ask":
            addressee = self.queue[self.index]
            instruction = prompts.ask_instruction(addressee, self.index + 1, len(self.queue))
            return [
                Turn(
                    PRINCE_SEAT,
                    "ask",
                    instruction,
                    lambda t: self._parse_question(t, addressee),
                    data={"addressee": addressee},
                    reply=prompts.ask(self.names),
                )
            ]
        if self.phase in ("answer", "extra_answer"):
            c = self.current
            values = tuple(self.names) if c["kind"] == "princess" else tuple(title(r) for r in HIDDEN_ROLES)
            return [
                Turn(
                    c["answerer"],
                    self.phase,
                    prompts.answer_instruction(c["text"]),
                    self._parse_answer,
                    data=dict(c),
                    reply=prompts.answer(values),
                )
            ]
        if self.phase == "extra":
            return [
                Turn(
                    PRINCE_SEAT, "extra", prompts.EXTRA_INSTRUCTION, self._parse_extra, reply=prompts.extra(self.names)
                )
            ]
        return [
            Turn(
                PRINCE_SEAT, "choose", prompts.CHOOSE_INSTRUCTION, self._parse_choice, reply=prompts.choose(self.names)
            )
        ]

    # -- parsing and validation ---------------------------------------------------------
    def _parse_question(self, text: str, addressee: str, obj: dict[str, Any] | None = None) -> dict[str, Any]:
        obj = obj if obj is not None else prompts.ask(self.names).read(text)
        kind = obj["question"].lower()
        if kind not in QUESTIONS:
            raise ParseError(f'"question" must be one of {", ".join(QUESTIONS)}')
        target = None
        if kind == "identity_of":
            if "target" not in obj:
                raise ParseError('an "identity_of" question needs a "target" player')
            target = read_name(obj["target"], self.names)
            if target is None:
                raise RuleViolation(f"the target must be one of {', '.join(self.names)}")
            if target == addressee:
                raise RuleViolation(f'to ask {addressee} about themself, use the "identity" question')
        return {
            "addressee": addressee,
            "answerer": addressee,
            "kind": kind,
            "target": target,
            "text": question_text(kind, target),
        }

    def _parse_extra(self, text: str) -> dict[str, Any]:
        obj = prompts.extra(self.names).read(text)
        addressee = read_name(obj["player"], self.names)
        if addressee is None:
            raise RuleViolation(f"the extra question must address one of {', '.join(self.names)}")
        question = self._parse_question(text, addressee, obj)
        if self.paper:  # GameEval's loop lets the last player asked answer it, whoever was addressed
            question["answerer"] = self.queue[-1]
        return question

    def _parse_answer(self, text: str) -> dict[str, Any]:
        c = self.current
        raw = prompts.answer(()).read(text)["answer"]
        if c["kind"] == "princess":
            value = read_name(raw, self.names)
            if value is None:
                raise ParseError(f"answer with one player's name: {', '.join(self.names)}")
        else:
            value = read_role(raw)
            if value is None:
                raise ParseError(f"answer with one identity: {', '.join(title(r) for r in HIDDEN_ROLES)}")
        truth = true_answer(c["kind"], c["answerer"], c["target"], self.identities)
        role = self.identities[c["answerer"]]
        duty = OBLIGATION[role]
        kept = None if duty == FREE else (value == truth) == (duty == TRUTH)
        if kept is False and not self.paper:  # GameEval does not check obligations (protocol=paper)
            raise RuleViolation(f"as the {title(role)} you must tell the truth" if duty == TRUTH
                                else f"as the {title(role)} you must lie; that answer is true")
        return {"value": value, "truthful": value == truth, "obligation_kept": kept}

    def _parse_choice(self, text: str) -> str:
        obj = prompts.choose(self.names).read(text)
        chosen = read_name(obj["princess"], self.names)
        if chosen is None:
            raise RuleViolation(f"name one of {', '.join(self.names)}")
        return chosen

    # -- moves ----------------------------------------------------------------------
    def apply(self, turn: Turn, text: str, action: Any) -> None:
        if turn.action in ("ask", "extra"):
            self.current = action
            self.say(PRINCE_SEAT, f"{action['addressee']}, {action['text']}", question=action["kind"],
                     target=action["target"], addressee=action["addressee"])
            if turn.action == "extra":
                self.extra_addressee = action["addressee"]
            self.phase = "answer" if turn.action == "ask" else "extra_answer"
        elif turn.action in ("answer", "extra_answer"):
            c, value = self.current, action["value"]
            spoken = self._sentence(c["kind"], c["target"], value)
            self.say(turn.seat, spoken, question=c["kind"], target=c["target"], answer=value)
            self.act(turn.seat, f"{'true' if action['truthful'] else 'false'} answer", question=c["kind"],
                     target=c["target"], answer=value, truthful=action["truthful"], extra=turn.action == "extra_answer",
                     addressee=c["addressee"], obligation_kept=action["obligation_kept"])
            self._advance(turn.action)
        else:
            self._end(action)

    @staticmethod
    def _sentence(kind: str, target: str | None, value: str) -> str:
        if kind == "princess":
            return f"The Princess is {value}."
        if kind == "identity":
            return f"I am the {title(value)}."
        return f"{target} is the {title(value)}."

    def _advance(self, finished: str) -> None:
        if finished in ("ask", "answer"):
            self.index += 1
            if self.index < len(self.queue):
                self.phase = "ask"
            else:
                self.phase, self.round = "extra", 2
        else:  # the extra question is done (answered or not)
            self.phase, self.round = "choose", 3

    def forfeit(self, turn: Turn, kind: str, detail: str) -> None:
        self.forfeits[turn.action] += 1
        if self.paper:
            self._void(f"{turn.seat} gave no valid {turn.action.replace('_', ' ')} ({kind})")
        elif turn.action == "ask":
            self.host(f"The Prince asked {self.queue[self.index]} no valid question.")
            self.index += 1
            self.phase = "ask" if self.index < len(self.queue) else "extra"
            if self.phase == "extra":
                self.round = 2
        elif turn.action in ("answer", "extra_answer"):
            self.host(f"{turn.seat} gave no valid answer.")
            self.act(turn.seat, "forfeited answer", question=self.current["kind"], forfeited=True, failure=kind)
            self._advance(turn.action)
        elif turn.action == "extra":
            self.host("The Prince asked no extra question.")
            self._advance("extra")
        else:
            self.host("The Prince named nobody.")
            self._end(None, forfeit=kind)

    def _void(self, reason: str) -> None:
        """protocol=paper: this attempt is void; hide it from every seat and start again (or end void)."""
        self.voided.append(reason)
        attempt = len(self.voided)
        for event in self.events:
            if "void_attempt" not in event.data:
                event.data["void_attempt"] = attempt
                event.to = REFEREE_ONLY
        if attempt >= MAX_ATTEMPTS:
            self.host(f"The game is void: {reason}. {attempt} attempts were void; no camp wins.")
            self._end(None, void=True)
            return
        self.rng.shuffle(self.queue)
        self.index, self.phase, self.current, self.extra_addressee, self.round = 0, "ask", {}, None, 1
        self.host(
            f"The game is void: {reason}. It starts again. The Prince questions {', '.join(self.queue)}, one question "
            "each."
        )

    def _end(self, chosen: str | None, forfeit: str | None = None, void: bool = False) -> None:
        chosen_role = self.identities[chosen] if chosen else None
        camp = None if void else winning_camp(chosen_role)
        if chosen:
            self.say(PRINCE_SEAT, f"I believe {chosen} is the Princess.", chosen=chosen)
            self.host(f"{chosen} is the {title(chosen_role)}. The {title(camp)}'s camp wins.")
        self.finish(camp or VOID, camp, chosen=chosen, chosen_role=chosen_role, pick_forfeit=forfeit)

    def finish(self, label: str, winner: str | None = None, **details: Any) -> None:
        """Every ending (an aborted game's too) records who was who and how the game went."""
        details = {
            "chosen": None,
            "chosen_role": None,
            "pick_forfeit": None,
            "identities": dict(self.identities),
            "evaluated": self.options.evaluated,
            "extra_addressee": self.extra_addressee,
            "extra_answerer": self.current.get("answerer") if self.extra_addressee else None,
            "forfeits": dict(self.forfeits),
            "voided": list(self.voided),
            "asking_order": list(self.queue),
            **details,
        }
        super().finish(label, winner, **details)
