"""What a run costs and will cost: price tables (inspect's format) and the cost of cases,
seats, models, games and runs (`prices.py`), the cost lines of summaries, diffs and merged reports
and the gate's savings (`report.py`), the estimate of a planned run (`estimate.py`, with the
prompt-cache model of `cache_model.py`) from each game's token profile by round, which `profile.py`
measures into `data/` (shipped with the package). Beside `verdicts/` in the layer table: it imports
the layers below analysis, and `verdicts/` only through declared interfaces (today
`estimate.py` -> `verdicts/gate.py`); nothing in `verdicts/` imports it; `report/` and
`rankings/` above it do."""
