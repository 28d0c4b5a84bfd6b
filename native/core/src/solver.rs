//! Exact expectimax with memoisation where one player makes every decision (the last walk with a
//! single walker), and the memo, budget and refusals the two-walker solver (`equilibrium.rs`)
//! shares. Python twin: search/solver.py.
//!
//! Every value is exact: integers over a common denominator inside (`Values`), `BigRational` at
//! the API. The order positions are visited in, the memo (keyed by `State::solver_key`), the node
//! budget per call and the refusals are Python's, so `nodes`, memo sizes and refusals match too.
//! The keys being solved and a chance event's outcomes are written into buffers the solver keeps
//! (as stacks: a position's follow its parent's), so a position solved allocates nothing of its own.

pub use num_bigint::BigInt;
pub use num_rational::BigRational;
use num_traits::ToPrimitive;

use crate::catalogue::{CHANCE_PLAYER, TERMINAL_PLAYER};
pub(crate) use crate::exact_values::Values;
pub(crate) use crate::solver_memo::ValueId;
use crate::solver_memo::Memo;
use crate::state::{Action, ActionList, State, LEGAL_CAP};
use crate::tree_hash::TreeMap;

/// ⇄ `search.solver.DEFAULT_MAX_NODES`.
pub const DEFAULT_MAX_NODES: usize = 300_000;

/// Every player's exact win share and expected final score, assuming the decider's best play.
/// ⇄ `search.solver.ExactValue`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactValue {
    /// Win share per player (win 1, k-way tie 1/k).
    pub wins: Vec<BigRational>,
    /// Expected final score per player.
    pub scores: Vec<BigRational>,
}

impl ExactValue {
    /// Every share and score as Python's `float(Fraction)`: correctly rounded. ⇄
    /// `advisor.players.tablebase._floats`.
    pub fn floats(&self) -> crate::ismcts::Values {
        (self.wins.iter().map(to_float).collect(), self.scores.iter().map(to_float).collect())
    }

    /// The value of the solver's integers (⇄ `ExactValue.from_values`).
    pub(crate) fn from_values(values: &Values) -> ExactValue {
        let mut wins = values.fractions();
        let scores = wins.split_off(values.len() / 2);
        ExactValue { wins, scores }
    }
}

/// `float(fraction)`, correctly rounded to nearest, ties to even (⇄ `Fraction.__float__`).
pub fn to_float(fraction: &BigRational) -> f64 {
    fraction.to_f64().expect("a ratio of integers always converts to a float")
}

/// One root action's exact value, assuming best play afterwards (⇄ `search.solver.SolvedOption`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolvedOption {
    pub action: i32,
    /// The deciding player's exact win share.
    pub win: BigRational,
    /// The deciding player's exact expected final score.
    pub score: BigRational,
    /// Every player's win share and expected score after this action.
    pub value: ExactValue,
}

impl SolvedOption {
    /// An option of `player` with every player's value (⇄ `SolvedOption(action, value.wins[player], ...)`).
    pub(crate) fn new(action: i32, player: usize, value: ExactValue) -> SolvedOption {
        SolvedOption { action, win: value.wins[player].clone(), score: value.scores[player].clone(), value }
    }
}

/// Every root option's exact value and the best one (⇄ `search.solver.SolverResult`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverResult {
    pub player: usize,
    /// In the game's order of the root's legal actions.
    pub options: Vec<SolvedOption>,
    /// The highest win share, then expected score, then the lowest action code.
    pub best: i32,
    /// Distinct positions evaluated by this call.
    pub nodes: usize,
}

/// One seat's options at a simultaneous step (⇄ `search.equilibrium.SeatStrategy`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatStrategy {
    pub player: usize,
    /// In action-code order, each valued against the other seat's equilibrium strategy.
    pub options: Vec<SolvedOption>,
    /// The equilibrium probability of each option (same order).
    pub mix: Vec<BigRational>,
}

