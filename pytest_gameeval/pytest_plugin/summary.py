"""The pytest terminal summary's words: per game, its rates with 95% intervals (the gate's block
is analysis/verdicts/table.gate_lines). Pure functions over the report."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.metrics.stats import mean, rate


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.3g}"


def _binary(values: list[float]) -> bool:
    return all(v in (0.0, 1.0) for v in values)


def estimate(values: list[float]) -> tuple[str, str]:
    """(value, 95% interval) as text: a Wilson interval for 0/1 values, Student t otherwise."""
    if _binary(values):
        r = rate(int(sum(values)), len(values))
        return _pct(r["value"]), f"[{_pct(r['ci'][0])}, {_pct(r['ci'][1])}]"
    m = mean(values)
    lo, hi = m["ci"]
    return _num(m["value"]), ("–" if lo is None else f"[{_num(lo)}, {_num(hi)}]")


def game_lines(name: str, game: dict[str, Any], cases: list[dict[str, Any]], headline: str | None = None) -> list[str]:
    """A game's block: counts, the headline metric, the metrics gated beside it and each outcome
    rate, with 95% intervals."""
    if game.get("data_error"):
        return [f"{name}: not played: data error: {game['data_error']}"]
    played = [c for c in cases if c.get("status") == "played" and isinstance(c.get("scores"), dict)]
    lines = [f"{name}: {game['cases_played']} played, {game['cases_error']} harness errors"]
    if not played:
        return lines + ["  no game was played: nothing to estimate"]
    lines[0] += _answer(played, headline)  # the answer first (issue 68); the table below is the detail
    gated = [k for k in game.get("gated") or [] if k != headline]  # the turn-level measure, judged beside it
    keys = ([headline] if headline and headline not in game["rate_keys"] else []) + gated + list(game["rate_keys"])
    width = max(len(k) for k in keys)
    lines.append(f"  {'metric':<{width}}  {'value':>7}  {'95% interval':<17} games")
    for key in keys:
        values = [float(c["scores"][key]) for c in played if isinstance(c["scores"].get(key), (int, float))]
        values = [v for v in values if v == v]  # NaN: undefined for that game
        if not values:
            continue
        value, interval = estimate(values)
        count = f"{int(sum(values))}/{len(values)}" if _binary(values) else str(len(values))
        mark = "  (headline)" if key == headline else ("  (gated beside it)" if key in gated else "")
        lines.append(f"  {key:<{width}}  {value:>7}  {interval:<17} {count}{mark}")
    return lines


def _answer(played: list[dict[str, Any]], headline: str | None) -> str:
    """`; played_quality 0.313 [0.219, 0.408]`: the headline and its 95% interval, for the block's first line."""
    values = [float(c["scores"][headline]) for c in played if isinstance(c["scores"].get(headline), (int, float))]
    values = [v for v in values if v == v]
    if not headline or not values:
        return ""
    value, interval = estimate(values)
    return f"; {headline} {value} {interval} over {len(values)} games (headline)"


def resume_line(report: dict[str, Any]) -> str | None:
    """With --gameeval-resume: how many finished games the journal gave back (not played again)."""
    run = report.get("run") or {}
    if not run.get("resumed"):
        return None
    n = run.get("reused_from_journal", 0)
    cases = report["cases"]
    played = sum(c["status"] == "played" for c in cases) - n
    line = (f"resumed: reused {n} finished {'game' if n == 1 else 'games'} from the journal of an interrupted run, "
            f"played {played} of {len(cases)}")
    not_played = len(cases) - n - played
    if not_played:
        line += f", {not_played} not played"
    other = run.get("not_reused_from_journal") or {}
    if other:  # journalled games of another game than this run's: played again, and why
        k = sum(other.values())
        line += (f"; {k} journalled {'game' if k == 1 else 'games'} not reused ("
                 + ", ".join(f"{m}: {why}" for why, m in sorted(other.items())) + ")")
    return line


def _headline_cell(game: dict[str, Any], cases: list[dict[str, Any]], headline: str | None) -> tuple[str, str, str]:
    """(headline name, value, 95% interval) over the played cases."""
    played = [c for c in cases if c.get("status") == "played" and isinstance(c.get("scores"), dict)]
    if not headline:
        return "–", "–", "–"
    values = [float(c["scores"][headline]) for c in played if isinstance(c["scores"].get(headline), (int, float))]
    values = [v for v in values if v == v]
    if not values:
        return headline, "–", "–"
    value, interval = estimate(values)
    count = f" ({int(sum(values))}/{len(values)})" if _binary(values) else ""
    return headline, value + count, interval


