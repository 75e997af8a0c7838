"""Analyses over many records and reports, in rooms by concern (issue 55; docs/architecture.md):
`verdicts/` (each metric's test, a game's verdict, the gate) and `cost/` (prices, spend, estimates)
side by side and apart, `report/` (the report file) over both, and `rejudge/` (records judged again)
and `rankings/` (compare, tournaments, the leaderboard, validity) over the report. Each room's
docstring says what it owns and what it may import; tests/test_layout.py holds the table. This
folder holds only the rooms. Front ends call these; the engine, games, players and metrics never do."""