/// A simultaneous step's exact equilibrium (⇄ `search.equilibrium.StepResult`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepResult {
    /// The step's first decider, then the second.
    pub seats: [SeatStrategy; 2],
    /// Every player's value when both play the equilibrium.
    pub value: ExactValue,
    /// Distinct positions evaluated by this call.
    pub nodes: usize,
}

/// Why the solver gave up, in Python's one-line message (⇄ `SolverLimitError`; `SolverSizeError`
/// when [`SolverLimit::is_size`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverLimit(pub String);

/// The start of the message of a budget refusal (⇄ `SolverSizeError`).
const SIZE_MESSAGE: &str = "solver: position too large:";

impl SolverLimit {
    /// Whether this is Python's `SolverSizeError` (more than `max_nodes` new positions) rather
    /// than another limit. A root refused before is refused again as a plain `SolverLimitError`
    /// (⇄ `ExactSolver._call`), whatever its message: see [`ExactSolver::refusal`].
    pub fn is_size(&self) -> bool {
        self.0.starts_with(SIZE_MESSAGE)
    }
}

impl std::fmt::Display for SolverLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SolverLimit {}

/// The exact solver with a memo kept between calls (⇄ `search.solver.ExactSolver`, and
/// `search.equilibrium.EquilibriumSolver` when made by [`ExactSolver::equilibrium`]).
pub struct ExactSolver {
    max_nodes: usize,
    /// Whether two deciders are solved as equilibria (⇄ `EquilibriumSolver`).
    pub(crate) two_deciders: bool,
    pub(crate) memo: Memo,
    /// The roots refused, by [`root_key`] (⇄ `ExactSolver.refused`).
    refused: TreeMap<Box<[i16]>, String>,
    decider: i32,
    budget_end: usize,
    /// The keys of the positions being solved, each after its parent's.
    keys: Vec<i16>,
    /// The outcomes of the chance events being solved, each event's after its parent's.
    outcomes: Vec<(u64, ValueId)>,
    /// The last root key looked up among the refusals.
    root: Vec<i16>,
}

/// A root's key among the refusals (⇄ the keys of `ExactSolver.refused`: `solver_key()` for
/// `value` and `solve`, `("step", solver_key())` for `solve_step`): whether it is a step's, then
/// the position's key, written into `out`.
fn root_key<'a>(state: &State, step: bool, out: &'a mut Vec<i16>) -> &'a [i16] {
    out.clear();
    out.push(step as i16);
    state.write_solver_key(out);
    out
}

impl ExactSolver {
    /// A solver that gives up beyond `max_nodes` new positions per call (⇄ `ExactSolver(max_nodes)`;
    /// Python refuses a `max_nodes` below 1 before: `SearchConfigError`).
    pub fn new(max_nodes: usize) -> Self {
        ExactSolver {
            max_nodes,
            two_deciders: false,
            memo: Memo::default(),
            refused: TreeMap::default(),
            decider: -1,
            budget_end: 0,
            keys: Vec::new(),
            outcomes: Vec::new(),
            root: Vec::new(),
        }
    }

    /// The two-walker solver: equilibria of the simultaneous steps both decide, best play at the
    /// others (⇄ `EquilibriumSolver(max_nodes)`).
    pub fn equilibrium(max_nodes: usize) -> Self {
        ExactSolver { two_deciders: true, ..ExactSolver::new(max_nodes) }
    }

    /// The new positions a call may solve (⇄ `solver.max_nodes`).
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Positions solved so far (⇄ `len(solver.memo)`).
    pub fn memo_len(&self) -> usize {
        self.memo.len()
    }

    /// The message `state` was refused with before by `value`/`solve` (`step` false) or
    /// `solve_step` (`step` true), if it was (⇄ `solver.refused.get(key)`): asked again, it is
    /// refused at once with that message, as a plain `SolverLimitError`.
    pub fn refusal(&self, state: &State, step: bool) -> Option<&str> {
        self.refused.get(root_key(state, step, &mut Vec::new())).map(String::as_str)
    }