def markdown_summary(report: dict[str, Any], report_path: Any, headlines: dict[str, str]) -> list[str]:
    """The session as markdown (a PR comment or a CI job summary): per game the games played, the
    headline with its 95% interval and the outcomes; the gate's table when gating; where the report
    and the game records are."""
    from collections import Counter

    from pytest_gameeval.analysis.verdicts.gate_table import gate_markdown

    models = report.get("models") or {}
    lines = [f"## gameeval: `{models.get('evaluated')}`", ""]
    roles = models.get("roles") or {}
    if roles:
        lines += ["Roles: " + ", ".join(f"{r} = `{m}`" for r, m in sorted(roles.items())), ""]
    lines += ["| game | games played | harness errors | headline | value | 95% interval | outcomes |",
              "|---|---:|---:|---|---:|---|---|"]
    for name, game in report["games"].items():
        cases = [c for c in report["cases"] if c["game"] == name]
        if game.get("data_error"):
            lines.append(f"| {name} | 0 | 0 | – | – | – | **data error**: {_cell(game['data_error'])} |")
            continue
        key, value, interval = _headline_cell(game, cases, headlines.get(name))
        outcomes = Counter(c["outcome"] for c in cases if c.get("status") == "played" and c.get("outcome"))
        not_played = sum(c.get("status") == "not played" for c in cases)
        breakdown = ", ".join(f"{k} {n}" for k, n in sorted(outcomes.items())) or "–"
        if not_played:
            breakdown += f"; {not_played} not played"
        lines.append(
            f"| {name} | {game['cases_played']} | {game['cases_error']} | {key} | {value} | {interval} | {breakdown} |"
        )
    resumed = resume_line(report)
    if resumed:
        lines += ["", resumed]
    if report.get("gate"):
        lines += [""] + gate_markdown(report["gate"], str(models.get("evaluated")))
    from pytest_gameeval.analysis.cost.report import report_cost_lines  # the run's cost, with a price table

    lines += [""] + [f"- {line.strip()}" for line in report_cost_lines(report)] if report.get("cost") else []
    records = (report.get("run") or {}).get("records")
    lines += ["", f"Report: `{report_path}`" + (f"; game records: `{records}` beside it" if records else "")]
    return lines


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def provider_failures(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's failures at the provider: games lost to them (harness errors, never played), games
    not started because the run stopped, the causes (most frequent first) and whether it stopped."""
    from collections import Counter

    from pytest_gameeval.run.provider_stop import STOPPED

    failed = [c for c in cases if c.get("provider")]
    stopped = [c for c in cases if str(c.get("reason") or "").startswith(STOPPED)]
    causes = Counter(c["provider"]["cause"] for c in failed)
    stop_cause = str(stopped[0]["reason"]).removeprefix(STOPPED) if stopped else None
    return {"failed": len(failed), "not_started": len(stopped), "causes": [c for c, _ in causes.most_common()],
            "stopped": stop_cause or next((c["provider"]["cause"] for c in failed if c["provider"].get("fatal")), None)}


def content_filtered(cases: list[dict[str, Any]]) -> int:
    """Games a provider's content filter ended (played, outcome aborted: not the model's forfeit)."""
    return sum(bool((c.get("failures") or {}) and any((f or {}).get("content_filter") for f in c["failures"].values()))
               for c in cases if c.get("status") == "played")


def provider_lines(cases: list[dict[str, Any]]) -> list[str]:
    """The summary's last lines when the provider failed: what, how many games, and the exit code."""
    from pytest_gameeval.run.exit_codes import PROVIDER_FAILED

    lost = provider_failures(cases)
    lines = []
    filtered = content_filtered(cases)
    if filtered:
        lines.append(f"gameeval: {filtered} {'game' if filtered == 1 else 'games'} ended by the provider's content "
                     "filter (outcome aborted, failure kind content_filter; not counted as the model's forfeit)")
    if not lost["failed"] and not lost["not_started"]:
        return lines
    counts = f"{lost['failed']} {'game' if lost['failed'] == 1 else 'games'} failed at the provider"
    if lost["not_started"]:
        counts += f", {lost['not_started']} not started"
    if lost["stopped"]:
        return lines + [f"gameeval: the run stopped ({counts}; exit {PROVIDER_FAILED}): {lost['stopped']}"]
    return lines + [f"gameeval: {counts} (harness errors, not played): {lost['causes'][0]}"]
