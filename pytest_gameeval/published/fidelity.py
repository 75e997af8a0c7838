"""What replaying the papers' published games through our rules measures (issue 45): the fate of
every recorded reply by model, phase and protocol, which of our checks rejected which, how many
replies the paper's own harness had accepted, the re-scored outcomes against the published ones, and
the games that diverge and why. Figures only: no reply text leaves this module's results except
the short source position of a divergence.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.ballots import match_name
from pytest_gameeval.published.gameeval_logs import MODELS, VOTE, PublishedGame, PublishedReply, read_games
from pytest_gameeval.published.replaying import FATES, REJECTED, Replay
from pytest_gameeval.published.spyfall_replay import replay_game as spyfall_replay
from pytest_gameeval.published.spygame_games import read_games as read_spygame
from pytest_gameeval.published.spygame_games import replay_game as spygame_replay
from pytest_gameeval.published.standings import by_spy_model, published_heatmap, ratings

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
    ("words; use at most", "over the word limit"),
    ("already said exactly that", "a description repeated"),
)
GAMEEVAL_FOLDER = "gameeval-70244bf-spyfall-random"
SPYGAME_FOLDER = "spygame-562c405/benchmark"


def check_name(message: str) -> str:
    return next((name for words, name in CHECKS if words in message), "other")


def is_published(source: Path) -> bool:
    """Whether `source` holds GameEval's published SpyFall games (it, or its GAMEEVAL_FOLDER, has
    SPYWORD&VILLAGERWORD pair folders)."""
    folder = gameeval_folder(source)
    return folder.is_dir() and any(p.is_dir() and "&" in p.name for p in folder.iterdir())


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


def accepted_by_spygame(game: PublishedGame, reply: PublishedReply) -> bool:
    """SpyGame's harness kept only what it accepted: every reply in its files is a move it took."""
    return True


def rejection_table(replays: list[Replay], accepted_by_paper: Any = accepted_by_gameeval) -> dict[str, Any]:
    """Rejections by model, phase and check; and those of replies the paper's harness accepted."""
    checks: Counter[tuple[str, str, str]] = Counter()
    accepted: Counter[tuple[str, str, str]] = Counter()
    for replay in replays:
        for fate in replay.fates:
            if fate.fate != REJECTED:
                continue
            key = (model_name(replay.game, fate.reply.seat), fate.reply.action, check_name(fate.check))
            checks[key] += 1
            if accepted_by_paper(replay.game, fate.reply):
                accepted[key] += 1
    as_rows = lambda c: [{"model": m, "phase": p, "check": k, "replies": n}  # noqa: E731
                         for (m, p, k), n in sorted(c.items())]
    return {"by_check": as_rows(checks), "paper_accepted": as_rows(accepted)}


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


def measure_replays(games: list[PublishedGame], replay_game: Any, accepted_by_paper: Any) -> dict[str, Any]:
    """Both protocols, lenient (a rejected reply is forfeited and the replay goes on, to judge every
    reply) and strict (the first re-prompt ends the replay, as `gameeval rejudge` does)."""
    out: dict[str, Any] = {"games": len(games), "pairs": len({g.spy_word + "&" + g.villager_word for g in games}),
                           "replies": sum(len(g.replies) for g in games), "protocols": {}, "replays": {}}
    for protocol in PROTOCOLS:
        lenient = out["replays"][protocol] = [replay_game(g, protocol) for g in games]
        strict = [replay_game(g, protocol, strict=True) for g in games]
        out["protocols"][protocol] = {
            "fates": fate_table(lenient), "rejections": rejection_table(lenient, accepted_by_paper),
            "withheld_vote_reasons": withheld_reasons(lenient),
            "outcomes": outcome_table(lenient), "strict": outcome_table(strict) | {"diverged": len(
                [r for r in strict if r.diverged])},
        }
    return out


def measure(source: Path) -> dict[str, Any]:
    """Every published game under `source` replayed: GameEval's SpyFall games (GAMEEVAL_FOLDER, or
    `source` itself) and, where present, SpyGame's (SPYGAME_FOLDER)."""
    unreadable: list[str] = []
    gameeval = measure_replays(read_games(gameeval_folder(source), unreadable), spyfall_replay, accepted_by_gameeval)
    gameeval["unreadable_logs"] = unreadable
    rejudged = gameeval.pop("replays")["paper"]  # the games re-judged by our rules as GameEval played them
    gameeval["standings"] = {"by_spy_model": by_spy_model(rejudged), "ratings": ratings(rejudged),
                             "gameeval_heatmap": published_heatmap(source)}
    out = {"gameeval": {"source": "GameEval 70244bf spyfall/random", **gameeval}}
    if (source / SPYGAME_FOLDER).is_dir():
        spygame = measure_replays(read_spygame(source / SPYGAME_FOLDER), spygame_replay, accepted_by_spygame)
        spygame.pop("replays")
        out["spygame"] = {"source": "SpyGame 562c405 benchmark", **spygame}
    return out


def replay_records(source: Path, protocol: str = "paper") -> list[GameRecord]:
    """The records of every published game's lenient replay that reached its end, for
    `gameeval rejudge` (which seats each again from its record: published/from_record.py)."""
    replays = [spyfall_replay(g, protocol) for g in read_games(gameeval_folder(source))]
    if (source / SPYGAME_FOLDER).is_dir():
        replays += [spygame_replay(g, protocol) for g in read_spygame(source / SPYGAME_FOLDER)]
    return [r.record for r in replays if r.record is not None and r.diverged is None]
