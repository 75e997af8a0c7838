"""Retry defaults safe for CI, used by both front ends where the user sets none (docs/live-apis.md).

inspect's own default is to retry a failed call forever, which a dead or silent server turns into a
CI job that never ends. Kept free of imports: the pytest plugin reads them on every run.
"""

MAX_RETRIES = 5  # retries of one call (so 6 attempts at most): 429, 5xx, refused connections, timeouts
TIMEOUT = 120  # seconds one call may take, its retries included (checked between attempts)
ATTEMPT_TIMEOUT = 90  # seconds one attempt may take: a server that accepts and never answers
