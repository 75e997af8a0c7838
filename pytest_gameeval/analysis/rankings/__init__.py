"""Models against each other: two models compared game by game (`compare.py`, `gameeval
compare`), tournaments and their ratings (`tournament.py`), the static leaderboard
(`leaderboard.py`) and measurement validity (`validity.py`). The top room of analysis/: it may
import the layers below analysis and the rooms `report/`, `verdicts/` and `cost/`; not `rejudge/`
beside it. Only the front ends (pytest_plugin, arena, cli) import it."""
