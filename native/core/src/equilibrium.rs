//! The exact solver for two-player positions where both players decide: equilibria of the
//! simultaneous steps (a matrix game, `matrix_game.rs`), best play at the others. Python twin:
//! search/equilibrium.py (`EquilibriumSolver`: here `ExactSolver::equilibrium`).

use crate::solver::{ExactSolver, SolverLimit, StepResult, Values};
use crate::state::{Action, State};

/// A simultaneous step found at a decision: the second decider, the first's options (sorted), the
/// positions after each, the second's options (sorted). ⇄ the tuple `_simultaneous` returns.
pub(crate) struct Simultaneous {
    pub(crate) second: usize,
    pub(crate) rows: Vec<Action>,
    pub(crate) children: Vec<State>,
    pub(crate) columns: Vec<Action>,
}

impl ExactSolver {
    /// ⇄ `EquilibriumSolver.solve_step`.
    pub(crate) fn solve_step_equilibrium(&mut self, _state: &State) -> Result<StepResult, SolverLimit> {
        unimplemented!("solver API: the equilibrium solver lands with matrix_game.rs")
    }

    /// ⇄ `EquilibriumSolver._decision`.
    pub(crate) fn equilibrium_decision(&mut self, node: &State, actor: i32) -> Result<Values, SolverLimit> {
        match self.simultaneous(node, actor)? {
            None => self.best(node, actor),
            Some(_) => unimplemented!("solver API: the equilibrium solver lands with matrix_game.rs"),
        }
    }

    /// The step at `node` if another player decides it without seeing `actor`'s choice (⇄
    /// `equilibrium._simultaneous`).
    pub(crate) fn simultaneous(&self, node: &State, actor: i32) -> Result<Option<Simultaneous>, SolverLimit> {
        if !node.is_simultaneous() {
            return Ok(None);
        }
        let mut rows = node.legal_actions();
        rows.sort_unstable();
        let children: Vec<State> = rows
            .iter()
            .map(|&action| {
                let mut child = *node;
                child.apply(action).expect("a legal action");
                child
            })
            .collect();
        let first = children.first().expect("a decision has a legal action");
        let second = first.current_player();
        if second < 0 || second == actor || !first.is_simultaneous() {
            return Ok(None);
        }
        let second = second as usize;
        let seen = first.information_set_key(second);
        if children
            .iter()
            .any(|c| c.current_player() != second as i32 || c.information_set_key(second) != seen)
        {
            return Ok(None);
        }
        if node.players != 2 {
            return Err(SolverLimit(format!(
                "solver: players {actor} and {second} decide a step unseen in a {}-player game; \
                 the solver handles two-player (constant-sum) games",
                node.players
            )));
        }
        let mut columns = first.legal_actions();
        columns.sort_unstable();
        if children.iter().any(|c| {
            let mut options = c.legal_actions();
            options.sort_unstable();
            options != columns
        }) {
            return Err(SolverLimit("solver: the second decider's options depend on the first's choice".into()));
        }
        Ok(Some(Simultaneous { second, rows, children, columns }))
    }
}
