"""The two-walker solver: simultaneous steps as matrix games (C6, C8, C12), constant-sum values
(C18), checked on toy games solved by hand and on small Refuge positions against brute force."""

from __future__ import annotations

import copy

import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.players.tablebase import step_start
from positions import Position
from positions.kernel import phases, rules
from search.equilibrium import EquilibriumSolver, solve_step
from search.errors import SolverLimitError
from search.matrix_game import solve_matrix_game
from search.solver import ExactSolver
from solver_positions import load_entries, replay
from toy_games import BidGame
from two_walker_positions import load_two_walker_entries, position_of

F = Fraction
TERMINAL = -2
CHANCE = -1


class CoinPennies:
    """Players 0 and 1 pick 0 or 1 unseen. A match on 0: player 0 wins; a match on 1: a fair coin
    decides; no match: player 1 wins. By hand: win matrix [[1, 0], [0, 1/2]], value 1/3, both mix
    1/3 : 2/3. With ``seen`` player 1 sees player 0's pick (a sequential game: value 0)."""

    def __init__(self, seen: bool = False, players: int = 2) -> None:
        self.picks = [-1, -1]
        self.coin = -1
        self.seen = seen
        self.players = players

    def copy(self) -> "CoinPennies":
        other = copy.copy(self)
        other.picks = self.picks[:]
        return other

    def tosses_a_coin(self) -> bool:
        """Whether the picks made call for the coin (a match on 1)."""
        return self.picks == [1, 1]

    def current_player(self) -> int:
        if self.picks[0] < 0:
            return 0
        if self.picks[1] < 0:
            return 1
        return CHANCE if self.tosses_a_coin() and self.coin < 0 else TERMINAL

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_simultaneous(self) -> bool:
        return self.current_player() >= 0

    def legal_actions(self) -> list[int]:
        return [0, 1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.5), (1, 0.5)]

    def chance_weights(self) -> list[tuple[int, int]]:
        return [(0, 1), (1, 1)]

    def sample_chance(self, rng: random.Random) -> int:
        return int(rng.random() * 2)

    def apply(self, action: int) -> None:
        if self.is_chance():
            self.coin = action
        else:
            self.picks[self.current_player()] = action

    def exact_returns(self) -> list[Fraction]:
        first = {(0, 0): F(1), (1, 1): F(1 - self.coin)}.get((self.picks[0], self.picks[1]), F(0))
        return [first, 1 - first] + [F(0)] * (self.players - 2)

    def returns(self) -> list[float]:
        return [float(r) for r in self.exact_returns()]

    def scores(self) -> list[float]:
        return [float(p) for p in self.picks] + [0.0] * (self.players - 2)

    def solver_key(self) -> tuple[int, ...]:
        return (*self.picks, self.coin)

    def information_set_key(self, player: int) -> tuple[Any, ...]:
        other = self.picks[0] if self.seen or player == 0 else self.picks[0] >= 0
        return (player, self.picks[player], other, self.coin)

    def determinize(self, player: int, rng: random.Random) -> "CoinPennies":
        return self.copy()


def test_coin_pennies_is_solved_as_the_hand_solved_matrix_game() -> None:
    """Value 1/3 for player 0 (2/3 for player 1, constant-sum), both mixing 1/3 : 2/3; every option
    a seat mixes is worth the value against the other's mix; the coin averaged exactly."""
    result = solve_step(CoinPennies())
    assert result.value.wins == (F(1, 3), F(2, 3))
    first, second = result.seats
    assert (first.player, second.player) == (0, 1)
    assert first.mix == second.mix == (F(1, 3), F(2, 3))
    assert [o.win for o in first.options] == [F(1, 3), F(1, 3)]
    assert [o.win for o in second.options] == [F(2, 3), F(2, 3)]
    for seat in result.seats:
        for option in seat.options:
            assert sum(option.value.wins) == 1


def test_a_choice_the_second_player_sees_is_sequential_best_play() -> None:
    """With player 1 seeing player 0's pick, player 1 always mismatches: value 0, not a matrix game."""
    with pytest.raises(SolverLimitError, match="not the start of a simultaneous step"):
        solve_step(CoinPennies(seen=True))
    result = EquilibriumSolver().solve(CoinPennies(seen=True))
    assert [o.win for o in result.options] == [0, 0]


def test_a_simultaneous_step_refuses_the_sequential_answer() -> None:
    with pytest.raises(SolverLimitError, match="solve_step"):
        EquilibriumSolver().solve(CoinPennies())


def test_the_bid_game_has_a_saddle_point_with_a_tie_worth_half() -> None:
    """Bid 1 never does worse: both bid 1, a tie worth 1/2 each (C18); bid 0 is worth 0 against it."""
    result = solve_step(BidGame())
    assert result.value.wins == (F(1, 2), F(1, 2))
    for seat in result.seats:
        assert seat.mix == (F(0), F(1)) and seat.best == 1
        assert [o.win for o in seat.options] == [F(0), F(1, 2)]


def test_more_than_two_players_deciding_unseen_is_refused() -> None:
    with pytest.raises(SolverLimitError, match="two-player"):
        solve_step(CoinPennies(players=3))


class TableGame(CoinPennies):
    """Players 0 and 1 pick a row and a column unseen; then a chance event: player 0 wins with
    weight ``wins[row][col]`` out of ``out_of`` (so its win share after both picks is that fraction)."""

    def __init__(self, wins: list[list[int]], out_of: int) -> None:
        super().__init__()
        self.wins, self.out_of = wins, out_of

    def tosses_a_coin(self) -> bool:
        """Every pair of picks is followed by the chance event."""
        return True

    def legal_actions(self) -> list[int]:
        return list(range(len(self.wins) if self.picks[0] < 0 else len(self.wins[0])))

    def chance_weights(self) -> list[tuple[int, int]]:
        won = self.wins[self.picks[0]][self.picks[1]]
        return [(outcome, weight) for outcome, weight in ((0, won), (1, self.out_of - won)) if weight]

    def exact_returns(self) -> list[Fraction]:
        return [F(1 - self.coin), F(self.coin)]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4).flatmap(lambda columns: st.lists(
    st.lists(st.integers(0, 4), min_size=columns, max_size=columns), min_size=1, max_size=4)))
