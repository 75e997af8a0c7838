"""What replaying the papers' published games through our rules measures (issue 45): the fate of
every recorded reply by model, phase and protocol, which of our checks rejected which, how many
replies GameEval's own harness had accepted, the re-scored outcomes against the published ones, and
the games that diverge and why. Figures only: no reply text leaves this module's results except
the short source position of a divergence.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from pytest_gameeval.games.ballots import match_name
from pytest_gameeval.published.gameeval_logs import MODELS, VOTE, PublishedGame, PublishedReply, read_games
from pytest_gameeval.published.replaying import FATES, REJECTED, Replay
from pytest_gameeval.published.spyfall_replay import replay_game

PROTOCOLS = ("paper", "default")
# our checks by the words of their message (the engine's and SpyFall's own wording)
CHECKS = (
    ("cannot vote for yourself", "vote for oneself"),
    ("own keyword", "own word said"),
    ("no JSON object", "not JSON"),
    ("more than once", "a field given twice"),
    ("lacks the field", "a field missing"),
    ("must be a string", "a field not a string"),
    ("no player called", "names no player"),
    ("out of the game", "a player already out"),
    ("was empty", "empty"),
    ("characters long", "too long"),
)
GAMEEVAL_FOLDER = "gameeval-70244bf-spyfall-random"


def check_name(message: str) -> str:
    return next((name for words, name in CHECKS if words in message), "other")


def gameeval_folder(source: Path) -> Path:
    """GameEval's `spyfall/random` folder: `source` itself or its GAMEEVAL_FOLDER."""
    return source / GAMEEVAL_FOLDER if (source / GAMEEVAL_FOLDER).is_dir() else source


def accepted_by_gameeval(game: PublishedGame, reply: PublishedReply) -> bool:
    """Whether GameEval's harness took the reply as a move: an object it parsed, and for a vote a
    name of a player still living then (a vote for nobody or for a player out, it counted, but as
    no player's: a tally it leads ends GameEval's game as "exit")."""
    if not isinstance(reply.value, dict):
        return False
    if reply.action != VOTE:
        return isinstance(reply.value.get("speak"), str)
    out_before = {seat for round_, seat in game.eliminated.items() if round_ < reply.round}
    living = [s for s in game.seats if s not in out_before]
    name = reply.value.get("name", reply.value.get("vote"))
    return isinstance(name, str) and match_name(name, living) is not None


def model_name(game: PublishedGame, seat: str) -> str:
    return MODELS.get(game.models[seat], game.models[seat])


def fate_table(replays: list[Replay]) -> dict[str, dict[str, dict[str, int]]]:
    """model -> phase -> fate -> replies."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for replay in replays:
        for fate in replay.fates:
            row = table.setdefault(model_name(replay.game, fate.reply.seat), {}).setdefault(
                fate.reply.action, {f: 0 for f in FATES})
            row[fate.fate] += 1
    return table


def rejection_table(replays: list[Replay]) -> dict[str, Any]:
    """Rejections by model, phase and check; and those of replies GameEval's harness accepted."""
    checks: Counter[tuple[str, str, str]] = Counter()
    accepted: Counter[tuple[str, str, str]] = Counter()
    for replay in replays:
        for fate in replay.fates:
            if fate.fate != REJECTED:
                continue
            key = (model_name(replay.game, fate.reply.seat), fate.reply.action, check_name(fate.check))
            checks[key] += 1
            if accepted_by_gameeval(replay.game, fate.reply):
                accepted[key] += 1
    as_rows = lambda c: [{"model": m, "phase": p, "check": k, "replies": n}  # noqa: E731
                         for (m, p, k), n in sorted(c.items())]
    return {"by_check": as_rows(checks), "gameeval_accepted": as_rows(accepted)}


def withheld_reasons(replays: list[Replay]) -> dict[str, int]:
    """model -> accepted votes whose public reason the default protocol withheld (it said the
    voter's own word)."""
    out: Counter[str] = Counter()
    for replay in replays:
        for event in replay.record.events if replay.record else []:
            if event.data.get("withheld_reason"):
                out[model_name(replay.game, event.data["withheld_reason"])] += 1
    return dict(sorted(out.items()))


def outcome_table(replays: list[Replay]) -> dict[str, Any]:
    """Re-scored outcomes against GameEval's; games GameEval stopped ("exit") are counted apart."""
    scored = [r for r in replays if r.game.winner != "exit"]
    ended = [r for r in scored if r.to_end]
    return {
        "games": len(replays),
        "published_exit": len(replays) - len(scored),
        "replayed_to_end": len(ended),
        "same_winner_and_round": sum(r.same_outcome for r in ended),
        "different": [{"game": r.game.source, "published": {"winner": r.game.winner, "round": r.game.rounds},
                       "ours": r.outcome} for r in ended if not r.same_outcome],
        "diverged": [{"game": r.game.source, "published": r.game.winner, **(r.diverged or {})}
                     for r in replays if r.diverged],
    }


def measure(source: Path) -> dict[str, Any]:
    """Every published GameEval game under `source`, replayed under both protocols: lenient (a
    rejected reply is forfeited and the replay goes on, to judge every reply) and strict (the first
    re-prompt ends the replay, as `gameeval rejudge` does)."""
    games = read_games(gameeval_folder(source))
    out: dict[str, Any] = {"source": "GameEval 70244bf spyfall/random", "games": len(games),
                           "pairs": len({g.spy_word + "&" + g.villager_word for g in games}),
                           "replies": sum(len(g.replies) for g in games), "protocols": {}}
    for protocol in PROTOCOLS:
        lenient = [replay_game(g, protocol) for g in games]
        strict = [replay_game(g, protocol, strict=True) for g in games]
        out["protocols"][protocol] = {
            "fates": fate_table(lenient), "rejections": rejection_table(lenient),
            "withheld_vote_reasons": withheld_reasons(lenient),
            "outcomes": outcome_table(lenient), "strict": outcome_table(strict) | {"diverged": len(
                [r for r in strict if r.diverged])},
        }
    return out
