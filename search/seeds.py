"""The one seed derivation: every derived seed of the project (search workers, deals, seats, agents,
annotation, training) is ``derive_seed(*parts)`` of its parent seed and labels."""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (ints and strings), the same in every process and on every
    machine (a SHA-256 of their ``repr``; 63 bits so it fits a signed 64-bit integer: JSON, SQLite)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
