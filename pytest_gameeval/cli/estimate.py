"""`gameeval estimate MODEL`: the calls, tokens and cost of a planned run before it is played, from
each game's shipped token profile by round and a price table (analysis/cost/estimate.py). The plan is
given as to the pytest plugin (games, limit, trials, options, roles, baseline), so the same numbers
come from `pytest --gameeval-estimate`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pytest_gameeval.cli.parser import CommandParser
from pytest_gameeval.engine.errors import GameEvalError


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="gameeval estimate",
        description="Predict the calls, tokens and cost of a planned run (plays nothing): games x cases x trials x "
                    "seats, each game's token profile by round (measured by us, shipped with the package) and the "
                    "models' prices, with the 10th-90th percentile range, and for a gated run the gate's expected "
                    "and worst case.")
    parser.add_argument("model", help="the evaluated model (inspect name, e.g. openai/gpt-4o-mini)")
    parser.add_argument("--cost-config", metavar="FILE",
                        help="price table (inspect's --model-cost-config format, YAML or JSON)")
    parser.add_argument("--games", default="", help="comma-separated games (default: every game)")
    parser.add_argument("--limit", type=int, default=0, help="cases per game (0: all), as --gameeval-limit")
    parser.add_argument("--trials", type=int, default=1, help="trials per case, as --gameeval-trials")
    parser.add_argument("--seed", type=int, default=0, help="base seed, as --gameeval-seed")
    parser.add_argument("--option", "-T", dest="options", action="append", default=[], metavar="[GAME.]NAME=VALUE",
                        help="game option, as --gameeval-option (repeatable), e.g. max_rounds=5")
    parser.add_argument("--role", action="append", default=[], metavar="ROLE=MODEL",
                        help="bind a model role, as --gameeval-role (repeatable)")
    parser.add_argument("--baseline", metavar="REPORT", help="a gated run: the gate's expected and worst case")
    parser.add_argument("--chars-per-token", type=float, default=None,
                        help="characters per token (default 4, OpenAI's rule of thumb for English)")
    parser.add_argument("--no-cache", action="store_true",
                        help="assume no prompt caching (default: the providers' caching, as they bill it)")
    parser.add_argument("--cache-min", type=int, default=None, metavar="TOKENS",
                        help="the shortest prompt prefix the provider caches (default 1024, OpenAI's and Anthropic's)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: lines for people (default); json: the same numbers for scripts")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from pytest_gameeval.analysis.cost.estimate import estimate_lines, estimate_plans
    from pytest_gameeval.analysis.cost.prices import load_prices

    if args.chars_per_token is not None and not args.chars_per_token > 0:
        raise GameEvalError("--chars-per-token must be more than 0")
    if args.cache_min is not None and args.cache_min < 1:
        raise GameEvalError("--cache-min must be at least 1 token")
    table = load_prices(args.cost_config) if args.cost_config else None
    from pytest_gameeval.backends.local_weights import canonical_model_name

    # a local GGUF by its identity (gameeval/local/<file>@<sha>), as the plugin's run names and prices it
    args.model = canonical_model_name(args.model.strip())
    args.role = [f"{r.split('=', 1)[0]}={','.join(canonical_model_name(m) for m in r.split('=', 1)[1].split(','))}"
                 if "=" in r else r for r in args.role]
    from pytest_gameeval.analysis.cost.cache_model import MIN_PREFIX

    cache_min = None if args.no_cache else (args.cache_min or MIN_PREFIX)
    estimate = estimate_plans(_plans(args), table, chars_per_token=args.chars_per_token, cache_min=cache_min)
    if args.format == "json":
        print(json.dumps({k: v for k, v in estimate.items()}, indent=1, default=str))
    else:
        print("\n".join(estimate_lines(estimate)))
    return 0


def _plans(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The run's games as the plugin would plan them (run.plan.plan_game)."""
    from pytest_gameeval.analysis.cost.estimate import replayed_gate_games, seat_models
    from pytest_gameeval.engine.key_values import key_value_pairs
    from pytest_gameeval.games.registry import GAMES
    from pytest_gameeval.run.plan import gate_metrics, plan_game, score_keys, selected_specs
    from pytest_gameeval.run.settings import Settings

    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise GameEvalError(f"--games: unknown game(s) {', '.join(unknown)}; known games: {', '.join(sorted(GAMES))}")
    roles = dict(key_value_pairs(args.role, "--role"))
    settings = Settings(model=args.model, roles=roles, games=games, trials=max(1, args.trials),
                        limit=max(0, args.limit), seed=args.seed,
                        option_overrides=key_value_pairs(args.options, "--option"))
    specs = selected_specs(settings)
    settings.check_overrides(specs)
    known = set().union(*(s.bindable_roles() for s in specs))
    for role in roles:  # as the plugin: a role no selected game has is a typo, not a free seat
        if role.split("[")[0] not in known:
            raise GameEvalError(f"--role {role}: no selected game has this model role; "
                                f"roles: {', '.join(sorted(known))}")
    baseline = _baseline(args.baseline)
    plans = []
    for spec in specs:
        plan = plan_game(spec, settings)
        entry: dict[str, Any] = {"spec": spec, "options": plan.options, "games": len(plan.cases),
                                 "model_of": seat_models(spec, plan.options, args.model, roles)}
        if baseline is not None and spec.name in baseline["games"]:
            from pytest_gameeval.analysis.report.file import cases_of

            metrics = gate_metrics(spec, score_keys(spec), settings)
            base = cases_of(baseline, spec.name)
            entry["gate"] = (replayed_gate_games(spec.name, metrics, settings.gate, base, len(plan.cases)),
                             len(plan.cases))
        plans.append(entry)
    return plans


def _baseline(path: str | None) -> dict[str, Any] | None:
    if not path:
        return None
    from pytest_gameeval.analysis.report.file import read_report

    return read_report(Path(path))
