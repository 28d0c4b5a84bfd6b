"""The search and the solver on tiny games with known answers (tests/toy_games.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from search.errors import SolverLimitError
from search.ismcts import search
from search.request import SearchRequest
from search.solver import solve
from toy_games import ROLL, STOP, BidGame, DiceGame, MatrixGame


def test_solver_knows_the_dice_game() -> None:
    """Rolling from 0 to reach 3 with a d3 that busts on 1 is worth exactly 5/9; stopping 0."""
    result = solve(DiceGame())
    assert result.option(ROLL).win == Fraction(5, 9)
    assert result.option(STOP).win == 0
    assert result.best == ROLL
    assert result.option(ROLL).score == 2


def test_ismcts_converges_on_the_dice_game() -> None:
    """ISMCTS with chance sampled in simulations finds 5/9 for rolling."""
    result = search(DiceGame(), SearchRequest.of(iterations=6000, seed=3, root_selection="uniform"))
    assert result.chosen == ROLL
    assert result.stats(ROLL).win == pytest.approx(5 / 9, abs=0.02)
    assert result.stats(STOP).win == 0.0
    low, high = result.stats(ROLL).ci_low, result.stats(ROLL).ci_high
    assert low < 5 / 9 < high


def test_simultaneous_bid_first_player_sees_the_dominant_bid() -> None:
    """Player 1 answers from its own tree without seeing player 0's bid, and learns to bid 1:
    so player 0's bid 1 is worth 1/2 and bid 0 is worth 0."""
    result = search(BidGame(), SearchRequest.of(iterations=4000, seed=5, root_selection="uniform"))
    assert result.chosen == 1
    assert result.stats(1).win == pytest.approx(0.5, abs=0.03)
    assert result.stats(0).win == pytest.approx(0.0, abs=0.03)


@pytest.mark.parametrize("hidden_bid", [0, 1])
def test_simultaneous_bid_second_player_cannot_see_the_first(hidden_bid: int, monkeypatch) -> None:
    """Player 1's search gives the same answer whatever player 0 secretly bid, and, grown from the
    step's start where player 0's node learns to bid 1, the same values as player 0's: 1/2 for bid
    1, 0 for bid 0 (issue 22). (Regret matching: deterministic UCT at both seats' nodes of this
    symmetric game walks in lockstep, every bid a tie.)"""
    monkeypatch.setattr("search.ismcts.MIXING", 0.02)  # one worker: the search runs in this process
    state = BidGame()
    state.apply(hidden_bid)
    result = search(state, SearchRequest.of(iterations=3000, seed=9, root_selection="uniform",
                                         simultaneous="rm"))
    assert result.player == 1
    assert result.chosen == 1
    assert result.iterations == 3000
    assert result.stats(1).win == pytest.approx(0.5, abs=0.03)
    assert result.stats(0).win == pytest.approx(0.0, abs=0.03)


@pytest.mark.parametrize("hidden_bid", [0, 1])
def test_without_the_step_root_the_second_player_assumes_a_uniform_bid(hidden_bid: int) -> None:
    """``step_root=False`` (the search before issue 22): player 1 redraws player 0's bid uniformly
    and values bid 1 at 3/4, bid 0 at 1/4 — more than player 0's own search gives the same game."""
    state = BidGame()
    state.apply(hidden_bid)
    result = search(state, SearchRequest.of(iterations=3000, seed=9, root_selection="uniform",
                                         step_root=False))
    assert result.chosen == 1
    assert result.stats(1).win == pytest.approx(0.75, abs=0.03)
    assert result.stats(0).win == pytest.approx(0.25, abs=0.03)


def test_the_second_player_agrees_with_the_first_on_its_chances(monkeypatch) -> None:
    """Seat consistency: player 1's own chance (step root) matches player 0's view of player 1's
    chance in the same step, where the uniform redraw overstated it by a quarter."""
    # each seat's values are against the other's exploration too: with mixing m the other bids 0
    # m/2 of the time, which moves this game's values (bids 1/2 apart) by m/4 in opposite directions
    monkeypatch.setattr("search.ismcts.MIXING", 0.02)  # one worker: the search runs in this process
    first = search(BidGame(), SearchRequest.of(iterations=3000, seed=4, simultaneous="rm"))
    later = BidGame()
    later.apply(first.chosen)
    second = search(later, SearchRequest.of(iterations=3000, seed=5, simultaneous="rm"))
    earlier_view = first.stats(first.chosen).wins[1]
    own = second.stats(second.chosen).wins[1]
    assert own == pytest.approx(earlier_view, abs=0.03)
    old = search(later, SearchRequest.of(iterations=3000, seed=5, step_root=False))
    assert old.stats(old.chosen).wins[1] - earlier_view > 0.15


