"""Scripted SpyGame players: the same policies as SpyFall (see games/spyfall/scripted.py);
their replies carry SpyGame's guess, reasoning and probe fields too."""

from pytest_gameeval.games.spyfall.scripted import POLICIES

__all__ = ["POLICIES"]
