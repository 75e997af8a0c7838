"""Cost before a run: the calls, tokens and cost of a planned run, from each game's token profile by
round (analysis/cost/profile.py, shipped with the package) and the models' prices.

Per game the plan has n games (cases x trials). Each measured game of the profile is cut at the
plan's `max_rounds` and priced with the models the plan seats in each role, which gives one
measured game's calls, tokens and cost; over the measured games that is a spread. The estimate of
the game is n x the mean, its range n x the 10th and n x the 90th percentile: a model's games are
alike (a weak questioner plays every game to the last round, a strong one ends them early), so
the run's total moves with the kind of game the model plays, not only with chance, and the range
says how far. For a gated game the gate's expected case is the games it needs when the new run
replays its baseline's games (an unchanged model), its worst case every planned game at the 90th
percentile.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from pytest_gameeval.analysis.cost.cache_model import MIN_PREFIX, split_prompt, style_of
from pytest_gameeval.analysis.cost.prices import PriceTable, spread, usd

MEASURES = ("calls", "input_tokens", "output_tokens", "input_tokens_cache_read", "input_tokens_cache_write", "usd")


def measured_games(profile: Mapping[str, Any], max_rounds: int | None, model_of: Callable[[str], str],
                   table: PriceTable | None, chars_per_token: float, cache_min: int | None = MIN_PREFIX
                   ) -> list[dict[str, Any]]:
    """Each measured game, cut at `max_rounds`, as calls, tokens and cost (usd None: a model has no
    price); per model as well. With `cache_min` (tokens), prompts are billed as the model's provider
    caches them (analysis/cost/cache_model.py); None: no caching."""
    table_ = table if table is not None else PriceTable({})  # no table: only our own players are priced (0)
    return [_measured_game(_model_tokens(game, max_rounds, model_of, chars_per_token, cache_min), table_)
            for game in profile["games"]]


def _model_tokens(game: Mapping[str, Any], max_rounds: int | None, model_of: Callable[[str], str],
                  chars_per_token: float, cache_min: int | None) -> dict[str, list[float]]:
    """model -> [calls, input, output, cache read, cache write] tokens of one measured game."""
    models: dict[str, list[float]] = {}
    previous: dict[str, float] = {}  # role -> its last prompt (tokens a call)
    for rnd, roles in sorted(extended(game, max_rounds).items(), key=lambda kv: int(kv[0])):
        if max_rounds is not None and int(rnd) > max_rounds:
            continue
        for role, (calls, sent, replied) in roles.items():
            model = model_of(role)
            prompt = sent / chars_per_token / max(calls, 1)
            split = (prompt, 0.0, 0.0) if cache_min is None else split_prompt(
                prompt, previous.get(role, 0.0), style_of(model), cache_min)
            previous[role] = prompt
            cell = models.setdefault(model, [0, 0.0, 0.0, 0.0, 0.0])
            for i, n in enumerate((calls, split[0] * calls, replied / chars_per_token, split[1] * calls,
                                   split[2] * calls)):
                cell[i] += n
    return models


def _measured_game(models: Mapping[str, list[float]], table: PriceTable) -> dict[str, Any]:
    prices = {m: table.price(m) for m in models}
    # calls and tokens billed by an API: not our own players, unless the table prices them
    api = {m: c for m, c in models.items() if not table.is_free(m)}
    costs = [None if prices[m] is None else prices[m].usd(*(int(x) for x in c[1:])) for m, c in models.items()]
    keys = MEASURES[:-1]
    return {**{k: sum(c[i] for c in api.values()) for i, k in enumerate(keys)},
            "usd": None if None in costs else sum(costs),
            "by_model": {m: dict(zip(keys, c)) for m, c in models.items()}}


def extended(game: Mapping[str, Any], max_rounds: int | None) -> dict[str, Any]:
    """A measured game's rounds for a plan of `max_rounds`. A game that ran out of its rounds (it
    was measured with fewer than the plan allows) is continued as it went: each role one more call
    a round, its prompt growing by what it grew per round while measured, its reply as long as on
    average (prompts grow with the history, so a cut game would understate a longer one)."""
    rounds = {int(r): v for r, v in game["rounds"].items() if max_rounds is None or int(r) <= max_rounds}
    measured_with = game.get("max_rounds")
    if max_rounds is None or not measured_with or measured_with >= max_rounds or max(rounds, default=0) < measured_with:
        return rounds
    first, last = min(rounds), max(rounds)
    out = dict(rounds)
    for role in rounds[last]:
        if role not in rounds[first] or last == first:
            continue
        calls, sent, replied = rounds[last][role]
        growth = (sent / calls - rounds[first][role][1] / rounds[first][role][0]) / (last - first)
        reply = sum(v[role][2] for v in rounds.values() if role in v) / sum(v[role][0] for v in rounds.values()
                                                                          if role in v)
        for r in range(last + 1, max_rounds + 1):
            out.setdefault(r, {})[role] = [1, sent / calls + growth * (r - last), reply]
    return out


def estimate_game(name: str, n_games: int, samples: Sequence[Mapping[str, Any]],
                  gate_games: tuple[int, int] | None = None) -> dict[str, Any]:
    """A game's estimate: per measured game the mean and 10th/90th percentiles of each measure, the
    run's expected total and range (n x those), and for a gated game its expected and worst case."""
    entry: dict[str, Any] = {"game": name, "games": n_games, "measured": len(samples), "per_game": {}, "total": {}}
    for key in MEASURES:
        values = [s[key] for s in samples if s[key] is not None]
        per = spread(values) if values and len(values) == len(samples) else None
        entry["per_game"][key] = per
        entry["total"][key] = None if per is None else {k: v * n_games for k, v in per.items()}
    unpriced: set[str] = set()
    for s in samples:
        if s["usd"] is None:
            unpriced.update(s["by_model"])
    entry["models"] = sorted({m for s in samples for m in s["by_model"]})
    if gate_games is not None:
        expected, worst = gate_games
        per = entry["per_game"]["usd"]
        entry["gate"] = {"expected_games": expected, "worst_games": worst,
                         "expected_usd": None if per is None else expected * per["mean"],
                         "worst_usd": None if per is None else worst * per["p90"]}
    return entry


