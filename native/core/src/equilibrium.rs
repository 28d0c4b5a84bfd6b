//! The exact solver for two-player positions where both players decide: equilibria of the
//! simultaneous steps (a matrix game, `matrix_game.rs`), best play at the others. Python twin:
//! search/equilibrium.py (`EquilibriumSolver`: here `ExactSolver::equilibrium`).

use num_rational::BigRational;
use num_traits::Zero;

use crate::matrix_game::{solve_matrix_game, MatrixSolution};
use crate::solver::{ExactSolver, ExactValue, SeatStrategy, SolvedOption, SolverLimit, StepResult, ValueId, Values};
use crate::solver_memo::Memo;
use crate::state::{Action, State};

/// A simultaneous step found at a decision: the second decider, the first's options (sorted), the
/// positions after each, the second's options (sorted). ⇄ the tuple `_simultaneous` returns.
pub(crate) struct Simultaneous {
    pub(crate) second: usize,
    pub(crate) rows: Vec<Action>,
    pub(crate) children: Vec<State>,
    pub(crate) columns: Vec<Action>,
}

/// A two-decider step inside the recursion: who, the options, the outcomes, the equilibrium
/// (⇄ `equilibrium._Step`).
struct Step {
    first: usize,
    second: usize,
    rows: Vec<Action>,
    columns: Vec<Action>,
    /// `cells[r][c]`: the value after row option r and column option c.
    cells: Vec<Vec<ValueId>>,
    solution: MatrixSolution,
}

impl ExactSolver {
    /// Both seats' exact equilibrium at `state`, the start of a step two players decide unseen
    /// (⇄ `EquilibriumSolver.solve_step`).
    pub(crate) fn solve_step_equilibrium(&mut self, state: &State) -> Result<StepResult, SolverLimit> {
        let player = state.current_player();
        let start = self.memo_len();
        let (step, value) = self.call(player, state, true, |solver| {
            let step = if player >= 0 { solver.step(state, player)? } else { None };
            let step = step.ok_or_else(|| {
                SolverLimit("solver: not the start of a simultaneous step two players decide".into())
            })?;
            let value = ExactValue::from_values(&mixed(&step, &solver.memo));
            Ok((step, value))
        })?;
        let memo = &self.memo;
        let by_row: Vec<Vec<&Values>> =
            step.cells.iter().map(|row| row.iter().map(|&v| memo.value(v)).collect()).collect();
        let by_column: Vec<Vec<&Values>> =
            (0..step.columns.len()).map(|c| step.cells.iter().map(|row| memo.value(row[c])).collect()).collect();
        let solution = &step.solution;
        let first = seat(step.first, &step.rows, &by_row, &solution.columns, &solution.rows);
        let second = seat(step.second, &step.columns, &by_column, &solution.rows, &solution.columns);
        Ok(StepResult { seats: [first, second], value, nodes: self.memo_len() - start })
    }

    /// A decision's value: a two-decider step's equilibrium, else the decider's best option (⇄
    /// `EquilibriumSolver._decision`).
    pub(crate) fn equilibrium_decision(&mut self, node: &State, actor: i32) -> Result<ValueId, SolverLimit> {
        match self.step(node, actor)? {
            None => self.best(node, actor),
            Some(step) => {
                let value = mixed(&step, &self.memo);
                Ok(self.memo.add(value))
            }
        }
    }

    /// The matrix game at `node` if another player decides the same step unseen (⇄
    /// `EquilibriumSolver._step`).
    fn step(&mut self, node: &State, actor: i32) -> Result<Option<Step>, SolverLimit> {
        let Some(found) = self.simultaneous(node, actor)? else {
            return Ok(None);
        };
        let mut cells = Vec::with_capacity(found.children.len());
        for child in &found.children {
            let mut row = Vec::with_capacity(found.columns.len());
            for &column in &found.columns {
                row.push(self.after(child, column)?);
            }
            cells.push(row);
        }
        let wins: Vec<Vec<BigRational>> =
            cells.iter().map(|row| row.iter().map(|&v| self.memo.value(v).fraction(actor as usize)).collect()).collect();
        let solution = solve_matrix_game(&wins);
        let Simultaneous { second, rows, columns, .. } = found;
        Ok(Some(Step { first: actor as usize, second, rows, columns, cells, solution }))
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

/// Every component of `outcomes` averaged with `weights` (⇄ `equilibrium._average`).
fn average(weights: &[BigRational], outcomes: &[&Values]) -> Vec<BigRational> {
    let mut total = vec![BigRational::zero(); outcomes[0].len()];
    for (weight, values) in weights.iter().zip(outcomes) {
        if !weight.is_zero() {
            for (i, sum) in total.iter_mut().enumerate() {
                *sum += weight * values.fraction(i);
            }
        }
    }
    total
}

/// The step's value when both play the equilibrium, every component, its outcomes' values held by
/// `memo` (⇄ `equilibrium._mixed`).
fn mixed(step: &Step, memo: &Memo) -> Values {
    let solution = &step.solution;
    let mut total: Vec<BigRational> = Vec::new();
    for (weight, row) in solution.rows.iter().zip(&step.cells) {
        let outcomes: Vec<&Values> = row.iter().map(|&v| memo.value(v)).collect();
        let row_value = average(&solution.columns, &outcomes);
        if total.is_empty() {
            total = vec![BigRational::zero(); row_value.len()];
        }
        for (sum, share) in total.iter_mut().zip(row_value) {
            *sum += weight * share;
        }
    }
    Values::common(&total)
}

/// A seat's options valued against the other's mix (`outcomes[k]`: option k's outcomes, one per
/// option of the other seat), with its own mix (⇄ `equilibrium._seat`).
fn seat(player: usize, actions: &[Action], outcomes: &[Vec<&Values>], against: &[BigRational], mix: &[BigRational]) -> SeatStrategy {
    let options = actions
        .iter()
        .zip(outcomes)
        .map(|(&action, row)| {
            let value = ExactValue::from_values(&Values::common(&average(against, row)));
            SolvedOption::new(action, player, value)
        })
        .collect();
    SeatStrategy { player, options, mix: mix.to_vec() }
}
