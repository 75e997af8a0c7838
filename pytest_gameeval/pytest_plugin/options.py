"""The plugin's command-line options and ini keys, and the run's Settings built from them.

Imported by every pytest run: nothing heavy here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_gameeval.backends.local_weights import canonical_local_model
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.key_values import key_value_pairs
from pytest_gameeval.fresh.resolve import is_fresh
from pytest_gameeval.games.registry import GAMES
from pytest_gameeval.run.settings import GateConfig, Settings, gate_metric_option, parse_scalar, parse_slice
from pytest_gameeval.transport.retry_defaults import ATTEMPT_TIMEOUT, MAX_RETRIES, TIMEOUT

DEFAULT_REPORT = "reports/gameeval-report.json"

# (flag, ini name, ini type, default, help); the command line wins over the ini file
_OPTIONS: list[tuple[str, str, str | None, Any, str]] = [
    (
        "--gameeval-model",
        "gameeval_model",
        "string",
        None,
        "inspect model under evaluation, e.g. openai/gpt-4o-mini, gameeval/local",
    ),
    (
        "--gameeval-role",
        "gameeval_roles",
        "linelist",
        [],
        "bind a model role: NAME=MODEL (repeatable); an unbound role is played by the game's reference policy where "
        "it has one (opponents=reference), else by the evaluated model",
    ),
    (
        "--gameeval-model-arg",
        "gameeval_model_args",
        "linelist",
        [],
        "NAME=VALUE passed to every model the plugin creates, like inspect's -M (repeatable); timeout and "
        "max_retries set inspect's attempt timeout and retries instead of the SDK client's",
    ),
    (
        "--gameeval-games",
        "gameeval_games",
        "string",
        "",
        "comma-separated subset of games (default: every registered game)",
    ),
    ("--gameeval-trials", "gameeval_trials", "string", "1", "trials (epochs) per dataset row"),
    ("--gameeval-limit", "gameeval_limit", "string", "0", "play only the first N rows of each game (0: all)"),
    ("--gameeval-seed", "gameeval_seed", "string", "0", "base seed of every game"),
    (
        "--gameeval-protocol",
        "gameeval_protocol",
        "string",
        "",
        "default|paper: every game in the paper's setting and metric definitions (docs/fidelity.md); same as "
        "--gameeval-option protocol=paper",
    ),
    (
        "--gameeval-option",
        "gameeval_options",
        "linelist",
        [],
        "game option [GAME.]NAME=VALUE, as the inspect task arguments (repeatable)",
    ),
    (
        "--gameeval-data",
        "gameeval_data",
        "linelist",
        [],
        "GAME=FILE: your own data file for a game, like -T data=FILE (repeatable; relative to the current directory, "
        "in the ini file to the rootdir)",
    ),
    (
        "--gameeval-report",
        "gameeval_report",
        "string",
        DEFAULT_REPORT,
        "report JSON path (relative to the rootdir); records go beside it",
    ),
    ("--gameeval-baseline", "gameeval_baseline", "string", "", "baseline report: gate this run against it"),
    ("--gameeval-concurrency", "gameeval_concurrency", "string", "32", "games in flight per process"),
    (
        "--gameeval-max-connections",
        "gameeval_max_connections",
        "string",
        "0",
        "concurrent calls per model (inspect's max_connections; 0: the provider's default)",
    ),
    (
        "--gameeval-max-retries",
        "gameeval_max_retries",
        "string",
        str(MAX_RETRIES),
        "retries of a failed model call (inspect's --max-retries): 429, 5xx, refused connections, timed-out attempts",
    ),
    (
        "--gameeval-timeout",
        "gameeval_timeout",
        "string",
        str(TIMEOUT),
        "seconds a model call may take with its retries (inspect's --timeout); then the game is a harness error",
    ),
    (
        "--gameeval-attempt-timeout",
        "gameeval_attempt_timeout",
        "string",
        str(ATTEMPT_TIMEOUT),
        "seconds one attempt of a model call may take before it is retried (inspect's --attempt-timeout)",
    ),
    (
        "--gameeval-shard",
        "gameeval_shard",
        "string",
        "",
        "K/N: play only the K-th of N slices of the selected cases (one machine's share; gameeval report merge joins "
        "the slices' reports)",
    ),
    (
        "--gameeval-shard-size",
        "gameeval_shard_size",
        "string",
        "0",
        "cases played together by one process (0: the concurrency)",
    ),
    ("--gameeval-cache", "gameeval_cache", "bool", False, "cache model calls with inspect's cache"),
    (
        "--gameeval-fast-path",
        "gameeval_fast_path",
        "bool",
        True,
        "send a chat request's messages past the openai SDK's client-side walk of them, byte for byte the same body "
        "(on by default; transport/fast_path.py, docs/performance.md)",
    ),
    (
        "--gameeval-only",
        "gameeval_only",
        "bool",
        False,
        "run only the game cases: collect no test files (e.g. for a CI gate)",
    ),
    (
        "--gameeval-summary-md",
        "gameeval_summary_md",
        "string",
        "",
        "also write the summary as markdown to this file (a PR comment; appended to $GITHUB_STEP_SUMMARY when set)",
    ),
    (
        "--gameeval-resume",
        "gameeval_resume",
        "bool",
        False,
        "reuse the games a killed run of the same cases finished (its journal beside the report)",
    ),
    ("--gameeval-gate-alpha", "gameeval_gate_alpha", "string", "0.05", "gate: false-alarm rate per game"),
    (
        "--gameeval-gate-beta",
        "gameeval_gate_beta",
        "string",
        "0.1",
        "gate: error rate of calling a metric 'same' when it is worse beyond its tolerance",
    ),
    (
        "--gameeval-gate-tolerance",
        "gameeval_gate_tolerance",
        "string",
        "0.1",
        "gate: a change within +-this is 'same' (metric units)",
    ),
    ("--gameeval-gate-looks", "gameeval_gate_looks", "string", "4", "gate: looks (interim analyses) per game"),
    (
        "--gameeval-gate-allow-missing",
        "gameeval_gate_allow_missing",
        "bool",
        False,
        "gate: a game missing from the baseline does not fail the gate",
    ),
    (
        "--gameeval-allow-version-change",
        "gameeval_allow_version_change",
        "bool",
        False,
        "gate against a baseline played with another version of a game (the game changed, not only the model; said on "
        "the verdict line)",
    ),
    (
        "--gameeval-gate-metric",
        "gameeval_gate_metrics",
        "linelist",
        [],
        "gate: also gate GAME.METRIC=higher|lower[:TOLERANCE] beside the headline, or GAME.METRIC=ignore (repeatable)",
    ),
]

# help of each on/off option's --gameeval-no-... flag, which turns off what the ini file turned on;
# said for each, since "do not" + the flag's own help reads wrong for most of them
_NEGATED_HELP = {
    "--gameeval-cache": "do not cache model calls (overrides gameeval_cache = true in the ini file)",
    "--gameeval-fast-path": "let the openai SDK walk every request's messages itself, as without pytest-gameeval "
                            "(the fast path off; also GAMEEVAL_FAST_PATH=0)",
    "--gameeval-only": "collect test files as usual beside the game cases (overrides gameeval_only = true in the ini "
                       "file)",
    "--gameeval-resume": "play every case afresh, not reusing a killed run's journal (overrides gameeval_resume = "
                         "true in the ini file)",
    "--gameeval-gate-allow-missing": "gate: a game missing from the baseline fails the gate (overrides "
                                     "gameeval_gate_allow_missing = true in the ini file)",
    "--gameeval-allow-version-change": "refuse a baseline played with another version of a game: one error line "
    "(overrides gameeval_allow_version_change = true in the ini file)",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gameeval", "pytest-gameeval: LLMs playing games")
    for flag, ini, ini_type, default, help_text in _OPTIONS:
        dest = ini
        if ini_type == "linelist":
            group.addoption(flag, action="append", dest=dest, default=None, metavar="NAME=VALUE", help=help_text)
        elif ini_type == "bool":
            group.addoption(flag, action="store_true", dest=dest, default=None, help=help_text)
            group.addoption(
                flag.replace("--gameeval-", "--gameeval-no-"), action="store_false", dest=dest, help=_NEGATED_HELP[flag]
            )
        else:
            group.addoption(flag, dest=dest, default=None, help=help_text)
        parser.addini(ini, help_text, type=ini_type, default=default)  # type: ignore[arg-type]


def option_value(config: pytest.Config, name: str) -> Any:
    given = config.getoption(name, None)
    return config.getini(name) if given is None else given


def _number(config: pytest.Config, name: str, kind: type, low: float) -> Any:
    raw = option_value(config, name)
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise GameEvalError(f"{name.replace('_', '-')}={raw!r} must be a {kind.__name__}") from None
    if value < low:
        raise GameEvalError(f"{name.replace('_', '-')}={raw!r} must be at least {low}")
    return value


def _data_overrides(config: pytest.Config) -> list[tuple[str, str]]:
    """--gameeval-data GAME=FILE as the game option GAME.data=<absolute path>."""
    given = config.getoption("gameeval_data", None)
    base = config.invocation_params.dir if given is not None else config.rootpath
    out = []
    for game, file in key_value_pairs(
        list(given if given is not None else config.getini("gameeval_data") or []), "--gameeval-data"
    ):
        if game not in GAMES:
            raise GameEvalError(
                f"--gameeval-data {game}={file}: unknown game {game!r}; known games: {', '.join(sorted(GAMES))}"
            )
        # fresh:SEED names a fresh case set (docs/fresh-cases.md), not a file: Settings.game_options draws it
        out.append((f"{game}.data", file.strip() if is_fresh(file) else str(base / Path(file).expanduser())))
    return out


def _protocol(config: pytest.Config) -> list[tuple[str, str]]:
    """--gameeval-protocol as the option it stands for (a later --gameeval-option still wins)."""
    protocol = str(option_value(config, "gameeval_protocol") or "").strip()
    return [("protocol", protocol)] if protocol else []


def settings_from_config(config: pytest.Config) -> Settings:
    games = [g.strip() for g in str(option_value(config, "gameeval_games") or "").split(",") if g.strip()]
    alpha = _number(config, "gameeval_gate_alpha", float, 0.0)
    beta = _number(config, "gameeval_gate_beta", float, 0.0)
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise GameEvalError("--gameeval-gate-alpha and --gameeval-gate-beta must be between 0 and 0.5")
    model_args = {
        k: parse_scalar(v)
        for k, v in key_value_pairs(list(option_value(config, "gameeval_model_args") or []), "--gameeval-model-arg")
    }
    model = option_value(config, "gameeval_model") or None
    roles = dict(key_value_pairs(list(option_value(config, "gameeval_roles") or []), "--gameeval-role"))
    local_paths: dict[str, str] = {}

    def canonical(name: str) -> str:  # a local GGUF is named by its identity (file name + short sha256)
        identity, path = canonical_local_model(name, model_args)
        if path is not None:
            local_paths[identity] = str(path)
        return identity

    settings = Settings(
        model=canonical(model) if model else None,
        roles={role: ",".join(canonical(m.strip()) for m in bound.split(",")) for role, bound in roles.items()},
        model_args=model_args,
        local_paths=local_paths,
        games=games,
        trials=_number(config, "gameeval_trials", int, 1),
        limit=_number(config, "gameeval_limit", int, 0),
        seed=_number(config, "gameeval_seed", int, 0),
        option_overrides=(
            _protocol(config)
            + key_value_pairs(list(option_value(config, "gameeval_options") or []), "--gameeval-option")
            + _data_overrides(config)
        ),
        concurrency=_number(config, "gameeval_concurrency", int, 1),
        shard_size=_number(config, "gameeval_shard_size", int, 0),
        max_connections=_number(config, "gameeval_max_connections", int, 0),
        max_retries=_number(config, "gameeval_max_retries", int, 0),
        timeout=_number(config, "gameeval_timeout", int, 1),
        attempt_timeout=_number(config, "gameeval_attempt_timeout", int, 1),
        cache=bool(option_value(config, "gameeval_cache")),
        slice=parse_slice(str(option_value(config, "gameeval_shard") or "").strip()),
        gate=GateConfig(
            alpha=alpha,
            beta=beta,
            tolerance=_number(config, "gameeval_gate_tolerance", float, 0.0),
            looks=_number(config, "gameeval_gate_looks", int, 1),
            allow_missing=bool(option_value(config, "gameeval_gate_allow_missing")),
            allow_version_change=bool(option_value(config, "gameeval_allow_version_change")),
        ),
        gate_metrics=gate_metric_option(list(option_value(config, "gameeval_gate_metrics") or [])),
    )
    return settings


def _value_flags(config: pytest.Config) -> set[str]:
    """Every --gameeval-* option that takes a value, whichever of our modules registered it
    (spend.py registers --gameeval-cost-config and --gameeval-budget)."""
    flags = set()
    for group in config._parser._groups:
        for opt in group.options:
            if opt.attrs().get("action") in ("store_true", "store_false", "count"):
                continue
            flags.update(n for n in opt.names() if n.startswith("--gameeval-"))
    return flags


def rootdir_moved(config: pytest.Config) -> str | None:
    """pytest picks its rootdir and ini file before plugins add their options, so the value of a
    two-word option ("--gameeval-baseline /abs/base.json") counts as a test path there: outside the
    project it moves the rootdir, and the project's ini settings are silently not read. Why, when
    that happened (the setup pytest would pick knowing our options differs from the one it took)."""
    from _pytest.config.findpaths import determine_setup

    args = [str(a) for a in config.invocation_params.args]
    flags = _value_flags(config)
    split = [(a, args[i + 1]) for i, a in enumerate(args[:-1]) if a in flags]
    if not split:
        return None
    try:
        ns = config._parser.parse_known_args(args)
        rootpath, inipath, *_ = determine_setup(
            inifile=ns.inifilename,
            override_ini=ns.override_ini,
            args=ns.file_or_dir,
            rootdir_cmd_arg=ns.rootdir or None,
            invocation_dir=config.invocation_params.dir,
        )
    except Exception:  # pytest internals changed: no check rather than a false alarm
        return None
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return None
    paths = [(f, v) for f, v in split if (config.invocation_params.dir / v).exists()]
    flag, value = (paths or split)[0]
    return (
        f"{flag} {value} (two words) made pytest take {value} for a test path: rootdir {config.rootpath} instead of "
        f"{rootpath}, so {inipath or 'the project ini file'} was not read; write {flag}={value}"
    )
