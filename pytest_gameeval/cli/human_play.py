"""`gameeval play akinator|taboo|bluffing --model X`: the person at the terminal plays the user
seat against a model; the session is saved as an ordinary game record (JSON lines).

The person sees their seat's system prompt once (it holds their secret: the object, the word,
or the statement and whether it is true), then everything their seat may see, and types one
reply per turn. Replies go through the same parse / validate / re-prompt path as a model's, so
a reply outside the rules is re-asked with the host's message. End of input (Ctrl-D) is a
failed call: the game ends as CE. With the retrospective probe (on by default) the judge's
classification turn (Akinator) is asked of the person too; it reads several lines, up to an
empty line.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Callable

from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.events import HOST_MSG, SPEECH, Event
from pytest_gameeval.engine.game import Seat
from pytest_gameeval.engine.key_values import key_value_pairs
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.engine.record import write_records
from pytest_gameeval.engine.safe_io import atomic_write
from pytest_gameeval.games.arena.person import outcome_for_the_person, turn_counter
from pytest_gameeval.games.arena.rules import CLASSIFY, USER_ROLE

HUMAN_GAMES = ("akinator", "taboo", "bluffing")
PROMPT = "> "


class HumanPlayer(Player):
    """A seat played by the person at the terminal."""

    label = "human"

    def __init__(self, read: Callable[[str], str] | None = None, write: Callable[[str], None] | None = None):
        self.read = read or (lambda prompt: input(prompt))  # looked up per call: tests patch stdin
        self.write = write or print
        self.shown: set[int] = set()
        self.system_shown = False

    def _show(self, ctx: TurnContext) -> None:
        if not self.system_shown:
            first = ctx.messages[0] if ctx.messages else {"role": "system", "content": ""}
            # chat style: the system message; flat style: the prompt starts with it and a blank line
            system = first["content"] if first["role"] == "system" else first["content"].split("\n\n", 1)[0]
            self.write(f"=== You play the {ctx.seat.name} seat ===\n{system}\n")
            self.system_shown = True
        self.show_rest(ctx.events, ctx.seat.name)

    def show_rest(self, events: list[Event], seat: str) -> None:
        for event in events:
            if id(event) not in self.shown:
                self.shown.add(id(event))
                line = describe(event, seat)
                if line:
                    self.write(line)

    async def act(self, ctx: TurnContext) -> Reply:
        self._show(ctx)
        counter = turn_counter(ctx)
        if counter:
            self.write(counter)
        try:
            if ctx.turn.action == CLASSIFY:
                self.write("(several lines; finish with an empty line)")
                lines = []
                while line := (await asyncio.to_thread(self.read, PROMPT)).strip():
                    lines.append(line)
                text = "\n".join(lines)
            else:
                text = await asyncio.to_thread(self.read, PROMPT)
        except EOFError:
            return Reply("", error="the person at the terminal ended the input")
        return Reply(text)


def describe(event: Event, seat: str) -> str | None:
    if event.kind == SPEECH and event.speaker != seat:
        return f"{event.speaker}: {event.text}"
    if event.kind == HOST_MSG:
        return f"Host: {event.text}"
    return None


def main(argv: list[str]) -> int:
    parser = CommandParser(prog="gameeval play",
                                     description="Play the user seat of a GameArena game yourself.")
    parser.add_argument("game", choices=HUMAN_GAMES,
                        help="the game whose user seat you play: " + ", ".join(HUMAN_GAMES))
    parser.add_argument("--model", required=True, help="the evaluated model, e.g. gameeval/local or openai/gpt-4o-mini")
    parser.add_argument("-M", "--model-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="model argument (repeatable)")
    parser.add_argument("-T", "--task-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="task argument, as for inspect (repeatable)")
    parser.add_argument("--case", help="row id to play (object, word or statement id); default: drawn with the seed")
    parser.add_argument("--seed", type=int, help="seed of the case draw and the game (default: from the clock)")
    parser.add_argument("--out", help="record file (JSON lines); default ./gameeval-play-GAME-TIME.jsonl")
    args = parser.parse_args(argv)

    from inspect_ai.model import get_model

    import pytest_gameeval.backends.registry  # noqa: F401  (registers gameeval/...)
    from pytest_gameeval.engine.play import play_case
    from pytest_gameeval.games.registry import get_spec
    from pytest_gameeval.inspect_ext.decoding import model_player

    spec = get_spec(args.game)
    task_args = dict(key_value_pairs(args.task_arg, "-T", allow_empty_value=True))
    seed = args.seed if args.seed is not None else int(time.time())
    task_args.setdefault("seed", str(seed))
    options = spec.parse_options(task_args)
    rows = spec.select_rows(options)
    if args.case:
        row = next((r for r in rows if r.id == args.case), None)
        if row is None:
            raise GameEvalError(f"{args.game}: no case with id {args.case!r}")
    else:
        row = random.Random(options.seed).choice(rows)
    out = Path(args.out or f"gameeval-play-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl")
    if not out.parent.exists():
        raise GameEvalError(f"--out {out}: directory {out.parent} does not exist")
    model_args = dict(key_value_pairs(args.model_arg, "-M", allow_empty_value=True))
    try:
        model = get_model(args.model, **model_args)
    except Exception as e:  # inspect's own message names the unknown provider or missing key
        raise GameEvalError(f"--model {args.model}: {e}".splitlines()[0]) from None
    human = HumanPlayer()

    def bind(seat: Seat, model_role: str):
        return human if seat.role == USER_ROLE else model_player(model, options.structured)

    notes = [f"user seat played by a person at the terminal (gameeval play); evaluated model {args.model}"]
    record = asyncio.run(play_case(spec, row, 0, options, bind, notes=notes))
    user = next(s["name"] for s in record.seats if s["role"] == USER_ROLE)
    human.show_rest([e for e in record.events if e.visible_to(user)], user)  # the final moves
    print("\n" + outcome_for_the_person(record, spec, user))
    atomic_write(out, lambda tmp: write_records(tmp, [record]))
    print(f"Record saved to {out}")
    return 0

