"""How a seat is named in a table or a line: by the position's name for it where it has one."""

from __future__ import annotations

from typing import Sequence


def seat_label(player: int, names: Sequence[str] = (), you: bool = False) -> str:
    """``Ann (P0)`` where the position names the seat, else ``P0``; the player deciding is marked
    ``Ann (P0, you)`` / ``P0 (you)``."""
    name = names[player] if player < len(names) else ""
    if name:
        return f"{name} (P{player}, you)" if you else f"{name} (P{player})"
    return f"P{player} (you)" if you else f"P{player}"
