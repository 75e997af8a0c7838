"""Analyses over many records and reports: report JSON and diff, the regression gate, tournaments
and ratings, measurement validity, the AGE topic analysis. Front ends call these; the engine,
games, players and metrics never do."""
