"""`gameeval contamination MODEL`: one model on the published cases and on fresh cases matched to
them by difficulty (fresh/), per game the difference of its headline with interval and a verdict:
published easier than fresh beyond the tolerance is a memorisation signal (docs/fresh-cases.md).

The two case sets are other cases, so the test is the unpaired one of analysis/verdicts/judge
(Fisher's exact test for 0/1 headlines, Welch's t otherwise, distribution-free intervals for
values in [0, 1]), with the fresh side as the reference: `better` there means the published
side scored higher.
"""

from __future__ import annotations

from typing import Any

from pytest_gameeval.analysis.verdicts.game import BETTER, MISSING, SAME, TOO_FEW, UNDECIDED, WORSE
from pytest_gameeval.fresh.resolve import published_twins_file, resolve_data
from pytest_gameeval.games.registry import get_spec

FRESH, PUBLISHED = "A", "B"  # compare's sides: A the reference (fresh), B the one tested (published)
SIGNAL, NO_SIGNAL = "memorisation signal", "no signal"
VERDICTS = {
    BETTER: (SIGNAL, "the published cases were easier than their fresh twins beyond the tolerance"),
    WORSE: (NO_SIGNAL, "the fresh cases were the easier ones"),
    SAME: (NO_SIGNAL, "published and fresh scored the same within the tolerance"),
    UNDECIDED: ("undecided", "neither a gap nor its absence is shown at these error rates: play more cases"),
    TOO_FEW: ("undecided", "too few games played on a side"),
    MISSING: ("undecided", "a side has no played game"),
}


def side_args(games: list[str], seed: int) -> dict[str, dict[str, dict[str, Any]]]:
    """game -> side -> task arguments: the fresh side plays `fresh:SEED`, the published side the
    published cases that have a twin there, in the same order, so `--limit N` plays N twins on
    each side (a game without fresh cases is one error line before anything is played)."""
    return {game: {FRESH: {"data": resolve_data(game, f"fresh:{seed}")},
                   PUBLISHED: {"data": str(published_twins_file(game, seed))}} for game in games}


def probe_verdict(result: dict[str, Any]) -> tuple[str, str]:
    """(verdict, why) of one game's comparison fresh (A) -> published (B)."""
    return VERDICTS.get(result.get("result", ""), ("undecided", str(result.get("reason") or result.get("result"))))


def headline_line(game: str, result: dict[str, Any]) -> str:
    """`askguess: memorisation signal: published 0.76 vs fresh 0.12, difference +0.64 [+0.41, +0.83] (why)`."""
    verdict, why = probe_verdict(result)
    metric = get_spec(game).headline
    head = (result.get("metrics") or {}).get(metric) or {}
    if head.get("old") is None or head.get("new") is None:
        return f"{game}: {verdict} ({why})"
    ci = head.get("ci") or [None, None]
    interval = f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if None not in ci else ""
    return (f"{game}: {verdict}: {metric} published {head['new']:.2f} ({head.get('n_new')} games) vs fresh "
            f"{head['old']:.2f} ({head.get('n_old')} games), difference {head['new'] - head['old']:+.2f}{interval} "
            f"({why})")
