"""The papers' own published games replayed through our rules (issue 45): prints one JSON object.

    python benchmarks/published_games.py --source ../shared/published
    python benchmarks/published_games.py --source DIR --markdown     # docs/fidelity.md's tables

DIR holds GameEval's `spyfall/random` folder (`gameeval-70244bf-spyfall-random/`, or is it): its
published SpyFall games (GPT-4, GPT-3.5 and text-davinci-003 at one table), and, where present,
SpyGame's (`spygame-562c405/benchmark/`: Who-is-Spy with GPT-3.5 and GPT-4), each seat a replay
player answering with its real recorded replies, under protocol=paper and the default protocol.
Without --source: $GAMEEVAL_PUBLISHED, else `../shared/published` beside the repository.

Out: the fate of every reply by model, phase and protocol (the same move GameEval read, read
differently, read where GameEval could not, rejected, a failed call, not reached); the rejections
by check, and those of replies GameEval's harness had accepted; the re-scored outcomes against the
published winner and round; the games that diverge and why (lenient: a rejected reply is forfeited
and the replay goes on; strict: the first re-prompt ends it). The published files are read where
they are and never copied (GameEval's carry no licence, SpyGame's are GPL-3.0); only figures come out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_gameeval.engine.record import write_records  # noqa: E402
from pytest_gameeval.published.fidelity import measure, replay_records  # noqa: E402
from pytest_gameeval.published.replaying import FATES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def default_source() -> Path:
    return Path(os.environ.get("GAMEEVAL_PUBLISHED") or ROOT.parent / "shared" / "published")


def tables(result: dict[str, Any]) -> list[str]:
    """docs/fidelity.md's tables: for each paper's games, fates, checks and outcomes."""
    lines = []
    for paper, measured in result.items():
        lines += [f"{measured['source']}: {measured['games']} games, {measured['replies']} replies", ""]
        lines += fate_rows(measured) + [""] + check_rows(measured) + [""] + outcome_rows(measured) + [""]
        if "standings" in measured:
            lines += standing_rows(measured["standings"]) + [""]
    return lines


def _ci(cell: dict[str, Any], digits: int = 2) -> str:
    low, high = cell["ci"]
    interval = "" if low is None else f" [{low:.{digits}f}, {high:.{digits}f}]"
    return f"{cell['value']:.{digits}f}{interval}"


def standing_rows(standings: dict[str, Any]) -> list[str]:
    """The re-judged games by spy model and the ratings; GameEval's published heatmap beside them."""
    ratings = standings["ratings"]["ratings"]
    rows = ["| spy model | games | spy win rate [95 %] | living round [95 %] | Bradley–Terry rating [95 %] |",
            "|---|---|---|---|---|"]
    for model, cell in standings["by_spy_model"].items():
        rating = {"value": ratings[model]["rating"], "ci": ratings[model]["ci"]}
        rows.append(f"| {model} | {cell['games']} | {_ci(cell['spy_win_rate'])} | {_ci(cell['living_round'])} | "
                    f"{_ci(rating)} |")
    rows += ["", "| GameEval's heatmap cell | games | published win rate | mean over its 11 pairs | published "
             "living round | mean over its 11 pairs |", "|---|---|---|---|---|---|"]
    for cell, v in standings["gameeval_heatmap"].items():
        rows.append(f"| {cell} | {v['games']} | {v['published_win_rate']:.3f} | {v['mean_win_rate_over_pairs']:.3f} "
                    f"| {v['published_living_round']:.2f} | {v['mean_living_round_over_pairs']:.2f} |")
    return rows


def fate_rows(result: dict[str, Any]) -> list[str]:
    """One markdown row per protocol, model and phase: replies by fate."""
    head = "| protocol | model | phase | replies | " + " | ".join(FATES) + " |"
    rows = [head, "|" + "---|" * (4 + len(FATES))]
    for protocol, measured in result["protocols"].items():
        for model, phases in sorted(measured["fates"].items()):
            for phase, fates in sorted(phases.items()):
                cells = " | ".join(str(fates[f]) for f in FATES)
                rows.append(f"| {protocol} | {model} | {phase} | {sum(fates.values())} | {cells} |")
    return rows


def check_rows(result: dict[str, Any]) -> list[str]:
    """One markdown row per protocol, model, phase and check: rejected replies, and how many of
    them GameEval's harness had accepted as moves."""
    rows = ["| protocol | model | phase | check | rejected | of them accepted by the paper's harness |",
            "|---|---|---|---|---|---|"]
    for protocol, measured in result["protocols"].items():
        accepted = {(r["model"], r["phase"], r["check"]): r["replies"]
                    for r in measured["rejections"]["paper_accepted"]}
        for r in measured["rejections"]["by_check"]:
            key = (r["model"], r["phase"], r["check"])
            rows.append(f"| {protocol} | {key[0]} | {key[1]} | {key[2]} | {r['replies']} | {accepted.get(key, 0)} |")
    return rows


def outcome_rows(result: dict[str, Any]) -> list[str]:
    rows = ["| protocol | replay | games | stopped by the harness (GameEval's exit) | replayed to the end "
            "| same winner and round | diverged |", "|---|---|---|---|---|---|---|"]
    for protocol, measured in result["protocols"].items():
        for how, o in (("lenient", measured["outcomes"]), ("strict", measured["strict"])):
            diverged = o["diverged"] if isinstance(o["diverged"], int) else len(o["diverged"])
            rows.append(f"| {protocol} | {how} | {o['games']} | {o['published_exit']} | {o['replayed_to_end']} | "
                        f"{o['same_winner_and_round']} | {diverged} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, default=None, help="the folder of the published games")
    parser.add_argument("--markdown", action="store_true", help="print the tables docs/fidelity.md shows")
    parser.add_argument("--records", type=Path, default=None,
                        help="also write the protocol=paper replays as our game records (JSON lines), for "
                             "`gameeval rejudge` after a game's rules change (they hold the published replies)")
    args = parser.parse_args(argv)
    source = args.source or default_source()
    if not source.is_dir():
        parser.error(f"{source}: no such folder (the published games are not copied into the project)")
    result = measure(source)
    if args.records:
        write_records(args.records, replay_records(source))
    if args.markdown:
        print("\n".join(tables(result)))
    else:
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
