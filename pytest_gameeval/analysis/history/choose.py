"""Which stored run a new run is gated against (`--gameeval-compare[=REF]`).

`latest` (the default): the newest stored run comparable with this one: it holds every game this
run plays, with the same game versions, data (digest), rule options and decoding (the checks
`--gameeval-baseline` applies, analysis/report/file.incomparable); another model is allowed, that
is the point. A run whose own gate failed is passed over (a release that regressed is not the bar
the next one must clear); said on the line. `latest-if-any`: the same, but no comparable run is a
first run, not an error. Any other REF names one run (id, id prefix or NAME); it must be comparable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_gameeval.analysis.history.store import RunStore, StoredRun
from pytest_gameeval.engine.errors import GameEvalError

LATEST, LATEST_IF_ANY = "latest", "latest-if-any"


@dataclass
class Choice:
    run: StoredRun | None
    line: str  # one line: which run and why (or why none)


def why_not(run: StoredRun, preview: dict[str, Any], *, allow_version_change: bool = False,
            allow_missing: bool = False) -> list[str]:
    """Why a stored run cannot be this run's baseline (empty: it can). `preview`: this run's games
    as a report would describe them before play (options, dataset, version, structured). With
    --gameeval-gate-allow-missing (a game added to the suite) a run lacking some of them can be
    chosen, as such a --gameeval-baseline is taken; the games it has must match."""
    from pytest_gameeval.analysis.report.file import incomparable

    lacking = sorted(set(preview["games"]) - set(run.meta["games"]))
    in_both = sorted(set(preview["games"]) & set(run.meta["games"]))
    if lacking and not (allow_missing and in_both):
        return [f"it has no {', '.join(lacking)}"]
    return incomparable({"games": run.meta["games"]}, preview, games=in_both,
                        allow_version_change=allow_version_change, version_flag="--gameeval-allow-version-change")


def describe(run: StoredRun) -> str:
    bits = [f"'{run.name}'" if run.name else "", run.model, f"commit {run.commit}" if run.commit else "",
            str(run.meta.get("created") or "")]
    return f"run {run.id} (" + ", ".join(b for b in bits if b) + ")"


def choose(store: RunStore, ref: str, preview: dict[str, Any], *, allow_version_change: bool = False,
           allow_missing: bool = False) -> Choice:
    runs = store.runs()
    allow = {"allow_version_change": allow_version_change, "allow_missing": allow_missing}
    if ref not in (LATEST, LATEST_IF_ANY):
        run = store.find(ref, runs)
        reasons = why_not(run, preview, **allow)
        if reasons:
            raise GameEvalError(f"--gameeval-compare={ref}: {describe(run)} in {store.label} does not match this "
                                "run: " + "; ".join(reasons))
        return Choice(run, f"gameeval: baseline {describe(run)} from {store.label}: named by --gameeval-compare={ref}")
    return _latest(store, runs, ref, preview, allow)


def _latest(store: RunStore, runs: Sequence[StoredRun], ref: str, preview: dict[str, Any],
            allow: dict[str, bool]) -> Choice:
    passed_over: list[str] = []
    for run in reversed(runs):
        reasons = why_not(run, preview, **allow)
        if not reasons and run.gate_failed:
            reasons = ["its own gate failed"]
        if reasons:
            passed_over.append(f"{run.id}: {reasons[0]}")
            continue
        skipped = ""
        if passed_over:
            skipped = (f"; passed over {len(passed_over)} newer run{'s' if len(passed_over) > 1 else ''} ("
                       + "; ".join(passed_over[:2]) + ("; ..." if len(passed_over) > 2 else "") + ")")
        return Choice(run, f"gameeval: baseline {describe(run)} from {store.label}: the newest stored run with the "
                           f"same games, versions and data{skipped}")
    what = (f"none of its {len(runs)} stored runs is comparable with this run (newest: {passed_over[0]})"
            if runs else "it holds no stored run")
    if ref == LATEST_IF_ANY:
        return Choice(None, f"gameeval: no baseline in {store.label}: {what}; this run is not gated "
                            f"(--gameeval-compare={LATEST_IF_ANY})")
    raise GameEvalError(f"--gameeval-compare: no baseline in {store.label}: {what}; save a comparable run first "
                        f"(--gameeval-autosave), or pass on a first run with --gameeval-compare={LATEST_IF_ANY}")