    /// Every player's exact value at `state`, a decision, a chance event or the end (⇄
    /// `ExactSolver.value`).
    pub fn value(&mut self, state: &State) -> Result<ExactValue, SolverLimit> {
        let value = self.call(state.current_player(), state, false, |solver| solver.value_of(state))?;
        Ok(ExactValue::from_values(self.memo.value(value)))
    }

    /// [`ExactSolver::value`] as floats: every player's win share, then expected score, each
    /// correctly rounded (⇄ `tablebase._floats(solver.value(state))`), made from the solver's
    /// integers without building the fractions.
    pub fn value_floats(&mut self, state: &State) -> Result<crate::ismcts::Values, SolverLimit> {
        let value = self.call(state.current_player(), state, false, |solver| solver.value_of(state))?;
        Ok(self.memo.value(value).floats())
    }

    /// The exact value of each option at `state` for its current player (⇄ `ExactSolver.solve`;
    /// the two-walker solver's refuses a two-decider step first: ⇄ `EquilibriumSolver.solve`).
    pub fn solve(&mut self, state: &State) -> Result<SolverResult, SolverLimit> {
        let player = state.current_player();
        if self.two_deciders && player >= 0 && self.simultaneous(state, player)?.is_some() {
            return Err(SolverLimit("solver: a simultaneous step two players decide: see solve_step".into()));
        }
        if player < 0 {
            return Err(SolverLimit("solver: the root must be a player's decision, not chance or the end".into()));
        }
        let start = self.memo.len();
        let options = self.call(player, state, false, |solver| {
            let mut options = Vec::new();
            for action in state.legal_actions() {
                let values = solver.after(state, action)?;
                let value = ExactValue::from_values(solver.memo.value(values));
                options.push(SolvedOption::new(action, player as usize, value));
            }
            Ok(options)
        })?;
        let best = options
            .iter()
            .min_by(|a, b| b.win.cmp(&a.win).then_with(|| b.score.cmp(&a.score)).then_with(|| a.action.cmp(&b.action)))
            .map(|o| o.action)
            .expect("a decision has a legal action");
        Ok(SolverResult { player: player as usize, options, best, nodes: self.memo.len() - start })
    }

    /// Both seats' exact equilibrium at `state`, the start of a simultaneous step two players
    /// decide (⇄ `EquilibriumSolver.solve_step`; the one-walker solver has no such method and
    /// refuses).
    pub fn solve_step(&mut self, state: &State) -> Result<StepResult, SolverLimit> {
        if !self.two_deciders {
            return Err(SolverLimit("solver: solve_step needs the two-walker (equilibrium) solver".into()));
        }
        self.solve_step_equilibrium(state)
    }

    // --- the recursion --------------------------------------------------------------------------

    /// One call at the root `state` (⇄ `ExactSolver._call`; `step`: a `solve_step`): a root
    /// refused before is refused at once; else the call's decider and budget are set, and a
    /// refusal is remembered for the root.
    pub(crate) fn call<T>(
        &mut self,
        player: i32,
        state: &State,
        step: bool,
        body: impl FnOnce(&mut Self) -> Result<T, SolverLimit>,
    ) -> Result<T, SolverLimit> {
        if !self.refused.is_empty() {
            if let Some(message) = self.refused.get(root_key(state, step, &mut self.root)) {
                return Err(SolverLimit(message.clone()));
            }
        }
        self.decider = player;
        self.budget_end = self.memo.len() + self.max_nodes;
        // a refused call's stacks are left as they were: start them afresh
        self.keys.clear();
        self.outcomes.clear();
        body(self).inspect_err(|error| {
            let root = root_key(state, step, &mut self.root).into();
            self.refused.insert(root, error.0.clone());
        })
    }

    /// The value after `action` at `node` (⇄ `ExactSolver._after`).
    pub(crate) fn after(&mut self, node: &State, action: Action) -> Result<ValueId, SolverLimit> {
        let mut child = *node;
        child.apply(action).expect("the solver plays legal actions and chance outcomes only");
        self.value_of(&child)
    }

