"""The history of runs (issue 58): a store of whole runs (report + records + what a reader needs to
pick one) on any fsspec URL (`store.py`), the baseline a new run is gated against (`choose.py`),
many runs read as a trend with a verdict between each consecutive pair (`trend.py`, `plot.py`, and
one HTML page of them, `page.py`), and rows for pandas (`rows.py`). It may import the layers below
analysis and the rooms `verdicts/`
(the gate's own statistics) and `report/` (reading, checking and comparing reports); never pytest,
never a front end: the pytest plugin (`pytest_plugin/history.py`) and the `gameeval history`
command (`cli/history.py`) call it."""
