//! `refuge_native.ExactSolver`: the exact solvers of the core (⇄ search/solver.py `ExactSolver`,
//! search/equilibrium.py `EquilibriumSolver`) on positions given as their canonical encoding. Exact
//! numbers cross as Python ints, a fraction as (numerator, denominator); advisor/players/native_solver.py
//! builds the Python solver's dataclasses from them.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use refuge_core::solver::{self, BigInt, BigRational, SolverLimit};
use refuge_core::state::State;

use crate::exact::{options, value, Option_, Step, Value};
use crate::{guard, project_error};

/// The exact solver with its memo kept between calls (⇄ `ExactSolver(max_nodes)`, or with
/// `equilibrium=True` `EquilibriumSolver(max_nodes)`).
#[pyclass(module = "refuge_native")]
pub struct ExactSolver {
    inner: solver::ExactSolver,
}

impl ExactSolver {
    /// Decode `ints`, run `solve` on the core's solver with the GIL released, and turn a refusal
    /// into `search.errors.SolverSizeError` (a fresh budget refusal) or `SolverLimitError`.
    fn run<T: Send>(
        &mut self,
        py: Python<'_>,
        ints: Vec<i64>,
        step: bool,
        solve: impl FnOnce(&mut solver::ExactSolver, &State) -> Result<T, SolverLimit> + Send,
    ) -> PyResult<T> {
        let state = guard(|| State::from_ints(&ints).map_err(|e| project_error(py, "ImpossiblePositionError", e.0)))?;
        let inner = &mut self.inner;
        let outcome = py.allow_threads(|| {
            guard(|| {
                let refused_before = inner.refusal(&state, step).is_some();
                Ok(solve(inner, &state).map_err(|limit| (limit, refused_before)))
            })
        })?;
        outcome.map_err(|(limit, refused_before)| {
            let class = if limit.is_size() && !refused_before { "SolverSizeError" } else { "SolverLimitError" };
            search_error(py, class, limit.0)
        })
    }
}

/// The exception class `name` of search.errors with `message` (ValueError if it cannot be imported).
fn search_error(py: Python<'_>, name: &str, message: String) -> PyErr {
    match py.import("search.errors").and_then(|m| m.getattr(name)).and_then(|c| c.call1((message.clone(),))) {
        Ok(instance) => PyErr::from_value(instance),
        Err(_) => PyValueError::new_err(message),
    }
}

#[pymethods]
impl ExactSolver {
    /// A solver giving up beyond `max_nodes` new positions per call (the Python glue checks it is
    /// an int ≥ 1, as `ExactSolver.__init__`).
    #[new]
    #[pyo3(signature = (max_nodes, equilibrium=false))]
    fn new(max_nodes: usize, equilibrium: bool) -> PyResult<ExactSolver> {
        if max_nodes < 1 {
            return Err(PyValueError::new_err(format!("solver: max_nodes must be an int >= 1, got {max_nodes}")));
        }
        let inner = if equilibrium { solver::ExactSolver::equilibrium(max_nodes) } else { solver::ExactSolver::new(max_nodes) };
        Ok(ExactSolver { inner })
    }

    /// Every player's exact value at the encoded position: (wins, scores) (⇄ `ExactSolver.value`).
    fn value(&mut self, py: Python<'_>, ints: Vec<i64>) -> PyResult<Value> {
        self.run(py, ints, false, |s, state| s.value(state).map(|v| value(&v)))
    }

    /// (player, [(action, value)] in the root's legal order, best action, nodes) (⇄ `ExactSolver.solve`).
    fn solve(&mut self, py: Python<'_>, ints: Vec<i64>) -> PyResult<(usize, Vec<Option_>, i32, usize)> {
        self.run(py, ints, false, |s, state| {
            s.solve(state).map(|r| (r.player, options(&r.options), r.best, r.nodes))
        })
    }

    /// ([first seat, second seat], value, nodes), a seat as (player, [(action, value)], mix) (⇄
    /// `EquilibriumSolver.solve_step`).
    fn solve_step(&mut self, py: Python<'_>, ints: Vec<i64>) -> PyResult<Step> {
        self.run(py, ints, true, |s, state| s.solve_step(state).map(|r| crate::exact::step(&r)))
    }

    /// Positions solved so far (⇄ `len(solver.memo)`).
    fn memo_len(&self) -> usize {
        self.inner.memo_len()
    }

    /// New positions a call may solve (⇄ `solver.max_nodes`).
    #[getter]
    fn max_nodes(&self) -> usize {
        self.inner.max_nodes()
    }
}

/// `float(Fraction(numerator, denominator))` as the core computes it (`ExactValue::floats`:
/// correctly rounded); a zero denominator is a `ZeroDivisionError`, as `Fraction`'s.
#[pyfunction]
fn fraction_to_float(numerator: BigInt, denominator: BigInt) -> PyResult<f64> {
    if denominator == BigInt::from(0) {
        return Err(pyo3::exceptions::PyZeroDivisionError::new_err(format!("Fraction({numerator}, 0)")));
    }
    guard(|| Ok(solver::to_float(&BigRational::new(numerator, denominator))))
}

/// Register the class and the conversion.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ExactSolver>()?;
    module.add_function(wrap_pyfunction!(fraction_to_float, module)?)
}
