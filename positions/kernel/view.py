"""What a seat sees: the one view of a position every agent is handed (OpenSpiel's information
state), the public facts of a position, and the walk number to show.

Every tool that asks an agent to decide — self-play, the arena, training, the engine server, the
table — hands it :func:`seat_view`, so an agent never sees another player's unrevealed choice or a
hidden bag, and the same seed gives the same game in every tool.
"""

from __future__ import annotations

import random

from positions.kernel.position import Player, Position


def seat_view(position: Position, seat: Player, rng: random.Random) -> Position:
    """`position` as `seat` sees it: a copy in which whatever `seat` cannot see (the others'
    unrevealed choices of this step, the tiles of hidden bags) is drawn afresh from `rng`, consistent
    with everything `seat` has seen (``Position.determinize`` without a belief)."""
    return position.determinize(seat, rng)


def walk_number(position: Position) -> int:
    """The walk to show, counted from 1 (the last walk once the game is over)."""
    return min(position.walk, position.ruleset.walks - 1) + 1


def public_facts(pos: Position) -> tuple[object, ...]:
    """Every public fact of a position as ints and tuples (flattened to ints by :func:`public_fact_ints`)."""
    players = tuple(((-1, len(pos.bags[p])) if p in pos.hidden_bags else tuple(sorted(pos.bags[p])),
                     pos.hands[p], pos.paths[p], pos.set_aside[p],
                     pos.steps[p], pos.vp[p], int(pos.walking[p]), pos.owned_storms[p])
                    for p in range(pos.players))
    return (pos.ruleset.to_ints(), pos.route.kinds, pos.players, pos.walk, pos.turn, pos.phase, pos.actor,
            players, pos.track_suns, pos.track_storms, pos.deck_suns, pos.deck_storms, pos.reserve,
            pos.market, tuple(sorted(pos.box)), pos.tile, pos.extra_plays, pos.discards_left,
            pos.discards_required, pos.ties)


def public_fact_ints(pos: Position) -> list[int]:
    """:func:`public_facts` flattened to ints: an int as itself (a bool as 0 or 1), a tuple as its
    length then its items flattened in turn; a saved position's history starts as their hash."""
    ints: list[int] = []
    _flatten(public_facts(pos), ints)
    return ints


def _flatten(value: object, ints: list[int]) -> None:
    if isinstance(value, tuple):
        ints.append(len(value))
        for item in value:
            _flatten(item, ints)
    elif isinstance(value, int):
        ints.append(int(value))
    else:
        raise TypeError(f"public facts hold ints and tuples only, not {value!r}")
