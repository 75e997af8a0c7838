"""`python -m pytest_gameeval.cli ...`: the `gameeval` command without its console script."""

import sys

from pytest_gameeval.cli import main

sys.exit(main())
