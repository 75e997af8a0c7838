"""The run's core, under every front that plays cases (issue 63): what a front needs to plan and
play a set of cases and keep them safe, with no front in sight.

- `settings.py`: a run's settings and the shard layout (cheap to import);
- `plan.py`: the cases of each game, their plans and slices, the metrics a gate judges;
- `runner.py`: models by string, cases played many at once, the gated play in looks, resume;
- `journal.py`: each finished game appended as it ends, and read back to resume;
- `budget.py`: the run's spend and budget, one SQLite ledger every process shares;
- `provider_stop.py`: a provider that cannot answer stops the run;
- `report_lock.py`: one run at a time writes a report;
- `exit_codes.py`: the exit codes beside pytest's own.

No module here imports pytest (or xdist): the pytest plugin (pytest_plugin/) and the `gameeval` CLI
(cli/) both import this room, never each other. May import engine/, transport/, games/, fresh/,
inspect_ext/ and analysis/; never a front (pytest_plugin/, cli/, arena/).
"""
