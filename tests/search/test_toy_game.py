"""The search and the solver on tiny games with known answers (tests/toy_games.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from search.errors import SolverLimitError
from search.ismcts import search
from search.request import SearchRequest
from search.solver import solve
from toy_games import ROLL, STOP, BidGame, DiceGame


def test_solver_knows_the_dice_game() -> None:
    """Rolling from 0 to reach 3 with a d3 that busts on 1 is worth exactly 5/9; stopping 0."""
    result = solve(DiceGame())
    assert result.option(ROLL).win == Fraction(5, 9)
    assert result.option(STOP).win == 0
    assert result.best == ROLL
    assert result.option(ROLL).score == 2


def test_ismcts_converges_on_the_dice_game() -> None:
    """ISMCTS with chance sampled in simulations finds 5/9 for rolling."""
    result = search(DiceGame(), SearchRequest(iterations=6000, seed=3, root_selection="uniform"))
    assert result.chosen == ROLL
    assert result.stats(ROLL).win == pytest.approx(5 / 9, abs=0.02)
    assert result.stats(STOP).win == 0.0
    low, high = result.stats(ROLL).ci_low, result.stats(ROLL).ci_high
    assert low < 5 / 9 < high


def test_simultaneous_bid_first_player_sees_the_dominant_bid() -> None:
    """Player 1 answers from its own tree without seeing player 0's bid, and learns to bid 1:
    so player 0's bid 1 is worth 1/2 and bid 0 is worth 0."""
    result = search(BidGame(), SearchRequest(iterations=4000, seed=5, root_selection="uniform"))
    assert result.chosen == 1
    assert result.stats(1).win == pytest.approx(0.5, abs=0.03)
    assert result.stats(0).win == pytest.approx(0.0, abs=0.03)


@pytest.mark.parametrize("hidden_bid", [0, 1])
def test_simultaneous_bid_second_player_cannot_see_the_first(hidden_bid: int) -> None:
    """Player 1's search gives the same answer whatever player 0 secretly bid: 3/4 for bid 1."""
    state = BidGame()
    state.apply(hidden_bid)
    result = search(state, SearchRequest(iterations=3000, seed=9, root_selection="uniform"))
    assert result.player == 1
    assert result.chosen == 1
    assert result.stats(1).win == pytest.approx(0.75, abs=0.03)
    assert result.stats(0).win == pytest.approx(0.25, abs=0.03)


def test_hidden_bid_does_not_change_the_statistics() -> None:
    """Information safety: the two states differ only in player 0's unrevealed bid."""
    results = []
    for hidden_bid in (0, 1):
        state = BidGame()
        state.apply(hidden_bid)
        results.append(search(state, SearchRequest(iterations=500, seed=2)))
    assert results[0].actions == results[1].actions


def test_solver_refuses_a_game_with_two_deciders() -> None:
    """The solver handles a single decider; the bid game has two."""
    with pytest.raises(SolverLimitError, match="player 1 also decides"):
        solve(BidGame())
