"""The native matrix game solver (native/core/src/matrix_game.rs) returns the SAME equilibrium as
``search.matrix_game.solve_matrix_game``, equal as fractions: not just another equilibrium."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from search import equilibrium
from search.matrix_game import MatrixSolution, solve_matrix_game
from two_walker_positions import load_two_walker_entries, position_of

refuge_native = pytest.importorskip("refuge_native")
if not hasattr(refuge_native, "solve_matrix_game"):
    pytest.skip("refuge_native was built without matrix_game.rs", allow_module_level=True)

F = Fraction


def native_solution(matrix: list[list[Fraction]]) -> MatrixSolution:
    """The native solver's answer, its (numerator, denominator) pairs made Fractions again."""
    pairs = [[(entry.numerator, entry.denominator) for entry in row] for row in matrix]
    value, rows, columns = refuge_native.solve_matrix_game(pairs)
    for numerator, denominator in [value, *rows, *columns]:
        assert denominator > 0 and F(numerator, denominator).denominator == denominator  # lowest terms
    return MatrixSolution(F(*value), tuple(F(*p) for p in rows), tuple(F(*p) for p in columns))


def assert_same_solution(matrix: list[list[Fraction]]) -> None:
    assert native_solution(matrix) == solve_matrix_game(matrix)


HAND_SOLVED = {
    "matching pennies": [[F(1), F(0)], [F(0), F(1)]],
    "uneven 2x2": [[F(3), F(0)], [F(1), F(2)]],
    "saddle point": [[F(2), F(3)], [F(1), F(4)]],
    "dominated row": [[F(1), F(0)], [F(0), F(1)], [F(0), F(0)]],
    "rock paper scissors": [[F(0), F(-1), F(1)], [F(1), F(0), F(-1)], [F(-1), F(1), F(0)],
                            [F(-1), F(-1), F(-1)]],
    "1x1": [[F(-7, 3)]],
    "all equal": [[F(1, 2)] * 4] * 3,
    "equal rows and columns": [[F(1), F(0), F(1)], [F(1), F(0), F(1)], [F(0), F(1), F(0)]],
    "huge entries": [[F(10**40 + 1, 3), F(-(10**30))], [F(-7, 10**25), F(10**35, 7)]],
    "degenerate simplex": [[F(1), F(0), F(0), F(1)], [F(0), F(1), F(1), F(0)], [F(1), F(1), F(0), F(0)],
                           [F(0), F(0), F(1), F(1)]],
}


@pytest.mark.parametrize("name", sorted(HAND_SOLVED))
def test_the_hand_solved_games_get_the_same_equilibrium(name: str) -> None:
    assert_same_solution(HAND_SOLVED[name])


def test_the_matrices_of_the_two_walker_endgames_get_the_same_equilibrium(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every matrix game the exact equilibrium solver meets on the held-out two-walker positions
    (tests/data/two_walker_positions.json: hundreds of 2×2 steps, some up to 6×7)."""
    met: list[list[list[Fraction]]] = []

    def recording(matrix: list[list[Fraction]]) -> MatrixSolution:
        met.append([list(row) for row in matrix])
        return solve_matrix_game(matrix)

    monkeypatch.setattr(equilibrium, "solve_matrix_game", recording)
    for entry in load_two_walker_entries():
        equilibrium.solve_step(position_of(entry))
    assert len(met) > 500 and max(len(m) * len(m[0]) for m in met) >= 30
    for matrix in met:
        assert_same_solution(matrix)


def test_an_empty_or_ragged_matrix_is_refused_with_pythons_message() -> None:
    bad_matrices: list[list[list[tuple[int, int]]]] = [[], [[]], [[(1, 1)], [(1, 1), (2, 1)]]]
    for bad in bad_matrices:
        with pytest.raises(ValueError, match="non-empty rectangular matrix"):
            refuge_native.solve_matrix_game(bad)
    with pytest.raises(ValueError, match="denominator 0"):
        refuge_native.solve_matrix_game([[(1, 0)]])


def shaped(entries: st.SearchStrategy[Fraction]) -> st.SearchStrategy[list[list[Fraction]]]:
    """Matrices of 1×1 to 6×6 of `entries`."""
    return st.tuples(st.integers(1, 6), st.integers(1, 6)).flatmap(lambda size: st.lists(
        st.lists(entries, min_size=size[1], max_size=size[1]), min_size=size[0], max_size=size[0]))


def with_copies(matrix: list[list[Fraction]], data: st.DataObject) -> list[list[Fraction]]:
    """`matrix` with some rows and columns repeated at drawn places (equal rows and columns)."""
    for _ in range(data.draw(st.integers(0, 2))):
        source, at = data.draw(st.integers(0, len(matrix) - 1)), data.draw(st.integers(0, len(matrix)))
        matrix = matrix[:at] + [list(matrix[source])] + matrix[at:]
    for _ in range(data.draw(st.integers(0, 2))):
        source, at = data.draw(st.integers(0, len(matrix[0]) - 1)), data.draw(st.integers(0, len(matrix[0])))
        matrix = [row[:at] + [row[source]] + row[at:] for row in matrix]
    return matrix


SMALL_INTS = st.integers(-2, 2).map(F)
FRACTIONS = st.builds(F, st.integers(-12, 12), st.integers(1, 12))
WIN_SHARES = st.integers(0, 6).map(lambda n: F(n, 6))


@settings(max_examples=400, deadline=None)
@given(shaped(st.one_of(SMALL_INTS, FRACTIONS, WIN_SHARES)))
def test_every_matrix_gets_the_same_equilibrium(matrix: list[list[Fraction]]) -> None:
    assert_same_solution(matrix)


@settings(max_examples=300, deadline=None)
@given(shaped(st.integers(0, 1).map(F)), st.data())
def test_tied_and_repeated_matrices_get_the_same_equilibrium(matrix: list[list[Fraction]],
                                                               data: st.DataObject) -> None:
    """0/1 entries (ties everywhere, many saddle points and dominance chains) with copied rows and
    columns: the tie-breaks (the later of two equal ones removed, Bland's rule) match."""
    assert_same_solution(with_copies(matrix, data))


@settings(max_examples=200, deadline=None)
@given(shaped(FRACTIONS), st.data())
def test_fraction_matrices_with_copies_get_the_same_equilibrium(matrix: list[list[Fraction]],
                                                                 data: st.DataObject) -> None:
    assert_same_solution(with_copies(matrix, data))
