//! `refuge_native.LearnedModel`: a learned evaluator's model of any layout, handed to the core once
//! (⇄ `advisor.players.learned.LearnedEvaluator.native_weights`, which builds it once per evaluator
//! and passes it to every `refuge_native.search` as `evaluator`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use refuge_core::evaluator::{self, Model};
use refuge_core::state::State;

use crate::guard;

/// A network model's hidden layer as Python holds it: (weights_in rows, bias, weights_out).
type Hidden = (Vec<Vec<f64>>, Vec<f64>, Vec<f64>);

/// A fitted model of the learned evaluator (⇄ `advisor.players.learned.Model`).
#[pyclass(module = "refuge_native", frozen)]
pub struct LearnedModel {
    pub inner: Model,
}

/// The position of `ints` (its canonical encoding), or a one-line `ValueError` naming `what`.
fn position(ints: &[i64], what: &str) -> PyResult<State> {
    State::from_ints(ints).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

#[pymethods]
impl LearnedModel {
    /// The model of `layout` ("summary", "mix", "position" or "network") with these weights and,
    /// for a network model only, its hidden layer `(weights_in, bias, weights_out)`
    /// (⇄ `learned.Model.from_json`); a `ValueError` names what does not fit.
    #[new]
    #[pyo3(signature = (layout, win_weights, score_weights, hidden=None))]
    fn new(layout: &str, win_weights: Vec<f64>, score_weights: Vec<f64>, hidden: Option<Hidden>) -> PyResult<Self> {
        let hidden = hidden.as_ref().map(|(rows, bias, out)| (rows.as_slice(), bias.as_slice(), out.as_slice()));
        let inner = Model::with_layout(layout, &win_weights, &score_weights, hidden).map_err(PyValueError::new_err)?;
        Ok(LearnedModel { inner })
    }

    /// Every player's (win share, projected final score) at the position `ints`
    /// (⇄ `learned.LearnedEvaluator.evaluate`).
    fn evaluate(&self, ints: Vec<i64>) -> PyResult<(Vec<f64>, Vec<f64>)> {
        let state = position(&ints, "evaluate")?;
        guard(|| Ok(refuge_core::ismcts::value_lists(evaluator::evaluate(&self.inner, &state))))
    }

    /// Every player's features of the model's layout at the position `ints` (⇄ `learned.layout_rows`).
    fn rows(&self, ints: Vec<i64>) -> PyResult<Vec<Vec<f64>>> {
        let state = position(&ints, "rows")?;
        guard(|| Ok(evaluator::layout_rows(&state, self.inner.layout())))
    }
}

/// Add the learned evaluator's model to the module (called by the module's `lib.rs`).
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<LearnedModel>()
}
