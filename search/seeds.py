"""The one seed derivation: every derived seed of the project (search workers, deals, seats, agents,
annotation, training) is ``derive_seed(*parts)`` of its parent seed and labels."""

from __future__ import annotations

import hashlib
from typing import Protocol


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (ints and strings), the same in every process and on every
    machine (a SHA-256 of their ``repr``; 63 bits so it fits a signed 64-bit integer: JSON, SQLite)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def worker_seeds(seed: int, workers: int) -> list[int]:
    """Every worker's tree's seed: ``derive_seed(seed, i)`` for worker ``i`` (one derivation, one place)."""
    return [derive_seed(seed, i) for i in range(workers)]


class Stream(Protocol):
    """Anything with ``random()``: the one draw game and search code make from a random stream."""

    def random(self) -> float:
        """The next uniform in [0, 1)."""
        ...


def seed_from_stream(rng: Stream) -> int:
    """A search seed drawn from a stream: ``int(rng.random() * 2**53)``, the 53 bits of one
    ``random()`` (docs/determinism.md, "Seeds"); an agent's or engine's seed for each search."""
    return int(rng.random() * 9007199254740992)
