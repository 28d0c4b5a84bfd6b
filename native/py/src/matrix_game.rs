//! `refuge_native.solve_matrix_game`: the exact zero-sum matrix game solver (⇄
//! `search.matrix_game.solve_matrix_game`), exact numbers crossing as (numerator, denominator) pairs
//! of Python ints.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use refuge_core::matrix_game::{self, is_rectangular, NOT_RECTANGULAR};

use crate::guard;

/// An exact number as Python's `Fraction(numerator, denominator)` holds it.
type Ratio = (BigInt, BigInt);

/// The fraction `numerator / denominator` (⇄ `Fraction(numerator, denominator)`).
fn fraction((numerator, denominator): Ratio) -> PyResult<BigRational> {
    if denominator.is_zero() {
        return Err(PyValueError::new_err("matrix game: an entry has denominator 0"));
    }
    Ok(BigRational::new(numerator, denominator))
}

/// The pair Python's `Fraction` has for `value` (both in lowest terms, denominator positive).
fn ratio(value: BigRational) -> Ratio {
    let (numerator, denominator) = value.into_raw();
    (numerator, denominator)
}

/// The equilibrium of the zero-sum game `rows` of (numerator, denominator) entries, as
/// `(value, row strategy, column strategy)` of (numerator, denominator) pairs
/// (⇄ `search.matrix_game.solve_matrix_game`; `ValueError` with its message for an empty or ragged
/// matrix). The GIL is released while it solves.
#[pyfunction]
pub fn solve_matrix_game(py: Python<'_>, rows: Vec<Vec<Ratio>>) -> PyResult<(Ratio, Vec<Ratio>, Vec<Ratio>)> {
    let matrix: Vec<Vec<BigRational>> = rows
        .into_iter()
        .map(|row| row.into_iter().map(fraction).collect::<PyResult<_>>())
        .collect::<PyResult<_>>()?;
    if !is_rectangular(&matrix) {
        return Err(PyValueError::new_err(NOT_RECTANGULAR));
    }
    let solution = py.allow_threads(|| guard(|| Ok(matrix_game::solve_matrix_game(&matrix))))?;
    Ok((
        ratio(solution.value),
        solution.rows.into_iter().map(ratio).collect(),
        solution.columns.into_iter().map(ratio).collect(),
    ))
}

/// Add `solve_matrix_game` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(solve_matrix_game, m)?)
}
