"""One randomness source per game, derived from (game, row, epoch, seed)."""

import hashlib
import random


def derive_seed(*parts: object) -> int:
    """A stable 63-bit seed from any printable parts (independent of PYTHONHASHSEED)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_rng(game: str, row_id: str, epoch: int, seed: int) -> tuple[int, random.Random]:
    value = derive_seed(game, row_id, epoch, seed)
    return value, random.Random(value)
