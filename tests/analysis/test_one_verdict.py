"""One place decides a game's verdict (issue 39): the pytest gate, `gameeval report diff` and
`gameeval compare` give the same verdict for the same pair of runs, because all three take it
from analysis/verdicts/game.decide; and nothing else in the package builds a verdict."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pytest_gameeval.analysis.rankings.compare import analyze
from pytest_gameeval.analysis.report.file import SCHEMA, SCHEMA_VERSION, diff_reports
from pytest_gameeval.analysis.verdicts.game import BETTER, MISSING, SAME, TOO_FEW, UNDECIDED, VERDICTS, WORSE
from pytest_gameeval.analysis.verdicts.gate import GameGate
from pytest_gameeval.analysis.verdicts.gate_config import GateConfig
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.run.plan import gate_metrics, score_keys
from pytest_gameeval.run.settings import Settings

GAME = "askguess"  # gated on two metrics, as every game is: its headline and legal_first_try
ALPHA, TOLERANCE = 0.05, 0.1
PACKAGE = Path(__file__).resolve().parents[2] / "pytest_gameeval"


def _cases(quality: list[float], legal: list[float] | None = None, errors: int = 0) -> list[dict]:
    legal = legal if legal is not None else [1.0] * len(quality)
    played = [{"id": f"{GAME}[c{i}]", "game": GAME, "case": f"c{i}", "index": i, "seed": i, "status": "played",
               "outcome": "ST" if q else "EE", "scores": {"played_quality": q, "legal_first_try": lf}}
              for i, (q, lf) in enumerate(zip(quality, legal))]
    return played + [{"id": f"{GAME}[e{i}]", "game": GAME, "case": f"e{i}", "index": len(played) + i, "status": "error"}
                     for i in range(errors)]


def _report(cases: list[dict]) -> dict:
    spec = get_spec(GAME)
    return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "package": {"version": "0"},
            "models": {"evaluated": "m"}, "settings": {}, "cases": cases,
            "games": {GAME: {"version": spec.version, "options": {"seed": 0, "limit": 0}, "dataset": {"sha256": "x"},
                             "metrics": {}, "rate_keys": list(spec.rate_keys), "mean_keys": list(spec.mean_keys),
                             "directions": {}, "usage": {}, "headline": spec.headline,
                             "gated": list(spec.default_gated)}}}


def _gate(old: list[dict], new: list[dict]) -> GameGate:
    """The plugin's gate at the level `report diff` tests (one look, alpha/2 and beta = alpha/2),
    built and fed as the runner builds and feeds it."""
    settings = Settings(gate=GateConfig(alpha=ALPHA / 2, beta=ALPHA / 2, tolerance=TOLERANCE, looks=1))
    gate = GameGate.against(GAME, gate_metrics(get_spec(GAME), score_keys(get_spec(GAME)), settings), settings.gate,
                            old, len(new))
    gate.look(old, new, len(new), last=True, games_played=sum(c["status"] == "played" for c in new))
    return gate


def _three(old: list[dict], new: list[dict]) -> tuple[str, str, str]:
    """(gate, report diff, compare) verdicts of one pair of runs."""
    diff = diff_reports(_report(old), _report(new), alpha=ALPHA, tolerance=TOLERANCE)
    compared = analyze([GAME], {(GAME, "A"): old, (GAME, "B"): new}, {"A": "a", "B": "b"}, alpha=ALPHA,
                       tolerance=TOLERANCE, metrics={})
    return _gate(old, new).verdict, diff["games"][GAME]["result"], compared["games"][GAME]["result"]


PAIRS = {
    WORSE: (_cases([1.0] * 30), _cases([0.0] * 30)),
    BETTER: (_cases([0.0] * 30), _cases([1.0] * 30)),
    SAME: (_cases([1.0, 0.0] * 50), _cases([1.0, 0.0] * 50)),
    UNDECIDED: (_cases([1.0, 0.0] * 5), _cases([0.0, 1.0, 1.0, 1.0, 0.0] * 2)),
    TOO_FEW: (_cases([1.0]), _cases([0.0])),
}


@pytest.mark.parametrize("expected", list(PAIRS))
def test_the_gate_report_diff_and_compare_give_one_verdict(expected):
    old, new = PAIRS[expected]
    assert _three(old, new) == (expected, expected, expected)


def test_a_game_with_no_played_game_is_missing_with_one_reason_everywhere():
    """A new run whose every case was a harness error: missing for the gate, report diff and
    compare alike, and each says why in the same words (compare used to say "too few games")."""
    old, new = _cases([1.0] * 6), _cases([], errors=4)
    diff = diff_reports(_report(old), _report(new), alpha=ALPHA, tolerance=TOLERANCE)
    compared = analyze([GAME], {(GAME, "A"): old, (GAME, "B"): new}, {"A": "a", "B": "b"}, alpha=ALPHA,
                       tolerance=TOLERANCE, metrics={})["games"][GAME]
    gate = _gate(old, new)
    assert _three(old, new) == (MISSING, MISSING, MISSING) and gate.failed
    assert gate.reason == "missing: no played game (4 harness errors)"
    assert diff["games"][GAME]["reason"] == "missing: new: no played game (4 harness errors)"
    assert compared["reason"] == "missing: B: no played game (4 harness errors)"


def test_a_baseline_with_no_played_game_is_missing_for_the_gate_and_report_diff():
    old, new = _cases([], errors=3), _cases([1.0] * 6)
    diff = diff_reports(_report(old), _report(new), alpha=ALPHA, tolerance=TOLERANCE)
    gate = _gate(old, new)
    assert gate.verdict == diff["games"][GAME]["result"] == MISSING and gate.failed
    assert gate.reason == "missing: the baseline has no played game of it"
    assert diff["games"][GAME]["reason"] == "missing: old: no played game (3 harness errors)"


def test_the_gate_entry_and_the_diff_entry_keep_their_fields():
    """Reports do not change: the typed verdict renders exactly the fields reports held before."""
    old, new = PAIRS[WORSE]
    entry = _gate(old, new).to_dict()
    assert list(entry) == ["game", "verdict", "result", "reason", "paired", "games_used", "games_played",
                           "harness_errors", "cases_available", "looks_done", "looks_planned", "alpha", "beta",
                           "metrics", "outcomes"]
    assert entry["verdict"] == "fail" and entry["result"] == WORSE and entry["reason"].startswith("worse: ")
    diff = diff_reports(_report(old), _report(new), alpha=ALPHA, tolerance=TOLERANCE)["games"][GAME]
    assert list(diff) == ["game", "result", "reason", "paired", "games_old", "games_new", "metrics", "outcomes"]


NAMES = {"BETTER", "WORSE", "SAME", "UNDECIDED", "TOO_FEW", "MISSING"}  # the verdicts' constants


def _metric_verdict(target: ast.expr) -> bool:
    """`result["verdict"] = ...`: one metric's verdict (verdicts/judge.judge_metric, the statistics), not a game's."""
    return (
        isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and target.slice.value == "verdict"
    )


def _decides(node: ast.AST) -> str | None:
    """What `node` does that only verdicts/game.py may: build a GameVerdict, write a game's result
    from a verdict name, or return or assign a verdict name."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "GameVerdict":
        return "builds a GameVerdict"
    if isinstance(node, ast.Dict):  # a verdict written by hand: {"result": MISSING, ...}
        for key, value in zip(node.keys, node.values):
            named = getattr(value, "id", None) in NAMES or (isinstance(value, ast.Constant) and value.value in VERDICTS)
            if isinstance(key, ast.Constant) and key.value == "result" and named:
                return "writes a game's result"
    if isinstance(node, ast.Assign) and all(_metric_verdict(t) for t in node.targets):
        return None
    if isinstance(node, (ast.Return, ast.Assign)) and node.value is not None:
        value = node.value.body if isinstance(node.value, ast.IfExp) else node.value  # `TOO_FEW if ... else ...`
        if getattr(value, "id", None) in NAMES:
            return "returns or assigns a verdict"
    return None


def test_only_game_verdict_decides_a_game_verdict():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "analysis/verdicts/game.py":
            continue
        offenders += [f"{rel}:{node.lineno} {what}" for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                      if (what := _decides(node))]
    assert not offenders, "a second place decides a game's verdict: " + "; ".join(offenders)


def test_the_scan_finds_a_second_place():
    """The scan above is not blind: the code the gate had before issue 39 trips it."""
    before = ast.parse("def verdict(self):\n    if self.games_played == 0:\n        return MISSING\n"
                       "def missing_game(game):\n    return {'game': game, 'result': MISSING}\n"
                       "def judge_metric(result):\n    result['verdict'] = WORSE\n")
    found = sorted(filter(None, map(_decides, ast.walk(before))))
    assert found == ["returns or assigns a verdict", "writes a game's result"]
