"""What the three GameArena games (akinator, taboo, bluffing) share: the user seat, prompt variants
and the retrospective probe (rules.py), their metrics (metrics.py) and their common doc (README.md).
Not a game itself: it is not in the registry."""
