//! `refuge_native.EndgameProbes`: the exact endgames' probes (⇄ `advisor/players/tablebase.py`
//! `_Probes` with `ExactEndgames`'s probes), held by Python's `ExactEndgames` and lent to the
//! native search (`refuge_native.search(oracle=(probes, leaf_max_nodes))`). Exact numbers cross as
//! `(numerator, denominator)` ints, floats as `float(Fraction)`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use std::sync::Mutex;

use refuge_core::endgames::{self, locked, PerBudget, Probes};
use refuge_core::ismcts::value_lists;
use refuge_core::state::State;

use crate::exact::{step, Step};
use crate::guard;

/// Every player's win share and expected score, as Python lists.
type Lists = (Vec<f64>, Vec<f64>);

/// The position `ints` (`Position.to_ints()`) if it is a player's decision: chance and the end of
/// the game are out of every scope (`None`).
fn decision(ints: &[i64], what: &str) -> PyResult<Option<State>> {
    let state = State::from_ints(ints).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
    Ok((state.current_player() >= 0).then_some(state))
}

/// What exact-endgame probes learn as they run: solvers by budget and the sizes found too large
/// (⇄ `tablebase._Probes`, with the probes `ExactEndgames.exact_value`, `exact_options` and
/// `exact_step` make). The GIL is released while a probe solves; the probes are locked for one
/// probe at a time, so a search's progress hook may probe them while that search runs.
#[pyclass(module = "refuge_native")]
#[derive(Default)]
pub struct EndgameProbes {
    pub inner: Mutex<Probes>,
}

#[pymethods]
impl EndgameProbes {
    #[new]
    fn new() -> Self {
        EndgameProbes::default()
    }

    /// ⇄ `_Probes.exact_value` (`ExactEndgames.exact_value`: `budget` its `leaf_max_nodes`).
    fn exact_value(&self, py: Python<'_>, ints: Vec<i64>, budget: usize) -> PyResult<Option<Lists>> {
        let Some(state) = decision(&ints, "exact_value")? else { return Ok(None) };
        py.allow_threads(|| guard(|| Ok(locked(&self.inner).exact_value(&state, budget).map(value_lists))))
    }

    /// ⇄ `_Probes.exact_options` (`ExactEndgames.exact_options`: `budget` its `max_nodes`): (action, values) in the
    /// options' order.
    fn exact_options(&self, py: Python<'_>, ints: Vec<i64>, budget: usize) -> PyResult<Option<Vec<(i32, Lists)>>> {
        let Some(state) = decision(&ints, "exact_options")? else { return Ok(None) };
        let options = |options: Vec<(i32, _)>| options.into_iter().map(|(action, values)| (action, value_lists(values))).collect();
        py.allow_threads(|| guard(|| Ok(locked(&self.inner).exact_options(&state, budget).map(options))))
    }

    /// ⇄ `_Probes.exact_step`: the step's equilibrium as `exact::Step`.
    fn exact_step(&self, py: Python<'_>, ints: Vec<i64>) -> PyResult<Option<Step>> {
        let Some(state) = decision(&ints, "exact_step")? else { return Ok(None) };
        py.allow_threads(|| guard(|| Ok(locked(&self.inner).exact_step(&state).as_ref().map(step))))
    }

    /// The walker if `ints` is in the one-walker scope and not known too large for `budget`
    /// (⇄ `_Probes.in_budget`).
    fn in_budget(&self, ints: Vec<i64>, budget: usize) -> PyResult<Option<usize>> {
        Ok(decision(&ints, "in_budget")?.and_then(|state| locked(&self.inner).in_budget(&state, budget)))
    }

    /// ⇄ `_Probes.pair_in_budget`.
    fn pair_in_budget(&self, ints: Vec<i64>, budget: usize) -> PyResult<bool> {
        Ok(decision(&ints, "pair_in_budget")?.is_some_and(|state| locked(&self.inner).pair_in_budget(&state, budget)))
    }

    /// ⇄ `(_Probes.too_large, _Probes.pair_too_large)`.
    fn too_large(&self) -> (PerBudget, PerBudget) {
        locked(&self.inner).too_large()
    }

    /// ⇄ the memo sizes of `_Probes.solvers` and `pair_solvers` by budget.
    fn memo_sizes(&self) -> (PerBudget, PerBudget) {
        locked(&self.inner).memo_sizes()
    }

    /// The positions every solver holds (⇄ `_Probes.solved_positions`).
    fn solved_positions(&self) -> usize {
        locked(&self.inner).solved_positions()
    }
}

/// `single_walker`, `two_walkers`, `walker_tiles` and `step_start`'s encoding of a position.
type Scope = (Option<usize>, bool, usize, Option<Vec<i64>>);

/// The exact endgames' scope at the position `ints`: (`single_walker`, `two_walkers`,
/// `walker_tiles`, `step_start`'s encoding or `None`) (⇄ the `tablebase` functions of these names).
#[pyfunction]
fn endgame_scope(ints: Vec<i64>) -> PyResult<Scope> {
    let state = State::from_ints(&ints).map_err(|e| PyValueError::new_err(format!("endgame_scope: {e}")))?;
    Ok((
        endgames::single_walker(&state),
        endgames::two_walkers(&state),
        endgames::walker_tiles(&state),
        endgames::step_start(&state).map(|start| start.to_ints()),
    ))
}

/// Add the probes to the module (called by the module's `lib.rs`).
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<EndgameProbes>()?;
    module.add_function(wrap_pyfunction!(endgame_scope, module)?)
}