    /// A position's value, from the memo or solved (⇄ `ExactSolver._value`).
    pub(crate) fn value_of(&mut self, node: &State) -> Result<ValueId, SolverLimit> {
        let start = self.keys.len();
        let hash = node.write_solver_key(&mut self.keys);
        if let Some(known) = self.memo.get(hash, &self.keys[start..]) {
            self.keys.truncate(start);
            return Ok(known);
        }
        if self.memo.len() >= self.budget_end {
            return Err(SolverLimit(format!(
                "{SIZE_MESSAGE} more than {} distinct positions (max_nodes={})",
                self.max_nodes, self.max_nodes
            )));
        }
        let actor = node.current_player();
        let result = if actor == TERMINAL_PLAYER {
            self.memo.add(Values::terminal(&node.vp[..node.players]))
        } else if actor == CHANCE_PLAYER {
            self.expectation(node)?
        } else {
            self.decision(node, actor)?
        };
        self.memo.insert(hash, &self.keys[start..], result);
        self.keys.truncate(start);
        Ok(result)
    }

    /// A decision's value (⇄ `ExactSolver._decision`, `EquilibriumSolver._decision`).
    fn decision(&mut self, node: &State, actor: i32) -> Result<ValueId, SolverLimit> {
        if self.two_deciders {
            return self.equilibrium_decision(node, actor);
        }
        if self.decider < 0 {
            self.decider = actor;
        } else if actor != self.decider {
            return Err(SolverLimit(format!(
                "solver: player {actor} also decides; the solver handles a single decider (player {}), \
                 e.g. the last walk with one player still walking",
                self.decider
            )));
        }
        self.best(node, actor)
    }

    /// A chance event's value: every outcome weighted by its ways (⇄ `ExactSolver._expectation`).
    fn expectation(&mut self, node: &State) -> Result<ValueId, SolverLimit> {
        let start = self.outcomes.len();
        for (outcome, weight) in node.chance_weights() {
            let value = self.after(node, outcome)?;
            self.outcomes.push((weight, value));
        }
        if self.outcomes.len() == start {
            return Err(SolverLimit("solver: a chance event with no outcome".into()));
        }
        let memo = &self.memo;
        let value = Values::expectation(self.outcomes[start..].iter().map(|&(weight, id)| (weight, memo.value(id))));
        self.outcomes.truncate(start);
        Ok(self.memo.add(value))
    }

    /// The decider's best option: highest win share, then expected score, then the lowest action
    /// code (⇄ `ExactSolver._best`).
    pub(crate) fn best(&mut self, node: &State, actor: i32) -> Result<ValueId, SolverLimit> {
        let (win, score) = (actor as usize, node.players + actor as usize);
        let mut actions = node.legal;
        let actions = sorted(&mut actions);
        let mut best: Option<ValueId> = None;
        for &action in actions {
            let values = self.after(node, action)?;
            if best.is_none_or(|b| self.memo.value(values).greater(self.memo.value(b), win, score)) {
                best = Some(values);
            }
        }
        best.ok_or_else(|| SolverLimit(format!("solver: player {actor} has no legal action")))
    }
}

/// A decision's legal actions in ascending order (⇄ `sorted(node.legal_actions())`), sorted in place.
pub(crate) fn sorted(actions: &mut ActionList) -> &[Action] {
    let len = actions.len();
    let mut items = [0; LEGAL_CAP];
    items[..len].copy_from_slice(actions.as_slice());
    items[..len].sort_unstable();
    *actions = ActionList::from_slice(&items[..len]).expect("as many actions as before");
    actions.as_slice()
}

#[cfg(test)]
mod tests {
    use num_traits::{One, Zero};
    use proptest::prelude::*;

    use super::*;
    use crate::heuristic_choice;
    use crate::rng::Rng;

    const ROUTES: [&str; 3] = ["meadows", "forest", "mountains"];

