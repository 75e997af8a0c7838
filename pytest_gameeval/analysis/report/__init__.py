"""The report, the JSON a pytest-gameeval session writes, and everything that handles it as a
file: atomic writing, redaction, validated reading, the records file's seal, comparability, the diff
(`file.py`); its JSON Schema (`schema.json`, `schema.py`); one game's entry of it (`game.py`,
`measures.py`, `prompt_digest.py`); one report from the slices of a run (`merge.py`); the records
file beside it (`records.py`). It may import the layers below analysis and the rooms below it,
`verdicts/` (each game's verdict in a diff) and `cost/` (a game's usage, a merged run's cost);
never `rejudge/` or `rankings/`, which read and write reports through it."""
