"""Each game's token profile by round: measured by playing games, shipped with the package, read by
the estimate (analysis/cost/estimate.py).

A profile holds, per game and version, every measured game as its rounds, and per round each
model role's calls and the characters it was sent (the whole prompt of every call, as an API bills
it) and replied. Characters, not tokens: a prompt's length in characters is the game's, whatever
the tokenizer; the estimate turns them into tokens with `chars_per_token` (4, OpenAI's rule of
thumb for English, and what the loopback test server counts), and the profile records the ratio the
embedded model's own tokenizer gave beside it (`calibration`). How it is made and re-made:
`data/README.md`.

    python -m pytest_gameeval.analysis.cost.profile [--games 12] [--local 8] [--local-rounds 5,30] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.engine.spec import GameSpec

PROFILE_SCHEMA = 1
CHARS_PER_TOKEN = 4.0


def load_profiles() -> dict[str, Any]:
    """The profiles shipped with the package (importlib.resources: works from a wheel)."""
    text = resources.files("pytest_gameeval.analysis.cost").joinpath("data/profiles.json").read_text(encoding="utf-8")
    return json.loads(text)


@dataclass
class Tape:
    """One game's calls by round and model role: round -> role -> [calls, input chars, output chars],
    and the tokens the model reported, for calibration."""

    rounds: dict[int, dict[str, list[int]]] = field(default_factory=dict)
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # input chars, input tokens, output chars, out

    def add(self, role: str, ctx: TurnContext, reply: Reply) -> None:
        sent = sum(len(str(m["content"] if isinstance(m, dict) else m.content)) for m in ctx.messages)
        rnd = max((e.round for e in ctx.events), default=0)
        cell = self.rounds.setdefault(rnd, {}).setdefault(role, [0, 0, 0])
        cell[0] += 1
        cell[1] += sent
        cell[2] += len(reply.text)
        if reply.input_tokens:
            self.tokens = [a + b for a, b in zip(self.tokens, (sent, reply.input_tokens, len(reply.text),
                                                               reply.output_tokens))]


class Taped:
    """A player that notes each call's prompt and reply lengths on a Tape, then answers as `inner`."""

    def __init__(self, inner: Player, role: str, tape: Tape):
        self.inner, self.role, self.tape = inner, role, tape
        self.label = inner.label
        self.structured = getattr(inner, "structured", False)
        self.reference = getattr(inner, "reference", False)
        self.self_play = getattr(inner, "self_play", False)

    async def act(self, ctx: TurnContext) -> Reply:
        reply = await self.inner.act(ctx)
        self.tape.add(self.role, ctx, reply)
        return reply


def _scripted_bind(spec: GameSpec, strength: str) -> Any:
    """The evaluated role played by `strength`, the others by the game's reference policy where it has
    one (what a run's unbound roles get), else by the same strength (self-play)."""
    from pytest_gameeval.players.scripted import scripted_binder

    others = "reference" if "reference" in spec.scripted else strength
    return scripted_binder(spec, {"evaluated": strength, "*": others})


async def measure(spec: GameSpec, bind: Any, games: int, options: dict[str, Any] | None = None,
                  source: str = "") -> list[dict[str, Any]]:
    """Play the first `games` cases of a game with `bind`, each on its own Tape."""
    from pytest_gameeval.engine.play import play_case

    opts = spec.parse_options(options or {})
    rows = spec.select_rows(opts)[:games]
    out = []
    for epoch, row in enumerate(rows):
        tape = Tape()
        roles = {}

        def taped(seat: Any, role: str, tape: Tape = tape, roles: dict[str, str] = roles) -> Any:
            roles[seat.name] = role
            return Taped(bind(seat, role), role, tape)

        try:
            await play_case(spec, row, 0, opts, taped)
        except Exception as e:  # a strength without a policy for a role: not measured
            return [{"error": f"{type(e).__name__}: {e}"}] if not out else out
        out.append({"source": source, "case": row.id, "max_rounds": getattr(opts, "max_rounds", None),
                    "rounds": {str(r): v for r, v in sorted(tape.rounds.items())}, "tokens": tape.tokens})
    return out


def measure_scripted(spec: GameSpec, games: int) -> list[dict[str, Any]]:
    measured: list[dict[str, Any]] = []
    for strength in sorted(spec.scripted):
        if strength == "reference":
            continue
        got = asyncio.run(measure(spec, _scripted_bind(spec, strength), games, source=f"gameeval/scripted/{strength}"))
        measured += [g for g in got if "error" not in g]
    return measured


def measure_local(spec: GameSpec, games: int, options: dict[str, Any]) -> list[dict[str, Any]]:
    """The embedded model as the evaluated seat, the reference policy (else itself) in the others."""
    from inspect_ai.model import GenerateConfig, get_model

    from pytest_gameeval.inspect_ext.decoding import model_player

    # at temperature 0.8, as the README's first evaluation: at 0 SmolLM2 repeats its rejected reply
    model = get_model("gameeval/local", config=GenerateConfig(temperature=0.8))
    reference = _scripted_bind(spec, "reference") if "reference" in spec.scripted else None
    opts = spec.parse_options(options)

    def bind(seat: Any, role: str) -> Any:
        if role != "evaluated" and reference is not None:
            try:
                return reference(seat, role)
            except KeyError:
                pass
        return model_player(model, opts.structured)

    return asyncio.run(measure(spec, bind, games, options, source=str(model)))


def build(games: int, local: int, local_options: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    from pytest_gameeval.games.registry import GAMES, get_spec

    profile: dict[str, Any] = {"schema": PROFILE_SCHEMA, "chars_per_token": CHARS_PER_TOKEN,
                               "made": datetime.date.today().isoformat(), "games": {}}
    calibration = [0, 0, 0, 0]
    for name in GAMES:
        spec = get_spec(name)
        measured = measure_scripted(spec, games)
        for options in local_options.get(name, []) if local else []:
            measured += measure_local(spec, local, options)
        for g in measured:
            calibration = [a + b for a, b in zip(calibration, g.pop("tokens"))]
        profile["games"][name] = {"version": spec.version, "options": spec.parse_options({}).as_dict(),
                                  "games": measured}
    if calibration[1]:
        # input is left out: the records' input_tokens leave out what the server's prompt cache held
        profile["calibration"] = {"model": "gameeval/local (SmolLM2-135M's tokenizer)",
                                  "output_chars_per_token": round(calibration[2] / max(1, calibration[3]), 3)}
    return profile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="measure every game's token profile by round")
    parser.add_argument("--games", type=int, default=12, help="games per scripted strength and game")
    parser.add_argument("--local", type=int, default=0, help="games of the embedded model (Ask-Guess)")
    parser.add_argument("--local-rounds", default="5,30",
                        help="max_rounds of the embedded model's games, comma-separated: each is played --local times")
    parser.add_argument("--out", default="pytest_gameeval/analysis/cost/data/profiles.json")
    args = parser.parse_args(argv)
    local_options = {"askguess": [{"max_rounds": int(r)} for r in args.local_rounds.split(",") if r.strip()]}
    profile = build(args.games, args.local, local_options)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(profile, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out}: " + ", ".join(f"{g} {len(p['games'])}" for g, p in profile["games"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
