"""A game's verdict between two runs, and the gate: the statistics that test each metric
(`judge.py`, with the distribution-free bounds of `bounds.py`), the one place a game's verdict is
decided (`game.py`: `decide` returns a `GameVerdict`), the group-sequential gate and its settings
(`gate.py`, `gate_config.py`), and how verdicts read (`table.py`, `gate_table.py`). The ground room
of analysis/: it imports the layers below analysis (the engine, metrics, games) and no other room;
`cost/` beside it reaches it only through the interface tests/test_layout.py declares (the estimate
of a gated run replays the gate's looks through `gate.py`), and it never imports `cost/`."""
