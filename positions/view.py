"""What a seat sees: the one view of a position every agent is handed (OpenSpiel's information state).

Every tool that asks an agent to decide — self-play, the arena, training, the engine server, the
table — hands it :func:`seat_view`, so an agent never sees another player's unrevealed choice or a
hidden bag, and the same seed gives the same game in every tool.
"""

from __future__ import annotations

import random

from positions.position import Player, Position


def seat_view(position: Position, seat: Player, rng: random.Random) -> Position:
    """`position` as `seat` sees it: a copy in which whatever `seat` cannot see (the others'
    unrevealed choices of this step, the tiles of hidden bags) is drawn afresh from `rng`, consistent
    with everything `seat` has seen (``Position.determinize`` without a belief)."""
    return position.determinize(seat, rng)
