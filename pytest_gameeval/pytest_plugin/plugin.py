"""The pytest plugin (entry point `gameeval`): game cases as pytest items, report, gate.

Without --gameeval-model (or `gameeval_model` in the ini file) every game case is collected
and skipped with the reason, and nothing else changes in the user's run.

Flow: pytest_configure reads settings (and the baseline) -> collection adds one item per case
(`gameeval::askguess[hard-apple-t0]`, marker `gameeval`) -> the first item of a shard plays the
whole shard concurrently (runner.Runner) -> each item reports its own case -> the process
that owns the session (xdist controller, or the single process) merges the cases, writes the
report atomically and applies the gate.

This module is the entry point only: pytest registers the modules below with it, one concern each.
Every one is imported by every pytest run, so none imports anything heavy (inspect, scipy and the
games' code load only when a model is given).
"""

from __future__ import annotations

# No import of the modules below here: pytest must import them itself (as plugins, with assertion
# rewriting) or it warns "Module already imported so cannot be rewritten" in every user's run.
pytest_plugins = [
    "pytest_gameeval.pytest_plugin.options",  # --gameeval-* options and ini keys -> Settings
    "pytest_gameeval.pytest_plugin.session",  # configure: inputs checked, journal, progress; unconfigure
    "pytest_gameeval.pytest_plugin.items",  # collection: one item per game case, shards played
    "pytest_gameeval.pytest_plugin.node_ids",  # game items' node ids on the command line select them
    "pytest_gameeval.pytest_plugin.fixtures",  # gameeval_settings, gameeval_play
    "pytest_gameeval.pytest_plugin.gate_items",  # each game's gate verdict as a test of its own
    "pytest_gameeval.pytest_plugin.report_writer",  # merge, report, gate, terminal summary
    "pytest_gameeval.pytest_plugin.timeouts",  # pytest-timeout's --timeout on game items: stop, keep the journal
    "pytest_gameeval.pytest_plugin.spend",  # prices, the estimate, the run's budget, the cost in the summary
    "pytest_gameeval.pytest_plugin.history",  # the store of runs: --gameeval-save/-autosave/-compare/-storage
]  # xdist_hooks: registered by session.pytest_configure when pytest-xdist is installed
