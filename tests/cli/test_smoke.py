"""Whole random games run to the end for every player count and route."""

import random

import pytest

from positions import ROUTES, Position


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_random_games_end_with_five_walks(players: int, route: str) -> None:
    rng = random.Random(players * 100 + len(route))
    for _ in range(20):
        pos = Position.new_game(players, route)
        while not pos.is_terminal():
            if pos.is_chance():
                pos.apply(pos.sample_chance(rng))
            else:
                legal = pos.legal_actions()
                assert legal
                pos.apply(legal[int(rng.random() * len(legal))])
        assert pos.walk == 5
        assert abs(sum(pos.returns()) - 1.0) < 1e-9
