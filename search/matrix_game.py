"""Two-player zero-sum matrix games solved exactly in rational arithmetic.

The row player maximises ``matrix[row][column]``, the column player minimises it (for a
constant-sum game such as Refuge's two-player win shares, the row player's share). The solution is
an equilibrium (a pair of optimal mixed strategies) and the game's value, all as ``Fraction``:

1. a pure saddle point when max-min equals min-max (most steps of a game have one);
2. otherwise weakly dominated rows and columns are removed (an optimal pair of the smaller game is
   optimal in the full one, and the value is the same), then
3. a 2×2 game by its closed form, a larger one by the simplex method with Bland's rule (exact,
   so it cannot cycle or round).

The results are deterministic: ties are broken towards the lower row / column index.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

Matrix = Sequence[Sequence[Fraction]]
"""Rows are the maximiser's actions, columns the minimiser's."""


@dataclass(frozen=True)
class MatrixSolution:
    """An equilibrium of a zero-sum matrix game and its value."""

    value: Fraction
    """What the row player is guaranteed in expectation, and the column player holds them to."""
    rows: tuple[Fraction, ...]
    """The row player's optimal mixed strategy (probabilities summing to 1)."""
    columns: tuple[Fraction, ...]
    """The column player's optimal mixed strategy."""

    def row_values(self, matrix: Matrix) -> tuple[Fraction, ...]:
        """Each row's expected entry against the column player's strategy."""
        return tuple(sum((p * entry for p, entry in zip(self.columns, row)), Fraction(0)) for row in matrix)

    def column_values(self, matrix: Matrix) -> tuple[Fraction, ...]:
        """Each column's expected entry against the row player's strategy."""
        return tuple(sum((p * row[j] for p, row in zip(self.rows, matrix)), Fraction(0))
                     for j in range(len(matrix[0])))


def solve_matrix_game(matrix: Matrix) -> MatrixSolution:
    """An exact equilibrium of the zero-sum game `matrix` (row maximises, column minimises).

    Raises:
        ValueError: the matrix is empty or ragged.
    """
    if not matrix or not matrix[0] or any(len(row) != len(matrix[0]) for row in matrix):
        raise ValueError("matrix game: needs a non-empty rectangular matrix")
    table = [[Fraction(entry) for entry in row] for row in matrix]
    rows, columns = _undominated(table)
    small = [[table[i][j] for j in columns] for i in rows]
    solution = _saddle(small) or (_two_by_two(small) if len(rows) == len(columns) == 2 else None)
    if solution is None:
        solution = _simplex(small)
    return MatrixSolution(solution.value, _spread(solution.rows, rows, len(table)),
                          _spread(solution.columns, columns, len(table[0])))


def _spread(strategy: tuple[Fraction, ...], kept: list[int], size: int) -> tuple[Fraction, ...]:
    full = [Fraction(0)] * size
    for index, p in zip(kept, strategy):
        full[index] = p
    return tuple(full)


def _pure(index: int, size: int) -> tuple[Fraction, ...]:
    return tuple(Fraction(int(i == index)) for i in range(size))


def _saddle(m: list[list[Fraction]]) -> MatrixSolution | None:
    """A pure equilibrium, if max-min equals min-max."""
    row_minima = [min(row) for row in m]
    column_maxima = [max(row[j] for row in m) for j in range(len(m[0]))]
    lower, upper = max(row_minima), min(column_maxima)
    if lower != upper:
        return None
    return MatrixSolution(lower, _pure(row_minima.index(lower), len(m)),
                          _pure(column_maxima.index(upper), len(m[0])))


def _undominated(m: list[list[Fraction]]) -> tuple[list[int], list[int]]:
    """Rows and columns left after removing weakly dominated ones until none is (the later of two
    equal ones goes)."""
    rows, columns = list(range(len(m))), list(range(len(m[0])))
    changed = True
    while changed:
        changed = False
        for r in rows:
            if any(s != r and all(m[s][j] >= m[r][j] for j in columns)
                   and (s < r or any(m[s][j] > m[r][j] for j in columns)) for s in rows):
                rows.remove(r)
                changed = True
                break
        for c in columns:
            if any(d != c and all(m[i][d] <= m[i][c] for i in rows)
                   and (d < c or any(m[i][d] < m[i][c] for i in rows)) for d in columns):
                columns.remove(c)
                changed = True
                break
    return rows, columns


def _two_by_two(m: list[list[Fraction]]) -> MatrixSolution:
    """The closed form of a 2×2 game without a saddle point (both players mix)."""
    (a, b), (c, d) = m
    denominator = a - b - c + d
    row = (d - c) / denominator
    column = (d - b) / denominator
    return MatrixSolution((a * d - b * c) / denominator, (row, 1 - row), (column, 1 - column))


def _simplex(m: list[list[Fraction]]) -> MatrixSolution:
    """The column player's LP, max sum(y) s.t. A'y <= 1, y >= 0 with A' = A + shift > 0, by the
    tableau simplex with Bland's rule; the row strategy is its dual (the slacks' reduced costs)."""
    shift = 1 - min(min(row) for row in m)
    rows, columns = len(m), len(m[0])
    width = columns + rows
    tableau = [[entry + shift for entry in m[i]] + [Fraction(int(k == i)) for k in range(rows)] + [Fraction(1)]
               for i in range(rows)]
    cost = [Fraction(-1)] * columns + [Fraction(0)] * (rows + 1)
    basis = [columns + i for i in range(rows)]
    while True:
        enter = next((j for j in range(width) if cost[j] < 0), -1)
        if enter < 0:
            break
        leave, best = -1, Fraction(0)
        for i in range(rows):
            if tableau[i][enter] > 0:
                ratio = tableau[i][-1] / tableau[i][enter]
                if leave < 0 or (ratio, basis[i]) < (best, basis[leave]):
                    leave, best = i, ratio
        pivot = tableau[leave][enter]
        tableau[leave] = [entry / pivot for entry in tableau[leave]]
        for i in range(rows):
            if i != leave and tableau[i][enter] != 0:
                factor = tableau[i][enter]
                tableau[i] = [entry - factor * p for entry, p in zip(tableau[i], tableau[leave])]
        factor = cost[enter]
        cost = [entry - factor * p for entry, p in zip(cost, tableau[leave])]
        basis[leave] = enter
    y = [Fraction(0)] * columns
    for i, variable in enumerate(basis):
        if variable < columns:
            y[variable] = tableau[i][-1]
    total = cost[-1]  # = sum(y) = sum(x) = 1 / shifted value
    return MatrixSolution(1 / total - shift, tuple(r / total for r in cost[columns:columns + rows]),
                          tuple(p / total for p in y))
