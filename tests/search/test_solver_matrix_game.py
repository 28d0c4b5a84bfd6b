"""Zero-sum matrix games solved exactly: hand-solved games and the equilibrium conditions."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from search.matrix_game import MatrixSolution, solve_matrix_game

F = Fraction


def assert_equilibrium(matrix: list[list[Fraction]], solution: MatrixSolution) -> None:
    """Both strategies are distributions and neither player gains by deviating: every column
    gives the row player at least the value against its mix, every row at most the value."""
    for strategy in (solution.rows, solution.columns):
        assert sum(strategy) == 1 and min(strategy) >= 0
    assert min(solution.column_values(matrix)) == solution.value == max(solution.row_values(matrix))


def test_matching_pennies_mixes_half_and_half() -> None:
    """Win shares (C18 style): the row player wins on a match. Value 1/2, both mix 1/2 : 1/2."""
    matrix = [[F(1), F(0)], [F(0), F(1)]]
    solution = solve_matrix_game(matrix)
    assert solution == MatrixSolution(F(1, 2), (F(1, 2), F(1, 2)), (F(1, 2), F(1, 2)))


def test_an_uneven_two_by_two_by_its_closed_form() -> None:
    """[[3, 0], [1, 2]] has no saddle point: row mix 1/4 : 3/4, column 1/2 : 1/2, value 3/2
    (by hand: 3x + 1(1-x) = 0x + 2(1-x) gives x = 1/4)."""
    matrix = [[F(3), F(0)], [F(1), F(2)]]
    solution = solve_matrix_game(matrix)
    assert solution == MatrixSolution(F(3, 2), (F(1, 4), F(3, 4)), (F(1, 2), F(1, 2)))


def test_a_pure_saddle_point() -> None:
    """[[2, 3], [1, 4]]: max of row minima = min of column maxima = 2 at (row 0, column 0)."""
    solution = solve_matrix_game([[F(2), F(3)], [F(1), F(4)]])
    assert solution == MatrixSolution(F(2), (F(1), F(0)), (F(1), F(0)))


def test_a_dominated_strategy_is_never_played() -> None:
    """Row 2 is dominated by both others; what remains is matching pennies."""
    matrix = [[F(1), F(0)], [F(0), F(1)], [F(0), F(0)]]
    solution = solve_matrix_game(matrix)
    assert solution.rows == (F(1, 2), F(1, 2), F(0)) and solution.value == F(1, 2)
    assert_equilibrium(matrix, solution)


def test_rock_paper_scissors_by_the_simplex() -> None:
    """No saddle point, no dominance, 3×3: the uniform mix, value 0 (with a dominated 4th row)."""
    matrix = [[F(0), F(-1), F(1)], [F(1), F(0), F(-1)], [F(-1), F(1), F(0)], [F(-1), F(-1), F(-1)]]
    solution = solve_matrix_game(matrix)
    assert solution == MatrixSolution(F(0), (F(1, 3), F(1, 3), F(1, 3), F(0)), (F(1, 3), F(1, 3), F(1, 3)))


def test_an_empty_or_ragged_matrix_is_refused() -> None:
    for bad in ([], [[]], [[F(1)], [F(1), F(2)]]):
        with pytest.raises(ValueError, match="rectangular"):
            solve_matrix_game(bad)


matrices = st.integers(1, 5).flatmap(lambda columns: st.lists(
    st.lists(st.integers(0, 6).map(lambda n: F(n, 6)), min_size=columns, max_size=columns),
    min_size=1, max_size=5))


@settings(max_examples=150, deadline=None)
@given(matrices)
def test_every_solution_is_an_exact_equilibrium(matrix: list[list[Fraction]]) -> None:
    """Any win-share matrix up to 5×5: the solution satisfies the equilibrium conditions exactly."""
    assert_equilibrium(matrix, solve_matrix_game(matrix))


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_the_value_agrees_with_scipys_linear_program(matrix: list[list[Fraction]]) -> None:
    """An independent computation: the row player's LP (max v s.t. xᵀA ≥ v, Σx = 1) by HiGHS."""
    optimize = pytest.importorskip("scipy.optimize")
    rows, columns = len(matrix), len(matrix[0])
    objective = [0.0] * rows + [-1.0]
    upper = [[-float(matrix[i][j]) for i in range(rows)] + [1.0] for j in range(columns)]
    result = optimize.linprog(objective, A_ub=upper, b_ub=[0.0] * columns,
                              A_eq=[[1.0] * rows + [0.0]], b_eq=[1.0],
                              bounds=[(0, None)] * rows + [(None, None)])
    assert result.status == 0
    assert result.x[-1] == pytest.approx(float(solve_matrix_game(matrix).value), abs=1e-9)
