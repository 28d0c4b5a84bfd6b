"""Fixed, seeded positions that the benchmark suites measure."""

from __future__ import annotations

import random

from positions import Position
from positions.kernel.actions import DRAW
from positions.kernel.phases import DEAL


def play_random(pos: Position, rng: random.Random, stop=lambda pos: False) -> Position:
    """Play uniformly random decisions and sampled chance until the end or `stop(pos)`."""
    while not pos.is_terminal() and not stop(pos):
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
        else:
            legal = pos.legal_actions()
            pos.apply(legal[int(rng.random() * len(legal))])
    return pos


def midgame_4p() -> Position:
    """A 4-player forest game in its second walk, tiles spread over bags, paths and the market."""
    rng = random.Random(2024)
    pos = Position.new_game(4, "forest")
    return play_random(pos, rng, stop=lambda p: p.walk == 1 and p.turn == 2 and p.is_chance())


def about_to_draw_2p() -> Position:
    """A new 2-player game where both players chose to draw: player 0's 2-tile draw comes next."""
    pos = Position.new_game(2, "meadows")
    pos.apply(DRAW)
    pos.apply(DRAW)
    assert pos.phase == DEAL and pos.actor == 0
    return pos


def random_game(seed: int, players: int = 2, route: str = "meadows") -> Position:
    """A whole game of uniformly random play from a seed."""
    return play_random(Position.new_game(players, route), random.Random(seed))
