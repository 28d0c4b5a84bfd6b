//! Two-player zero-sum matrix games solved exactly in rational arithmetic (⇄ `search/matrix_game.py`).
//!
//! The row player maximises `matrix[row][column]`, the column player minimises it. The solution is
//! the SAME equilibrium as Python's, step for step: weakly dominated rows and columns removed in
//! Python's order, then a pure saddle point, the 2×2 closed form, or the tableau simplex with
//! Bland's rule and the same tie-breaks (towards the lower row / column index). Exact numbers are
//! `BigRational` (⇄ `Fraction`): both are kept in lowest terms with a positive denominator, so equal
//! fractions have equal numerators and denominators on both sides.
//!
//! Faster than a literal copy, with the same answers: comparisons (dominance, saddle point) are made
//! on the entries put over their least common denominator (integers in the same order), and the
//! simplex runs on that integer tableau by fraction-free (Bareiss) pivoting, whose entries over the
//! current denominator are Python's rational tableau (see [`simplex`]): the same pivots, and the
//! same fractions once reduced.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};

/// The message for an empty or ragged matrix (⇄ the `ValueError` of `solve_matrix_game`).
pub const NOT_RECTANGULAR: &str = "matrix game: needs a non-empty rectangular matrix";

/// An equilibrium of a zero-sum matrix game and its value (⇄ `matrix_game.MatrixSolution`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixSolution {
    /// What the row player is guaranteed in expectation, and the column player holds them to.
    pub value: BigRational,
    /// The row player's optimal mixed strategy (probabilities summing to 1).
    pub rows: Vec<BigRational>,
    /// The column player's optimal mixed strategy.
    pub columns: Vec<BigRational>,
}

impl MatrixSolution {
    /// Each row's expected entry against the column player's strategy (⇄ `MatrixSolution.row_values`).
    pub fn row_values(&self, matrix: &[Vec<BigRational>]) -> Vec<BigRational> {
        matrix
            .iter()
            .map(|row| self.columns.iter().zip(row).fold(BigRational::zero(), |sum, (p, entry)| sum + p * entry))
            .collect()
    }

    /// Each column's expected entry against the row player's strategy (⇄ `MatrixSolution.column_values`).
    pub fn column_values(&self, matrix: &[Vec<BigRational>]) -> Vec<BigRational> {
        (0..matrix[0].len())
            .map(|j| self.rows.iter().zip(matrix).fold(BigRational::zero(), |sum, (p, row)| sum + p * &row[j]))
            .collect()
    }
}

/// Whether `matrix` is non-empty and rectangular (⇄ the check opening `solve_matrix_game`).
pub fn is_rectangular(matrix: &[Vec<BigRational>]) -> bool {
    !matrix.is_empty() && !matrix[0].is_empty() && matrix.iter().all(|row| row.len() == matrix[0].len())
}

/// An exact equilibrium of the zero-sum game `matrix` (⇄ `matrix_game.solve_matrix_game`).
///
/// # Panics
/// With [`NOT_RECTANGULAR`] if the matrix is empty or ragged (check [`is_rectangular`] first; the
/// Python module raises `ValueError` with the same message).
pub fn solve_matrix_game(matrix: &[Vec<BigRational>]) -> MatrixSolution {
    assert!(is_rectangular(matrix), "{NOT_RECTANGULAR}");
    let (scaled, scale) = common_denominator(matrix);
    let (rows, columns) = undominated(&scaled);
    let small = kept(matrix, &rows, &columns);
    let small_scaled = kept(&scaled, &rows, &columns);
    let solution = saddle(&small, &small_scaled)
        .or_else(|| (rows.len() == 2 && columns.len() == 2).then(|| two_by_two(&small_scaled, &scale)))
        .unwrap_or_else(|| simplex(&small_scaled, &scale));
    MatrixSolution {
        value: solution.value,
        rows: spread(solution.rows, &rows, matrix.len()),
        columns: spread(solution.columns, &columns, matrix[0].len()),
    }
}

/// The entries over their least common denominator: the numerators (integers ordered as the
/// fractions) and the denominator (Python twin: none; `Fraction` compares by cross-multiplying).
fn common_denominator(matrix: &[Vec<BigRational>]) -> (Vec<Vec<BigInt>>, BigInt) {
    let scale = matrix.iter().flatten().fold(BigInt::one(), |scale, entry| scale.lcm(entry.denom()));
    let scaled = matrix
        .iter()
        .map(|row| row.iter().map(|entry| entry.numer() * (&scale / entry.denom())).collect())
        .collect();
    (scaled, scale)
}

