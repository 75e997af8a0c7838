"""What a game shows its players, as one digest: a report's `games.GAME.prompts`.

`gameeval rejudge` replays recorded replies through a newer version of a game. That is fair only
where the newer version shows the models the same prompts: the recorded replies answered those.
The game's fingerprint (engine/versions.py) changes with any rule or check; this digest changes
only with what a seat is shown. It is the sha256 of every prompt (system prompt, every message, in
order, for every seat and attempt) of one canonical game: the first case of the report's options,
played by the game's scripted players with a fixed seed. A wording change anywhere (the game's
prompts module, a host line written in its rules, the engine's rendering) changes it; a rule or
check that changes no prompt of that game does not.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.player import Player, Reply, TurnContext
from pytest_gameeval.engine.spec import GameSpec
from pytest_gameeval.players.scripted import scripted_binder

DIGEST_SEED = 0  # the canonical game's seed, whatever the report's


class _Shown(Player):
    """A scripted seat that keeps every prompt it was shown."""

    def __init__(self, inner: Player, shown: list[str]):
        self.inner, self.shown = inner, shown
        self.label, self.structured = inner.label, False

    async def act(self, ctx: TurnContext) -> Reply:
        self.shown.append(json.dumps([ctx.seat.name, ctx.attempt, ctx.messages], sort_keys=True, default=str))
        return await self.inner.act(ctx)


def _run_now(coro: Any) -> Any:
    """Run a coroutine to its end, also when called from inside a running event loop (a thread)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def prompt_digest(spec: GameSpec, options: dict[str, Any]) -> str | None:
    """The digest of the prompts of the report's first case under `options` (None: the game has no
    scripted players to play it, or no case)."""
    strength = next((s for s in ("reference", "oracle", "strong", "random") if s in spec.scripted), None)
    if strength is None:
        return None
    try:
        typed = spec.parse_options({**options, "seed": DIGEST_SEED})
        rows = spec.select_rows(typed)
        if not rows:
            return None
        shown: list[str] = []
        bind = scripted_binder(spec, {"*": strength}, DIGEST_SEED)
        _run_now(play_case(spec, rows[0], 0, typed, lambda seat, role: _Shown(bind(seat, role), shown)))
    except Exception:  # noqa: BLE001 - options or data it cannot play (a user's data, a game's own error):
        return None  # no digest, so no re-judged stand-in; never a report that cannot be written
    return hashlib.sha256("\n".join(shown).encode()).hexdigest()