    /// Every position of a seeded game (heuristic decisions) from the first one of the last walk
    /// with a single walker to the end.
    fn one_walker_scope(players: usize, route: &str, seed: u64) -> Vec<State> {
        let mut pos = State::new_named(players, route).unwrap();
        let mut rng = Rng::new(seed);
        let mut scope = Vec::new();
        loop {
            let walkers = pos.walking[..players].iter().filter(|&&w| w).count();
            if pos.walk == pos.ruleset.walks - 1 && walkers == 1 || !scope.is_empty() {
                scope.push(pos);
            }
            if pos.is_terminal() {
                return scope;
            }
            let action = if pos.is_chance() { pos.sample_chance(&mut rng) } else { heuristic_choice(&pos, &mut rng) };
            pos.apply(action).unwrap();
        }
    }

    fn sum(values: &[BigRational]) -> BigRational {
        values.iter().fold(BigRational::zero(), |acc, v| acc + v)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        /// At every position the solver holds, the win shares sum to exactly 1 (C18); at a
        /// decision it answers, the best option is at least as good as every other (win share,
        /// then expected score), its value is the position's, and the two-walker solver agrees.
        #[test]
        fn solved_positions_are_consistent(seed in 0u64..100_000, players in 2usize..=4, route in 0usize..3) {
            let scope = one_walker_scope(players, ROUTES[route], seed);
            let mut solver = ExactSolver::new(3_000);
            let mut twin = ExactSolver::equilibrium(3_000);
            for pos in scope.iter().rev() {
                let Ok(value) = solver.value(pos) else { break };
                let same = twin.value(pos);
                prop_assert_eq!(same.as_ref(), Ok(&value));
                let player = pos.current_player();
                if player >= 0 {
                    let result = solver.solve(pos).unwrap();
                    let best = result.options.iter().find(|o| o.action == result.best).unwrap();
                    for option in &result.options {
                        prop_assert!((&best.win, &best.score) >= (&option.win, &option.score));
                    }
                    prop_assert_eq!(&best.value, &value);
                    prop_assert_eq!(result.nodes, 0, "everything below was solved before");
                }
            }
            for values in solver.memo.values() {
                let value = ExactValue::from_values(values);
                prop_assert!(sum(&value.wins).is_one(), "win shares {:?}", value.wins);
            }
        }
    }

    #[test]
    fn a_refused_root_is_refused_again_at_once_with_its_message() {
        let scope = one_walker_scope(2, "meadows", 3);
        let mut solver = ExactSolver::new(50);
        let first = solver.value(&scope[0]).unwrap_err();
        assert!(first.is_size(), "{first}");
        assert_eq!(first.0, "solver: position too large: more than 50 distinct positions (max_nodes=50)");
        let held = solver.memo_len();
        assert!(held >= 50);
        assert_eq!(solver.value(&scope[0]), Err(first.clone()));
        assert_eq!(solver.memo_len(), held);
        assert_eq!(solver.refusal(&scope[0], false), Some(first.0.as_str()));
        assert_eq!(solver.refusal(&scope[0], true), None);
    }

    #[test]
    fn a_chance_root_cannot_be_solved_and_the_end_is_worth_its_result() {
        let scope = (0..).map(|seed| one_walker_scope(3, "forest", seed)).find(|s| s.iter().any(State::is_chance)).unwrap();
        let mut solver = ExactSolver::new(1_000);
        let chance = scope.iter().find(|p| p.is_chance()).unwrap();
        let refusal = solver.solve(chance).unwrap_err();
        assert_eq!(refusal.0, "solver: the root must be a player's decision, not chance or the end");
        assert!(solver.refusal(chance, false).is_none(), "not a refusal remembered");
        let end = scope.last().unwrap();
        let value = solver.value(end).unwrap();
        let returns: Vec<f64> = value.wins.iter().map(to_float).collect();
        assert_eq!(returns, end.returns());
        let vp: Vec<BigRational> = end.vp[..3].iter().map(|&v| BigRational::from_integer(v.into())).collect();
        assert_eq!(value.scores, vp);
    }
}