/// The sub-matrix of the kept rows and columns (⇄ the list comprehension `small` of
/// `solve_matrix_game`).
fn kept<T: Clone>(matrix: &[Vec<T>], rows: &[usize], columns: &[usize]) -> Vec<Vec<T>> {
    rows.iter().map(|&i| columns.iter().map(|&j| matrix[i][j].clone()).collect()).collect()
}

/// The strategy over the kept indices as one over all `size` (⇄ `matrix_game._spread`).
fn spread(strategy: Vec<BigRational>, kept: &[usize], size: usize) -> Vec<BigRational> {
    let mut full = vec![BigRational::zero(); size];
    for (&index, p) in kept.iter().zip(strategy) {
        full[index] = p;
    }
    full
}

/// The pure strategy playing `index` out of `size` (⇄ `matrix_game._pure`).
fn pure(index: usize, size: usize) -> Vec<BigRational> {
    (0..size).map(|i| if i == index { BigRational::one() } else { BigRational::zero() }).collect()
}

/// The first position of `value` in `values` (⇄ `list.index`).
fn index_of<T: PartialEq>(values: &[T], value: &T) -> usize {
    values.iter().position(|v| v == value).expect("the extremum is one of the values")
}

/// A pure equilibrium of `m`, if max-min equals min-max, found on `scaled` (`m`'s entries over a
/// common denominator) (⇄ `matrix_game._saddle`). The value is the entry at the saddle: it is at
/// least its row's minimum and at most its column's maximum, which are equal.
fn saddle(m: &[Vec<BigRational>], scaled: &[Vec<BigInt>]) -> Option<MatrixSolution> {
    let row_minima: Vec<&BigInt> = scaled.iter().map(|row| row.iter().min().expect("non-empty row")).collect();
    let column_maxima: Vec<&BigInt> = (0..scaled[0].len())
        .map(|j| scaled.iter().map(|row| &row[j]).max().expect("non-empty column"))
        .collect();
    let lower = *row_minima.iter().max().expect("non-empty matrix");
    let upper = *column_maxima.iter().min().expect("non-empty matrix");
    if lower != upper {
        return None;
    }
    let (row, column) = (index_of(&row_minima, &lower), index_of(&column_maxima, &upper));
    Some(MatrixSolution { value: m[row][column].clone(), rows: pure(row, m.len()), columns: pure(column, m[0].len()) })
}

/// Rows and columns left after removing weakly dominated ones until none is, the later of two
/// equal ones going (⇄ `matrix_game._undominated`: the first dominated row, then the first
/// dominated column, in one pass, until a pass removes nothing).
fn undominated<T: Ord>(m: &[Vec<T>]) -> (Vec<usize>, Vec<usize>) {
    let mut rows: Vec<usize> = (0..m.len()).collect();
    let mut columns: Vec<usize> = (0..m[0].len()).collect();
    let mut changed = true;
    while changed {
        changed = false;
        let row_dominated = |r: usize, rows: &[usize], columns: &[usize]| {
            rows.iter().any(|&s| {
                s != r
                    && columns.iter().all(|&j| m[s][j] >= m[r][j])
                    && (s < r || columns.iter().any(|&j| m[s][j] > m[r][j]))
            })
        };
        if let Some(at) = rows.iter().position(|&r| row_dominated(r, &rows, &columns)) {
            rows.remove(at);
            changed = true;
        }
        let column_dominated = |c: usize, rows: &[usize], columns: &[usize]| {
            columns.iter().any(|&d| {
                d != c
                    && rows.iter().all(|&i| m[i][d] <= m[i][c])
                    && (d < c || rows.iter().any(|&i| m[i][d] < m[i][c]))
            })
        };
        if let Some(at) = columns.iter().position(|&c| column_dominated(c, &rows, &columns)) {
            columns.remove(at);
            changed = true;
        }
    }
    (rows, columns)
}

/// The closed form of a 2×2 game without a saddle point, both players mixing
/// (⇄ `matrix_game._two_by_two`), on the entries times `scale`: the mixes are ratios of their
/// differences (the scale cancels), the value `(ad - bc) / (a - b - c + d)` is `scale` times too big.
fn two_by_two(m: &[Vec<BigInt>], scale: &BigInt) -> MatrixSolution {
    let (a, b, c, d) = (&m[0][0], &m[0][1], &m[1][0], &m[1][1]);
    let denominator = a - b - c + d;
    let row = BigRational::new(d - c, denominator.clone());
    let column = BigRational::new(d - b, denominator.clone());
    MatrixSolution {
        value: BigRational::new(a * d - b * c, denominator * scale),
        rows: vec![row.clone(), BigRational::one() - row],
        columns: vec![column.clone(), BigRational::one() - column],
    }
}

