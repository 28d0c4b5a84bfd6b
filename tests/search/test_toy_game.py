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


class DiceTablebase:
    """Exact values of the dice game from the solver; `below_root_only` hides the root's."""

    def __init__(self, below_root_only: bool = False) -> None:
        self.below_root_only = below_root_only
        self.probes = 0

    def exact_value(self, state: DiceGame):
        self.probes += 1
        best = solve(state)
        option = best.option(best.best)
        return [option.win], [option.score]

    def exact_options(self, state: DiceGame):
        if self.below_root_only:
            return None
        result = solve(state)
        return {o.action: ([o.win], [o.score]) for o in result.options}


class NoRollouts:
    """A rollout policy that must never be asked."""

    def choose(self, state, rng) -> int:
        raise AssertionError("a rollout ran where an exact value was known")


def test_exact_values_replace_the_root_options_and_are_marked() -> None:
    """With a tablebase the root options carry their exact values: rolling 5/9, score 2."""
    result = search(DiceGame(), SearchRequest(iterations=50, seed=1, oracle=DiceTablebase()))
    roll = result.stats(ROLL)
    assert roll.exact and roll.win == pytest.approx(5 / 9) and roll.ci_low == roll.ci_high == roll.win
    assert roll.score == pytest.approx(2.0) and roll.wins == (roll.win,)
    assert result.recommendation.action == ROLL


def test_simulations_take_exact_values_instead_of_rollouts() -> None:
    """Every leaf the tree reaches is probed; no rollout runs; the estimate is the exact mix."""
    game = DiceGame(target=9)
    exact = solve(game).option(ROLL).win
    estimates = []
    tablebase = DiceTablebase(below_root_only=True)
    for seed in range(6):  # the tree's own play below the root is not yet best play: a little low
        result = search(game, SearchRequest(iterations=3000, seed=seed, oracle=tablebase,
                                            rollout=NoRollouts(), root_selection="uniform"))
        assert not result.stats(ROLL).exact
        estimates.append(result.stats(ROLL).win)
    assert tablebase.probes > 0
    assert sum(estimates) / len(estimates) == pytest.approx(exact, abs=0.03)
