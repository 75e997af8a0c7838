"""The inspect-ai extension namespace `gameeval` (entry point of the same name).

inspect names registered tasks after the top-level package that defines them, so tasks
defined here resolve as `inspect eval gameeval/askguess`; model providers resolve as
`--model gameeval/local` and `--model gameeval/scripted`. The code lives in pytest_gameeval.
"""

from gameeval.tasks import *  # noqa: F401,F403
from pytest_gameeval.backends import registry as _providers  # noqa: F401