def test_a_step_then_chance_is_the_matrix_game_of_its_expectations(wins: list[list[int]]) -> None:
    """Any table up to 4×4: the solver's step value is the matrix game's of the win shares after
    the chance event; both seats' option values are against the other's mix, shares summing to 1."""
    result = solve_step(TableGame(wins, 4))
    matrix = [[F(w, 4) for w in row] for row in wins]
    game = solve_matrix_game(matrix)
    assert result.value.wins == (game.value, 1 - game.value)
    first, second = result.seats
    assert first.mix == game.rows and second.mix == game.columns
    assert [o.win for o in first.options] == list(game.row_values(matrix))
    assert [o.win for o in second.options] == [1 - v for v in game.column_values(matrix)]


# --- Refuge -----------------------------------------------------------------------------------

ENTRIES = load_two_walker_entries()


def test_the_held_out_set_has_enough_contested_two_walker_steps() -> None:
    """Issue 22: at least 30 two-walker last-walk positions, each a step both walkers decide."""
    assert len(ENTRIES) >= 30
    for entry in ENTRIES:
        pos = position_of(entry)
        assert pos.walk == pos.ruleset.walks - 1 and all(pos.walking) and pos.players == 2
        assert step_start(pos) is not None and 0 < Fraction(entry["exact"]["value"][0]["win_exact"]) < 1


def _brute_force(pos: Position) -> float:
    """Player 0's win share by plain recursion: no memo, no dominance, chance by its float
    probabilities, a step both decide (seat 0 to act, seat 1 with options too) by scipy's LP."""
    if pos.is_terminal():
        return float(pos.exact_returns()[0])
    if pos.is_chance():
        return sum(p * _brute_force(_after(pos, outcome)) for outcome, p in pos.chance_outcomes())
    legal = pos.legal_actions()
    if (pos.phase in phases.SIMULTANEOUS and pos.actor == 0 and pos.pending[1] == rules.NO_CHOICE
            and len(rules.step_legal(pos, 1)) > 1):
        matrix = [[_brute_force(_after(_after(pos, a), b)) for b in rules.step_legal(pos, 1)] for a in legal]
        return _lp_value(matrix)
    values = [_brute_force(_after(pos, a)) for a in legal]
    return max(values) if pos.actor == 0 else min(values)


def _after(pos: Position, action: int) -> Position:
    child = pos.copy()
    child.apply(action)
    return child


def _lp_value(matrix: list[list[float]]) -> float:
    optimize = pytest.importorskip("scipy.optimize")
    rows, columns = len(matrix), len(matrix[0])
    result = optimize.linprog([0.0] * rows + [-1.0],
                              A_ub=[[-matrix[i][j] for i in range(rows)] + [1.0] for j in range(columns)],
                              b_ub=[0.0] * columns, A_eq=[[1.0] * rows + [0.0]], b_eq=[1.0],
                              bounds=[(0, None)] * rows + [(None, None)])
    return float(result.x[-1])


SMALL = sorted(ENTRIES, key=lambda e: e["exact"]["nodes"])[:3]


@pytest.mark.parametrize("entry", SMALL, ids=lambda e: f"seed{e['seed']}")
def test_small_positions_agree_with_brute_force(entry: dict[str, Any]) -> None:
    """An independent computation of the equilibrium value (the game is constant-sum, so minimax
    with an LP at each simultaneous step is the value) agrees with the exact solver."""
    pos = position_of(entry)
    exact = solve_step(pos)
    assert _brute_force(pos) == pytest.approx(float(exact.value.wins[0]), abs=1e-9)


@pytest.mark.parametrize("entry", ENTRIES[:12], ids=lambda e: f"seed{e['seed']}")
def test_stored_equilibria_are_reproduced_and_constant_sum(entry: dict[str, Any]) -> None:
    """The stored exact values again; win shares sum to 1 (C18) at the step and after every option;
    the options a seat mixes are worth the step's value to it, the others no more."""
    pos = position_of(entry)
    result = EquilibriumSolver(entry["exact"]["nodes"]).solve_step(pos)
    assert [str(w) for w in result.value.wins] == [p["win_exact"] for p in entry["exact"]["value"]]
    assert sum(result.value.wins) == 1
    for seat, stored in zip(result.seats, entry["exact"]["seats"]):
        own = result.value.wins[seat.player]
        for option, p in zip(seat.options, seat.mix):
            assert sum(option.value.wins) == 1
            assert option.win == own if p else option.win <= own
        assert {o["action"]: o["probability_exact"] for o in stored["options"]} == \
            {str(seat.options[i].action): str(p) for i, p in enumerate(seat.mix)}


@pytest.mark.parametrize("entry", load_entries()[:6], ids=lambda e: f"seed{e['seed']}")
def test_one_walker_positions_get_the_one_walker_solvers_values(entry: dict[str, Any]) -> None:
    """With one walker nobody decides unseen: the two-walker solver is the one-walker solver."""
    pos = replay(entry)
    one, two = ExactSolver().solve(pos), EquilibriumSolver().solve(pos)
    assert [(o.action, o.value) for o in one.options] == [(o.action, o.value) for o in two.options]
    assert one.best == two.best and one.nodes == two.nodes