/// One fraction-free pivot of `row` on `pivot_row` at column `enter`: `(pivot * x - row[enter] * p)
/// / denominator` entry by entry, an exact division (Bareiss). Python twin: the row updates of
/// `_simplex`, `[entry - factor * p for ...]` after the pivot row's division.
fn eliminate(row: &[BigInt], pivot_row: &[BigInt], enter: usize, pivot: &BigInt, denominator: &BigInt) -> Vec<BigInt> {
    let factor = &row[enter];
    row.iter().zip(pivot_row).map(|(x, p)| (pivot * x - factor * p) / denominator).collect()
}

/// The column player's LP, max Σy s.t. A'y ≤ 1, y ≥ 0 with A' = A + shift > 0, by the tableau
/// simplex with Bland's rule; the row strategy is its dual, the slacks' reduced costs
/// (⇄ `matrix_game._simplex`: the same entering column, the same leaving row on ties).
///
/// `m` holds the entries times `scale` (integers). The tableau is Python's initial one times
/// `scale` (constraint rows and cost row alike), pivoted fraction-free: its entries over the
/// denominator `d` (the last pivot, positive) are the Gauss-Jordan tableau of that scaled LP, whose
/// pivoted rows are Python's and whose cost row and unpivoted rows are `scale` times Python's. So
/// every sign, every ratio (a row's scale cancels) and hence every pivot is Python's, and at the end
/// Python's `total = cost[-1]` is `cost[w] / (d·scale)`, a basic `y` is `t[i][w] / d`, and the
/// answers below are Python's fractions.
fn simplex(m: &[Vec<BigInt>], scale: &BigInt) -> MatrixSolution {
    let lowest = m.iter().flatten().min().expect("non-empty matrix");
    let shift = scale - lowest; // (1 - min) · scale
    let (rows, columns) = (m.len(), m[0].len());
    let width = columns + rows;
    let unit = |k: usize, i: usize| if k == i { scale.clone() } else { BigInt::zero() };
    let mut tableau: Vec<Vec<BigInt>> = (0..rows)
        .map(|i| {
            m[i].iter()
                .map(|entry| entry + &shift)
                .chain((0..rows).map(|k| unit(k, i)))
                .chain(std::iter::once(scale.clone()))
                .collect()
        })
        .collect();
    let mut cost: Vec<BigInt> =
        std::iter::repeat_n(-scale, columns).chain(std::iter::repeat_n(BigInt::zero(), rows + 1)).collect();
    let mut denominator = BigInt::one();
    let mut basis: Vec<usize> = (0..rows).map(|i| columns + i).collect();
    while let Some(enter) = (0..width).find(|&j| cost[j].is_negative()) {
        // the least ratio rhs / column over the rows where the column is positive, ties to the
        // lower basic variable: (ratio, basis) compared as Python compares the tuples
        let mut leave: Option<usize> = None;
        for i in 0..rows {
            if tableau[i][enter].is_positive() {
                let better = match leave {
                    None => true,
                    Some(l) => {
                        let mine = &tableau[i][width] * &tableau[l][enter];
                        let best = &tableau[l][width] * &tableau[i][enter];
                        mine < best || (mine == best && basis[i] < basis[l])
                    }
                };
                if better {
                    leave = Some(i);
                }
            }
        }
        let leave = leave.expect("the shifted LP is bounded: some row limits the entering column");
        let pivot = tableau[leave][enter].clone();
        for i in 0..rows {
            if i != leave {
                tableau[i] = eliminate(&tableau[i], &tableau[leave], enter, &pivot, &denominator);
            }
        }
        cost = eliminate(&cost, &tableau[leave], enter, &pivot, &denominator);
        denominator = pivot;
        basis[leave] = enter;
    }
    let total = &cost[width]; // = Σy · d · scale = d · scale / shifted value
    let mut y = vec![BigRational::zero(); columns];
    for (i, &variable) in basis.iter().enumerate() {
        if variable < columns {
            y[variable] = BigRational::new(&tableau[i][width] * scale, total.clone());
        }
    }
    MatrixSolution {
        value: BigRational::new(&denominator * scale, total.clone()) - BigRational::new(shift, scale.clone()),
        rows: cost[columns..columns + rows].iter().map(|r| BigRational::new(r.clone(), total.clone())).collect(),
        columns: y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;
    use proptest::prelude::*;

    fn f(numerator: i64, denominator: i64) -> BigRational {
        BigRational::new(BigInt::from(numerator), BigInt::from(denominator))
    }

    fn ints(rows: &[&[i64]]) -> Vec<Vec<BigRational>> {
        rows.iter().map(|row| row.iter().map(|&n| f(n, 1)).collect()).collect()
    }

    fn solution(value: BigRational, rows: Vec<BigRational>, columns: Vec<BigRational>) -> MatrixSolution {
        MatrixSolution { value, rows, columns }
    }

    /// Distributions, and neither player gains by deviating (⇄ tests/search `assert_equilibrium`).
    fn assert_equilibrium(matrix: &[Vec<BigRational>], s: &MatrixSolution) {
        for strategy in [&s.rows, &s.columns] {
            assert_eq!(strategy.iter().fold(BigRational::zero(), |a, p| a + p), BigRational::one());
            assert!(strategy.iter().all(|p| !p.is_negative()));
        }
        assert_eq!(s.column_values(matrix).iter().min().unwrap(), &s.value);
        assert_eq!(s.row_values(matrix).iter().max().unwrap(), &s.value);
    }

    #[test]
    fn matching_pennies_mixes_half_and_half() {
        let half = f(1, 2);
        assert_eq!(solve_matrix_game(&ints(&[&[1, 0], &[0, 1]])),
                   solution(half.clone(), vec![half.clone(), half.clone()], vec![half.clone(), half]));
    }

    #[test]
    fn an_uneven_two_by_two_by_its_closed_form() {
        assert_eq!(solve_matrix_game(&ints(&[&[3, 0], &[1, 2]])),
                   solution(f(3, 2), vec![f(1, 4), f(3, 4)], vec![f(1, 2), f(1, 2)]));
    }

    #[test]
    fn a_pure_saddle_point() {
        assert_eq!(solve_matrix_game(&ints(&[&[2, 3], &[1, 4]])),
                   solution(f(2, 1), vec![f(1, 1), f(0, 1)], vec![f(1, 1), f(0, 1)]));
    }

    #[test]
    fn a_dominated_row_is_never_played() {
        let matrix = ints(&[&[1, 0], &[0, 1], &[0, 0]]);
        let s = solve_matrix_game(&matrix);
        assert_eq!(s.rows, vec![f(1, 2), f(1, 2), f(0, 1)]);
        assert_equilibrium(&matrix, &s);
    }

    #[test]
    fn of_two_equal_rows_and_columns_the_later_goes() {
        // Rows 0 and 1 equal, columns 0 and 2 equal: the first of each pair is the one played.
        let matrix = ints(&[&[1, 0, 1], &[1, 0, 1], &[0, 1, 0]]);
        let s = solve_matrix_game(&matrix);
        assert_eq!(s.rows, vec![f(1, 2), f(0, 1), f(1, 2)]);
        assert_eq!(s.columns, vec![f(1, 2), f(1, 2), f(0, 1)]);
    }

    #[test]
    fn rock_paper_scissors_by_the_simplex() {
        let matrix = ints(&[&[0, -1, 1], &[1, 0, -1], &[-1, 1, 0], &[-1, -1, -1]]);
        let third = f(1, 3);
        assert_eq!(solve_matrix_game(&matrix),
                   solution(f(0, 1), vec![third.clone(), third.clone(), third.clone(), f(0, 1)],
                            vec![third.clone(), third.clone(), third]));
    }

    #[test]
    fn a_one_by_one_game_is_its_entry() {
        assert_eq!(solve_matrix_game(&[vec![f(-7, 3)]]), solution(f(-7, 3), vec![f(1, 1)], vec![f(1, 1)]));
    }

    #[test]
    fn an_empty_or_ragged_matrix_is_not_rectangular() {
        assert!(!is_rectangular(&[]));
        assert!(!is_rectangular(&[vec![]]));
        assert!(!is_rectangular(&[vec![f(1, 1)], vec![f(1, 1), f(2, 1)]]));
        assert!(is_rectangular(&[vec![f(1, 1)], vec![f(2, 1)]]));
    }

    #[test]
    #[should_panic(expected = "non-empty rectangular")]
    fn a_ragged_matrix_is_refused() {
        solve_matrix_game(&[vec![f(1, 1)], vec![f(1, 1), f(2, 1)]]);
    }

    fn matrices() -> impl Strategy<Value = Vec<Vec<BigRational>>> {
        (1usize..=6, 1usize..=6).prop_flat_map(|(rows, columns)| {
            proptest::collection::vec(
                proptest::collection::vec((-4i64..=6, 1i64..=6).prop_map(|(n, d)| f(n, d)), columns),
                rows,
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The value equals max-min = min-max of the mixed strategies; both are distributions.
        #[test]
        fn every_solution_is_an_exact_equilibrium(matrix in matrices()) {
            assert_equilibrium(&matrix, &solve_matrix_game(&matrix));
        }

        /// Small-integer matrices: many ties, equal rows and columns, saddle points.
        #[test]
        fn tied_matrices_are_solved_exactly(matrix in (1usize..=6, 1usize..=6).prop_flat_map(|(r, c)|
            proptest::collection::vec(proptest::collection::vec((0i64..=2).prop_map(|n| f(n, 1)), c), r))) {
            assert_equilibrium(&matrix, &solve_matrix_game(&matrix));
        }
    }
}