def test_hidden_bid_does_not_change_the_statistics() -> None:
    """Information safety: the two states differ only in player 0's unrevealed bid."""
    results = []
    for hidden_bid in (0, 1):
        state = BidGame()
        state.apply(hidden_bid)
        results.append(search(state, SearchRequest.of(iterations=500, seed=2)))
    assert results[0].actions == results[1].actions


@pytest.mark.parametrize("rule", ["rm", "exp3"])
def test_regret_matching_and_exp3_find_the_mixed_equilibrium(rule: str, monkeypatch) -> None:
    """In the 2x2 game without a pure equilibrium each seat's mean strategy converges to its
    equilibrium mix (row 0 1/5, column 0 2/5) and the values to the game's (0.52 for player 0),
    whichever seat searches; UCT's visit shares need not (a best reply to the other's)."""
    # the mean strategy leaves the exploration out; the other's exploration (mixing m) shifts the
    # mix that keeps it indifferent by about m/2 toward uniform: 0.2 -> 0.18, 0.4 -> 0.39 at m = 0.05
    monkeypatch.setattr("search.ismcts.MIXING", 0.05)  # one worker: the search runs in this process
    request = SearchRequest.of(iterations=20_000, seed=3, simultaneous=rule)
    first = search(MatrixGame(), request)
    assert first.stats(0).share == pytest.approx(0.2, abs=0.05)
    assert first.stats(0).share + first.stats(1).share == pytest.approx(1.0)
    assert first.stats(1).win == pytest.approx(0.52, abs=0.03)
    assert first.chosen == 1
    later = MatrixGame()
    later.apply(0)
    second = search(later, request.replace(seed=4))
    assert second.player == 1
    assert second.stats(0).share == pytest.approx(0.4, abs=0.08)
    for action in (0, 1):  # each column is worth the game's value to player 1 at equilibrium
        assert second.stats(action).win == pytest.approx(0.48, abs=0.04)  # uniform: 0.3, 0.6


@pytest.mark.parametrize("rule", ["uct", "rm", "exp3"])
def test_the_later_seat_agrees_with_the_earlier_on_its_value(rule: str) -> None:
    """Searched from the step's start, player 1's own chance equals player 0's view of it (within
    noise), whatever the selection; the uniform redraw overstated it (3/4 against 1/2 in the bid
    game). UCT's agreement is weaker: its two seats' best replies can cycle, and in a few seeds
    its values end up 0.05 apart; regret matching and Exp3 stay within 0.03."""
    differences = []
    for seed in range(6):
        first = search(MatrixGame(), SearchRequest.of(iterations=20_000, seed=seed, simultaneous=rule))
        later = MatrixGame()
        later.apply(first.chosen)
        second = search(later, SearchRequest.of(iterations=20_000, seed=seed + 100, simultaneous=rule))
        differences.append(abs(second.stats(second.chosen).wins[1] - first.stats(first.chosen).wins[1]))
        assert (second.stats(second.chosen).share is None) == (rule == "uct")
    assert sorted(differences)[len(differences) // 2] <= 0.02
    assert max(differences) <= (0.06 if rule == "uct" else 0.03)


class Favourite:
    """A prior that always picks the last legal action."""

    def choose(self, state, rng) -> int:  # type: ignore[no-untyped-def]
        return state.legal_actions()[-1]


@pytest.mark.parametrize("rule", ["rm", "exp3"])
def test_a_new_matching_node_plays_the_priors_favourite(rule: str) -> None:
    """With nothing learnt yet a regret-matching or Exp3 node plays the prior's favourite (but for
    its exploration, mixing/k = 5% for each action), as a UCT node tries it first: a thin node plays
    like the prior instead of at random (issue 22: at random it cost the agent nearly every game)."""
    firsts = [search(MatrixGame(), SearchRequest.of(iterations=1, seed=s, simultaneous=rule,
                                                 prior=Favourite())).stats(1).visits for s in range(60)]
    assert sum(firsts) >= 52  # 57 expected
    unbiased = [search(MatrixGame(), SearchRequest.of(iterations=1, seed=s, simultaneous=rule)).stats(1).visits
                for s in range(60)]
    assert 20 <= sum(unbiased) <= 40


def test_a_mean_strategy_is_reported_only_at_simultaneous_nodes() -> None:
    """rm leaves a one-player game's decisions to UCT: no share, the most visited action."""
    result = search(DiceGame(), SearchRequest.of(iterations=2000, seed=3, simultaneous="rm"))
    assert all(s.share is None for s in result.actions)
    assert result.chosen == ROLL


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
    result = search(DiceGame(), SearchRequest.of(iterations=50, seed=1, oracle=DiceTablebase()))
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
        result = search(game, SearchRequest.of(iterations=3000, seed=seed, oracle=tablebase,
                                            rollout=NoRollouts(), root_selection="uniform"))
        assert not result.stats(ROLL).exact
        estimates.append(result.stats(ROLL).win)
    assert tablebase.probes > 0
    assert sum(estimates) / len(estimates) == pytest.approx(exact, abs=0.03)
