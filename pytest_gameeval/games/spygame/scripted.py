"""Scripted SpyGame players: the same policies as SpyFall (see games/spyfall/scripted.py);
their replies carry SpyGame's guess, reasoning and probe fields too."""

from pytest_gameeval.games.spyfall.scripted import POLICIES as SPYFALL_POLICIES

# opponents=reference: the host seats' default (they describe their word and vote by overlap)
POLICIES = {**SPYFALL_POLICIES, "reference": SPYFALL_POLICIES["strong"]}

__all__ = ["POLICIES"]
