"""inspect-ai entry point: importing this registers our model providers and tasks."""

from pytest_gameeval.inspect_ext import providers as _providers  # noqa: F401
from pytest_gameeval.inspect_ext.tasks import *  # noqa: F401,F403
