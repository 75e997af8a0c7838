"""The plugin's exit codes beside pytest's own (docs/live-apis.md lists them for CI scripts).

0 every case passed and the gate (if any) passed; 1 a case failed (a harness error) or the gate
failed (a game worse, or missing); 2 interrupted (Ctrl-C, SIGTERM); 3 pytest's internal error or a
report that cannot be written; 4 usage error (bad option, baseline that does not match).
"""

# The provider could not be used: a failure retrying cannot fix (wrong key, unknown model, bad URL,
# unreadable body) or retries that ran out before the model answered once. Nothing was measured,
# so CI can tell "the model got worse" (1) from "we could not ask it" (this).
PROVIDER_FAILED = 6
