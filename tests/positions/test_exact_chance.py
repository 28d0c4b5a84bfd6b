"""Exact chance and exact results for the solver: integer ways behind every probability (C7, C10,
C12, C13) and win shares as fractions (C18)."""

from __future__ import annotations

import random
from fractions import Fraction

from positions import Position
from positions.kernel import phases

from builders import random_step


def _stops(seed: int):
    rng = random.Random(seed)
    for players in (2, 3, 4):
        pos = Position.new_game(players, ("meadows", "forest", "mountains")[seed % 3])
        while not pos.is_terminal():
            yield pos
            random_step(pos, rng)
        yield pos


def test_chance_weights_are_the_ways_behind_the_probabilities() -> None:
    """C7: two tiles drawn without replacement (ordered pairs, size x (size - 1) ways), one tile
    when one is left; C10: one tile for an additional play; C13: the weather deck's tiles; C12: one
    way per tied player. The float probabilities are exactly ways / total."""
    seen = set()
    for seed in range(6):
        for pos in _stops(seed):
            if not pos.is_chance():
                continue
            weights = pos.chance_weights()
            total = sum(w for _, w in weights)
            assert all(isinstance(w, int) and w > 0 for _, w in weights)
            assert pos.chance_outcomes() == [(a, w / total) for a, w in weights]
            if pos.phase == phases.WEATHER:
                assert total == pos.deck_suns + pos.deck_storms
            elif pos.phase == phases.TIEBREAK:
                assert total == len(pos.ties[0][1])
            else:
                size = len(pos.bags[pos.actor])
                one = pos.phase == phases.EXTRA_DRAW or size == 1
                assert total == (size if one else size * (size - 1))
            seen.add(pos.phase)
    assert {phases.DEAL, phases.WEATHER} <= seen


def test_exact_returns_are_the_returns_as_fractions() -> None:
    """C18: a win is 1, a k-way shared win 1/k each, exactly; they sum to 1 at the end."""
    for seed in range(6):
        for pos in _stops(seed):
            if pos.is_terminal():
                exact = pos.exact_returns()
                assert sum(exact) == 1 and all(isinstance(r, Fraction) for r in exact)
                assert [float(r) for r in exact] == pos.returns()
