"""The pytest front end: pytest's hooks only. Options and ini keys, collection of one item per game
case and each game's gate item, node ids, xdist's hooks and scheduler, pytest-timeout, the fixtures,
the report written at the session's end and the terminal summary, the store of runs' options.
Only the plugin module and what it imports load in every pytest run.

What a run plans and plays (settings, the plan, the runner, journal, budget, report lock, exit
codes) is run/, shared with the other fronts (issue 63). May import run/ and the rooms under it
(engine/, transport/, metrics/, games/, fresh/, backends/, analysis/); never another front (cli/,
arena/), nor inspect_ext/ but through run/."""