def replayed_gate_games(game: str, metrics: Sequence[Any], config: Any, base_cases: Sequence[Mapping[str, Any]],
                        n_cases: int) -> int:
    """Games the sequential gate needs when the new run replays its baseline's games one for one
    (an unchanged, deterministic model): its looks run on the baseline's own cases."""
    from pytest_gameeval.analysis.verdicts.gate import GameGate

    gate = GameGate.against(game, metrics, config, list(base_cases), n_cases)
    new = [dict(c) for c in base_cases][:n_cases]
    for end in gate.ends:
        gate.look(base_cases, new[:end], min(end, len(new)), last=end >= n_cases)
        if gate.stopped:
            break
    return gate.games_used or n_cases


def run_total(games: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The plan's totals: sums of each game's expected total and range (None where a game's is unknown)."""
    total: dict[str, Any] = {}
    for key in MEASURES:
        parts = [g["total"][key] for g in games]
        known = parts and None not in parts
        total[key] = {k: sum(p[k] for p in parts) for k in ("mean", "p10", "p90")} if known else None
    gated = [g["gate"] for g in games if "gate" in g]
    if gated:
        plain = [g["total"]["usd"] for g in games if "gate" not in g]
        rest = None if None in plain else sum(p["mean"] for p in plain)
        exp = [g["expected_usd"] for g in gated]
        worst = [g["worst_usd"] for g in gated]
        rest_worst = None if None in plain else sum(p["p90"] for p in plain)
        total["gate"] = {"expected_usd": None if None in exp or rest is None else sum(exp) + rest,
                         "worst_usd": None if None in worst or rest_worst is None else sum(worst) + rest_worst}
    return total


def _cached(total: Mapping[str, Any]) -> str:
    read, write = total.get("input_tokens_cache_read"), total.get("input_tokens_cache_write")
    text = f", {_fmt(read, 'n')} read from the cache" if read and read["mean"] else ""
    return text + (f", {_fmt(write, 'n')} written to it" if write and write["mean"] else "")


def _fmt(value: Mapping[str, float] | None, kind: str) -> str:
    if value is None:
        return "unknown (a model has no price)" if kind == "usd" else "unknown"
    if kind == "usd":
        return f"{usd(value['mean'])} (range {usd(value['p10'])} to {usd(value['p90'])})"
    return f"{value['mean']:,.0f} ({value['p10']:,.0f} to {value['p90']:,.0f})"


def estimate_lines(estimate: Mapping[str, Any]) -> list[str]:
    """The estimate for people: one line per game, the total, the gate's cases, unpriced models."""
    lines = [f"gameeval estimate (plays nothing; profiles of {estimate['profile_made']}, "
             f"{estimate['chars_per_token']:g} characters a token; range: 10th to 90th percentile of measured games; "
             "calls and tokens of API models, our own scripted and embedded players cost nothing; "
             f"assumes {estimate.get('caching', caching_text(None))}):"]
    for g in estimate["games"]:
        t = g["total"]
        lines.append(f"  {g['game']}: {g['games']} games x {_fmt(g['per_game']['calls'], 'n')} calls = "
                     f"{_fmt(t['calls'], 'n')} calls, {_fmt(t['input_tokens'], 'n')} input and "
                     f"{_fmt(t['output_tokens'], 'n')} output tokens{_cached(t)}, cost {_fmt(t['usd'], 'usd')}")
        if "gate" in g:
            gate = g["gate"]
            lines.append(f"    gate: expected {gate['expected_games']} games {usd(gate['expected_usd'])} (if the model "
                         f"replays its baseline), worst {gate['worst_games']} games {usd(gate['worst_usd'])}")
        if g.get("note"):
            lines.append(f"    {g['note']}")
    total = estimate["total"]
    lines.append(f"  total: {_fmt(total['calls'], 'n')} calls, cost {_fmt(total['usd'], 'usd')}")
    if "gate" in total:
        lines.append(f"  with the gate: expected {usd(total['gate']['expected_usd'])}, "
                     f"worst {usd(total['gate']['worst_usd'])}")
    if estimate["unpriced"]:
        lines.append(f"  NO PRICE for {', '.join(estimate['unpriced'])}: its cost is unknown "
                     "(add it to the price table)")
    return lines


def seat_models(spec: Any, options: Any, model: str, roles: Mapping[str, str]) -> Callable[[str], str]:
    """role -> the model a run seats in it (engine/seating.py decides, as for a real run): the
    evaluated model, a bound role's model, the game's reference policy, else self-play."""
    from pytest_gameeval.engine.seating import Seating
    from pytest_gameeval.games.registry import REFERENCE_MODEL

    bound: dict[str, Any] = {name: (m.split(",") if "," in m else m) for name, m in roles.items()}
    seats = Seating(spec, options, evaluated=model, bound=bound, reference=REFERENCE_MODEL, self_play=model,
                    flag="--role")
    return lambda role: str(seats.choose(role).plays)


def estimate_plans(plans: Sequence[Mapping[str, Any]], table: PriceTable | None,
                   profiles: Mapping[str, Any] | None = None, chars_per_token: float | None = None,
                   cache_min: int | None = MIN_PREFIX) -> dict[str, Any]:
    """The estimate of a planned run. Each plan: `spec`, `options` (typed), `games` (cases x trials),
    `model_of` (role -> model) and optionally `gate` (expected, worst games). `cache_min`: the
    providers' prompt caching from prefixes of that many tokens (None: no caching)."""
    from pytest_gameeval.analysis.cost.profile import load_profiles

    profiles = profiles if profiles is not None else load_profiles()
    cpt = chars_per_token or profiles["chars_per_token"]
    games, unpriced = [], set()
    for plan in plans:
        spec = plan["spec"]
        profile = profiles["games"].get(spec.name)
        if profile is None or not profile["games"]:
            games.append({"game": spec.name, "games": plan["games"], "measured": 0, "per_game": dict.fromkeys(MEASURES),
                          "total": dict.fromkeys(MEASURES), "models": [], "note": "no token profile for this game"})
            continue
        samples = measured_games(profile, getattr(plan["options"], "max_rounds", None), plan["model_of"], table, cpt,
                                 cache_min)
        entry = estimate_game(spec.name, plan["games"], samples, plan.get("gate"))
        if str(profile["version"]) != str(spec.version):
            entry["note"] = f"profile measured on version {profile['version']} of the game, this is {spec.version}"
        unpriced.update(m for m in entry["models"] if (table or PriceTable({})).price(m) is None)
        games.append(entry)
    return {"games": games, "total": run_total(games), "unpriced": sorted(unpriced),
            "chars_per_token": cpt, "profile_made": profiles.get("made"), "prices": table.source if table else None,
            "caching": caching_text(cache_min)}


def caching_text(cache_min: int | None) -> str:
    """Which caching an estimate assumed, in words."""
    if cache_min is None:
        return "no prompt caching (every prompt token at the input price)"
    return (f"the providers' prompt caching (a seat's previous prompt read from the cache from {cache_min:,} "
            "tokens; Anthropic-style writes for anthropic/ models)")
