"""How a model call travels and is accounted: the fast path, the heap tuning, retries and their
defaults, provider errors, and the tokens a provider billed (usage).

Not a rule of any game: nothing here decides what a seat is shown or how its reply is read, so no
game's fingerprint covers it (engine/versions.py); the byte-identical-body tests
(tests/live/test_fast_path.py) guard that a request leaves as inspect would send it."""
