"""`gameeval arena`: GameArena's live games (Akinator, Taboo, Bluffing) played by people in a
browser against served models, every move stored in a database (docs/arena.md)."""
