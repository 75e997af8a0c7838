"""What a run cost: a price table in inspect's `--model-cost-config` format, and the cost of every
case, seat, model, game and run from the token usage the records already hold.

The price table is the file inspect reads with `inspect eval --model-cost-config FILE` (YAML or
JSON): a mapping of model name to `input`, `output`, `input_cache_write` and `input_cache_read`,
each in USD per million tokens. inspect requires all four (its `ModelCost` has no defaults), so
we do too: one file serves both front ends.

A model with no price is never priced 0: its seats' cost is None, the totals say they cover
the priced seats only, and the model is named once. Our own players cost nothing by declaration
(the scripted policies and the embedded llama.cpp model make no API call) and are listed as such,
unless the table prices them. A seat's usage holds every token the provider billed, as inspect's
`ModelUsage` gives them (transport/usage.py): `input_tokens` (the prompt tokens not served from or
written to its cache), `output_tokens`, and where the provider reported them
`input_tokens_cache_read`, `input_tokens_cache_write` and `reasoning_tokens` (part of the output,
not priced again). A usage without a key (older reports, providers without caching) counts it 0.

Light on purpose (yaml only): the pytest plugin imports it when a price table is given.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from pytest_gameeval.engine.errors import GameEvalError

PRICE_FIELDS = ("input", "output", "input_cache_write", "input_cache_read")
# a seat's usage in a record, in Price.usd's order (the cache counts only where a provider reports them)
TOKEN_KEYS = ("input_tokens", "output_tokens", "input_tokens_cache_read", "input_tokens_cache_write")
# every count a seat's usage may hold, summed wherever usages are (cases, games, runs)
USAGE_KEYS = (*TOKEN_KEYS, "reasoning_tokens", "calls")
FORMAT_HINT = ("inspect's --model-cost-config format: MODEL: {input: USD, output: USD, input_cache_write: USD, "
               "input_cache_read: USD}, per million tokens")
# our own providers make no API call: free unless the table prices them
FREE_PREFIXES = {"gameeval/scripted": "scripted policy, no API call", "gameeval/local": "embedded model, no API call"}


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    input_cache_write: float = 0.0
    input_cache_read: float = 0.0

    def usd(self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0) -> float:
        return (input_tokens * self.input + output_tokens * self.output + cache_read * self.input_cache_read
                + cache_write * self.input_cache_write) / 1_000_000


@dataclass(frozen=True)
class PriceTable:
    prices: Mapping[str, Price]
    source: str = ""

    def price(self, model: str) -> Price | None:
        """The model's price: by its name, or a local GGUF's identity without its `@sha`; our own
        providers are free unless priced; None when the table has no price for it."""
        for name in (model, model.split("@")[0]):
            if name in self.prices:
                return self.prices[name]
        return Price(0.0, 0.0) if free_reason(model) else None


    def is_free(self, model: str) -> bool:
        """One of our own providers, and not priced by the table."""
        return bool(free_reason(model)) and model not in self.prices and model.split("@")[0] not in self.prices


def free_reason(model: str) -> str | None:
    """Why a model costs nothing (one of our own providers), or None."""
    return next((why for prefix, why in FREE_PREFIXES.items() if model == prefix or model.startswith(prefix + "/")),
                None)


def load_prices(path: str | Path) -> PriceTable:
    """Read a price table; any problem is one GameEvalError line naming the file and what is wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise GameEvalError(f"price table {path}: cannot read ({e.strerror or e})") from None
    try:
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as e:  # json or yaml syntax: first line of its message
        raise GameEvalError(f"price table {path}: not JSON or YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(data, dict) or not data:
        raise GameEvalError(f"price table {path}: expected a mapping of model names; {FORMAT_HINT}")
    return PriceTable({str(model): _price(path, str(model), entry) for model, entry in data.items()}, str(path))


def _price(path: Path, model: str, entry: Any) -> Price:
    if not isinstance(entry, dict):
        raise GameEvalError(f"price table {path}: {model}: expected a mapping of prices; {FORMAT_HINT}")
    missing = [k for k in PRICE_FIELDS if k not in entry]
    unknown = sorted(set(entry) - set(PRICE_FIELDS))
    if missing or unknown:
        what = f"missing {', '.join(missing)}" if missing else f"unknown field {', '.join(map(str, unknown))}"
        raise GameEvalError(f"price table {path}: {model}: {what}; {FORMAT_HINT}")
    values = {}
    for k in PRICE_FIELDS:
        v = entry[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise GameEvalError(f"price table {path}: {model}.{k}={v!r}: must be a number of USD per million tokens, "
                                f"at least 0")
        values[k] = float(v)
    return Price(**values)


# -- costing a run ----------------------------------------------------------------------------------


def case_cost(entry: Mapping[str, Any], table: PriceTable) -> dict[str, Any] | None:
    """One case's cost from its report entry (`usage` and `seats`): per seat, and the case's total
    (None when a seat's model has no price). None for a case that played nothing."""
    usage, seats = entry.get("usage") or {}, entry.get("seats") or {}
    if not usage:
        return None
    out: dict[str, Any] = {}
    for seat, used in usage.items():
        who = seats.get(seat) or {}
        who = {"model": who} if isinstance(who, str) else who  # compare's entries name the model only
        model = who.get("model", "?")
        price = table.price(model)
        tokens = {k: used.get(k, 0) for k in TOKEN_KEYS}
        usd = None if price is None else price.usd(*tokens.values())
        reasoning = {"reasoning_tokens": used["reasoning_tokens"]} if used.get("reasoning_tokens") else {}
        out[seat] = {"model": model, "role": who.get("role"), "usd": usd, **tokens, **reasoning,
                     "calls": used.get("calls", 0)}
    costs = [s["usd"] for s in out.values()]
    return {"usd": None if None in costs else sum(costs), "seats": out}


def add_usage(into: dict[str, Any], used: Mapping[str, Any]) -> None:
    """Add one usage's counts into a running sum (a key it lacks counts 0; a count no usage had is
    left out of the sum, so a run without caching sums as before)."""
    for k in USAGE_KEYS:
        if used.get(k) or k in ("input_tokens", "output_tokens", "calls"):
            into[k] = into.get(k, 0) + (used.get(k) or 0)


def _add(into: dict[str, Any], seat: Mapping[str, Any]) -> None:
    add_usage(into, seat)
    for k in TOKEN_KEYS:  # a cost's sums keep all four priced counts, as before
        into.setdefault(k, 0)
    if seat["usd"] is not None:
        into["usd"] = into.get("usd", 0.0) + seat["usd"]
    else:
        into.setdefault("usd", None)


def totals(costs: Iterable[Mapping[str, Any] | None]) -> dict[str, Any]:
    """Totals over cases' costs: by model, by seat (name, role and model), the priced total, the
    per-game spread, and the models with no price."""
    by_model: dict[str, dict[str, Any]] = {}
    by_seat: dict[str, dict[str, Any]] = {}
    per_game: list[float] = []
    for cost in costs:
        if cost is None:
            continue
        if cost["usd"] is not None:
            per_game.append(cost["usd"])
        for seat, c in cost["seats"].items():
            _add(by_model.setdefault(c["model"], {}), c)
            _add(by_seat.setdefault(f"{seat} ({c['role']}) {c['model']}", {}), c)
    unpriced = sorted(m for m, c in by_model.items() if c.get("usd") is None)
    priced = sum(c["usd"] for c in by_model.values() if c.get("usd") is not None)
    return {"usd": priced, "complete": not unpriced, "unpriced": unpriced, "games_priced": len(per_game),
            "per_game": spread(per_game), "by_model": by_model, "by_seat": by_seat,
            # our own providers, unless the table priced them
            "free": {m: free_reason(m) for m, c in by_model.items() if free_reason(m) and c.get("usd") == 0}}


def spread(values: list[float]) -> dict[str, float] | None:
    """Mean and the 10th and 90th percentiles (numpy's linear interpolation), or None."""
    if not values:
        return None
    import numpy as np

    p10, p90 = np.percentile(values, [10, 90])
    return {"mean": float(np.mean(values)), "p10": float(p10), "p90": float(p90)}


def price_report(report: dict[str, Any], table: PriceTable) -> dict[str, Any]:
    """Add `cost` to every case and game of a report (plugin form) and the run's `cost`; returns it."""
    for case in report["cases"]:
        cost = case_cost(case, table)
        if cost is not None:
            case["cost"] = cost
    for name, game in report["games"].items():
        game["cost"] = totals(c.get("cost") for c in report["cases"] if c["game"] == name)
    run = totals(c.get("cost") for c in report["cases"])
    run["prices"] = table.source
    report["cost"] = run
    return run


def usd(value: float | None) -> str:
    """A cost for people: enough digits for fractions of a cent."""
    if value is None:
        return "unknown"
    if value == 0:
        return "$0"
    if value < 0.01:
        return f"${value:.6f}"
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def tokens_text(c: Mapping[str, Any]) -> str:
    """'N in, N out' and the cache's reads and writes where there were any."""
    text = f"{c['input_tokens']:,} in, {c['output_tokens']:,} out"
    if c.get("input_tokens_cache_read"):
        text += f", {c['input_tokens_cache_read']:,} cache read"
    if c.get("input_tokens_cache_write"):
        text += f", {c['input_tokens_cache_write']:,} cache write"
    return text


def cost_line(cost: Mapping[str, Any], label: str = "cost") -> str:
    """One line: the total, by model, and the models with no price (named once)."""
    models = ", ".join(f"{m} {usd(c.get('usd'))} ({tokens_text(c)}, {c['calls']} calls)"
                       for m, c in sorted(cost["by_model"].items()) if m not in cost["free"])
    line = f"{label}: {usd(cost['usd'])}" + (f" = {models}" if models else "")
    if cost["free"]:
        line += "; free: " + ", ".join(f"{m} ({why})" for m, why in sorted(cost["free"].items()))
    if cost["unpriced"]:
        line += (f"; NO PRICE for {', '.join(cost['unpriced'])} (not counted: the total covers priced models only; "
                 f"add it to the price table)")
    return line
