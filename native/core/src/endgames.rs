//! Exact endgames for the search (⇄ `advisor/players/tablebase.py`): the solver's values where it
//! can finish the game — the last walk with one walker at that walker's decision, and the last walk
//! of a two-player game with both walking and few tiles left — probed with a node budget, the
//! solvers and the sizes found too large kept between probes ([`Probes`]).
//!
//! Every branch and budget is Python's, so the search probes the same leaves, gets the same answers
//! (`float(Fraction)`) and its probes learn the same refusals; [`SearchOracle`] answers the native
//! search's leaves with them (⇄ `ExactEndgames.exact_value` as `Tree.simulate` calls it).

use std::sync::{Mutex, PoisonError};

use crate::ismcts::{Oracle, Unsupported, Values};
use crate::rules::{self, NO_CHOICE};
use crate::solver::{ExactSolver, StepResult};
use crate::state::State;
use crate::tree_hash::TreeMap;

/// New positions the root's probe may solve (⇄ `tablebase.DEFAULT_MAX_NODES`).
pub const DEFAULT_MAX_NODES: usize = 100_000;
/// New positions a probe inside the search may solve (⇄ `tablebase.LEAF_MAX_NODES`).
pub const LEAF_MAX_NODES: usize = 2_000;
/// New positions the root's probe of a two-walker position may solve (⇄ `tablebase.TWO_WALKER_MAX_NODES`).
pub const TWO_WALKER_MAX_NODES: usize = 20_000;
/// New positions a two-walker probe inside the search may solve (⇄ `tablebase.TWO_WALKER_LEAF_MAX_NODES`).
pub const TWO_WALKER_LEAF_MAX_NODES: usize = 500;
/// Two-walker positions are probed only with at most this many tiles in the walkers' bags and hands
/// (⇄ `tablebase.TWO_WALKER_MAX_TILES`).
pub const TWO_WALKER_MAX_TILES: usize = 8;
/// Positions a solver keeps before it starts afresh (⇄ `tablebase.MEMO_LIMIT`).
pub const MEMO_LIMIT: usize = 500_000;

/// The walker deciding at `state` when the one-walker scope holds (last walk, one walker), else
/// `None` (⇄ `tablebase.single_walker`).
pub fn single_walker(state: &State) -> Option<usize> {
    let walkers = state.walking[..state.players].iter().filter(|&&w| w).count();
    if state.walk != state.ruleset.walks - 1 || walkers != 1 {
        return None;
    }
    let player = state.current_player();
    (player >= 0 && state.walking[player as usize]).then_some(player as usize)
}

/// Whether `state` is a decision of the last walk of a two-player game with both still walking
/// (⇄ `tablebase.two_walkers`).
pub fn two_walkers(state: &State) -> bool {
    state.players == 2
        && state.walk == state.ruleset.walks - 1
        && state.walking[..state.players].iter().all(|&w| w)
        && state.current_player() >= 0
}

/// The tiles in the walking players' bags and hands together (⇄ `tablebase.walker_tiles`).
pub fn walker_tiles(state: &State) -> usize {
    (0..state.players).filter(|&p| state.walking[p]).map(|p| state.bags[p].len() + state.hands[p].len()).sum()
}

/// A walker's tiles in bag and hand (⇄ `len(pos.bags[walker]) + len(pos.hands[walker])`).
fn tiles_of(state: &State, walker: usize) -> usize {
    state.bags[walker].len() + state.hands[walker].len()
}

/// The start of `state`'s simultaneous step (its first decider to act, no choice of the step made
/// yet) if `state`'s player and another decide it; else `None` (⇄ `tablebase.step_start`).
pub fn step_start(state: &State) -> Option<State> {
    if !rules::is_simultaneous_phase(state.phase) || state.current_player() < 0 {
        return None;
    }
    let deciders: Vec<usize> = (0..state.players).filter(|&p| rules::step_legal(state, p).len() > 1).collect();
    if deciders.len() < 2 || !deciders.contains(&(state.actor as usize)) {
        return None;
    }
    let first = deciders[0];
    let mut start = *state;
    for p in first..state.players {
        start.pending[p] = NO_CHOICE;
    }
    start.actor = first as i32;
    start.legal = rules::step_legal(state, first);
    Some(start)
}

/// What probes learn as they run: solvers by budget (renewed once their memo passes
/// [`MEMO_LIMIT`]) and, per budget, the fewest tiles found too large (⇄ `tablebase._Probes`).
#[derive(Default)]
pub struct Probes {
    solvers: TreeMap<usize, ExactSolver>,
    /// Budget -> the fewest tiles (bag and hand) of a walker whose position was over that budget.
    too_large: TreeMap<usize, usize>,
    pair_solvers: TreeMap<usize, ExactSolver>,
    /// As `too_large` for two walkers: the fewest tiles of both walkers together.
    pair_too_large: TreeMap<usize, usize>,
}

/// A solver for `budget` in `solvers`, afresh once its memo is full (⇄ `_Probes.solver`,
/// `_Probes.pair_solver`).
fn renewed(
    solvers: &mut TreeMap<usize, ExactSolver>,
    budget: usize,
    make: fn(usize) -> ExactSolver,
) -> &mut ExactSolver {
    let solver = solvers.entry(budget).or_insert_with(|| make(budget));
    if solver.memo_len() > MEMO_LIMIT {
        *solver = make(budget);
    }
    solver
}

/// A number per budget, by budget: `(budget, number)`.
pub type PerBudget = Vec<(usize, usize)>;

/// `pairs` in order.
fn sorted(pairs: impl Iterator<Item = (usize, usize)>) -> PerBudget {
    let mut pairs: Vec<_> = pairs.collect();
    pairs.sort_unstable();
    pairs
}

impl Probes {
    /// Empty probes (⇄ `_Probes()`).
    pub fn new() -> Self {
        Probes::default()
    }

    /// The positions every solver holds (⇄ `_Probes.solved_positions`).
    pub fn solved_positions(&self) -> usize {
        self.solvers.values().chain(self.pair_solvers.values()).map(ExactSolver::memo_len).sum()
    }

    /// Per budget, the fewest tiles found too large for one walker, then for two, by budget
    /// (⇄ `_Probes.too_large`, `_Probes.pair_too_large`).
    pub fn too_large(&self) -> (PerBudget, PerBudget) {
        let by_budget = |sizes: &TreeMap<usize, usize>| sorted(sizes.iter().map(|(&b, &t)| (b, t)));
        (by_budget(&self.too_large), by_budget(&self.pair_too_large))
    }

    /// Per budget, the positions its one-walker solver holds, then its two-walker solver, by budget
    /// (⇄ `len(solver.memo)` over `_Probes.solvers`, `_Probes.pair_solvers`).
    pub fn memo_sizes(&self) -> (PerBudget, PerBudget) {
        let sizes = |solvers: &TreeMap<usize, ExactSolver>| sorted(solvers.iter().map(|(&b, s)| (b, s.memo_len())));
        (sizes(&self.solvers), sizes(&self.pair_solvers))
    }

    /// The one-walker solver for `budget` (⇄ `_Probes.solver`).
    fn solver(&mut self, budget: usize) -> &mut ExactSolver {
        renewed(&mut self.solvers, budget, ExactSolver::new)
    }

    /// The two-walker solver for `budget` (⇄ `_Probes.pair_solver`).
    fn pair_solver(&mut self, budget: usize) -> &mut ExactSolver {
        renewed(&mut self.pair_solvers, budget, ExactSolver::equilibrium)
    }

    /// Whether `state` is a two-walker position small enough and not known too large for `budget`
    /// (⇄ `_Probes.pair_in_budget`).
    pub fn pair_in_budget(&self, state: &State, budget: usize) -> bool {
        if !two_walkers(state) {
            return false;
        }
        let tiles = walker_tiles(state);
        tiles <= TWO_WALKER_MAX_TILES && tiles < self.pair_too_large.get(&budget).copied().unwrap_or(usize::MAX)
    }

    /// Remember that the two-walker `state` was over `budget` (⇄ `_Probes.pair_refused`).
    fn pair_refused(&mut self, state: &State, budget: usize) {
        let known = self.pair_too_large.entry(budget).or_insert(usize::MAX);
        *known = walker_tiles(state).min(*known);
    }

    /// The walker, if `state` is in the one-walker scope and not known too large for `budget`
    /// (⇄ `_Probes.in_budget`).
    pub fn in_budget(&self, state: &State, budget: usize) -> Option<usize> {
        let walker = single_walker(state)?;
        (tiles_of(state, walker) < self.too_large.get(&budget).copied().unwrap_or(usize::MAX)).then_some(walker)
    }

    /// Remember that `state` was over `budget` (⇄ `_Probes.refused`).
    fn refused(&mut self, state: &State, walker: usize, budget: usize) {
        let known = self.too_large.entry(budget).or_insert(usize::MAX);
        *known = tiles_of(state, walker).min(*known);
    }

    /// Every player's exact values at the decision `state` with the leaf budget `budget`, or
    /// `None` (⇄ `_Probes.exact_value`, as `ExactEndgames.exact_value` calls it with its
    /// `leaf_max_nodes`).
    pub fn exact_value(&mut self, state: &State, budget: usize) -> Option<Values> {
        let Some(walker) = self.in_budget(state, budget) else {
            return self.pair_value(state);
        };
        match self.solver(budget).value_floats(state) {
            Ok(values) => Some(values),
            Err(_) => {
                self.refused(state, walker, budget);
                None
            }
        }
    }

    /// Every player's exact values after each option at the decision `state` with the root budget
    /// `budget`, in the options' order, or `None` (⇄ `_Probes.exact_options`, as
    /// `ExactEndgames.exact_options` calls it with its `max_nodes`).
    pub fn exact_options(&mut self, state: &State, budget: usize) -> Option<Vec<(i32, Values)>> {
        let Some(walker) = self.in_budget(state, budget) else {
            return self.pair_options(state);
        };
        match self.solver(budget).solve(state) {
            Ok(result) => Some(result.options.iter().map(|o| (o.action, o.value.floats())).collect()),
            Err(_) => {
                self.refused(state, walker, budget);
                None
            }
        }
    }

    /// The exact equilibrium of `state`'s simultaneous step (two walkers, both deciding), or `None`
    /// (⇄ `_Probes.exact_step`).
    pub fn exact_step(&mut self, state: &State) -> Option<StepResult> {
        let start = step_start(state)?;
        if !self.pair_in_budget(state, TWO_WALKER_MAX_NODES) {
            return None;
        }
        match self.pair_solver(TWO_WALKER_MAX_NODES).solve_step(&start) {
            Ok(step) => Some(step),
            Err(_) => {
                self.pair_refused(state, TWO_WALKER_MAX_NODES);
                None
            }
        }
    }

    /// ⇄ `_Probes._pair_value`: at a step both decide, the step's value at its start and,
    /// after the first decider's (hidden) choice, that choice's value against the second's mix.
    fn pair_value(&mut self, state: &State) -> Option<Values> {
        let budget = TWO_WALKER_LEAF_MAX_NODES;
        if !self.pair_in_budget(state, budget) {
            return None;
        }
        let solver = self.pair_solver(budget);
        let solved = match step_start(state) {
            None => solver.value_floats(state),
            Some(start) => solver.solve_step(&start).map(|step| {
                let first = &step.seats[0];
                if state.actor == first.player as i32 {
                    step.value.floats()
                } else {
                    let choice = state.pending[first.player];
                    let option = first.options.iter().find(|o| o.action == choice);
                    option.expect("the first decider's choice is one of its options").value.floats()
                }
            }),
        };
        match solved {
            Ok(values) => Some(values),
            Err(_) => {
                self.pair_refused(state, budget);
                None
            }
        }
    }

    /// ⇄ `_Probes._pair_options`.
    fn pair_options(&mut self, state: &State) -> Option<Vec<(i32, Values)>> {
        if step_start(state).is_some() {
            let step = self.exact_step(state)?;
            let seat = step.seats.iter().find(|s| s.player as i32 == state.actor);
            let seat = seat.expect("the decider is one of the step's seats");
            return Some(seat.options.iter().map(|o| (o.action, o.value.floats())).collect());
        }
        let budget = TWO_WALKER_MAX_NODES;
        if !self.pair_in_budget(state, budget) {
            return None;
        }
        match self.pair_solver(budget).solve(state) {
            Ok(result) => Some(result.options.iter().map(|o| (o.action, o.value.floats())).collect()),
            Err(_) => {
                self.pair_refused(state, budget);
                None
            }
        }
    }
}

/// The exact endgames as one native search's oracle: `probes` answer its leaves with the leaf
/// budget (⇄ an `ExactEndgames` as `Tree.simulate` calls it). The probes are locked for each probe
/// only, so a progress report may probe them too between iterations (as Python's hook can) and
/// another thread waits rather than failing.
pub struct SearchOracle<'a> {
    probes: &'a Mutex<Probes>,
    leaf_max_nodes: usize,
}

impl<'a> SearchOracle<'a> {
    /// The oracle probing with `probes` at `leaf_max_nodes` (⇄ `ExactEndgames.leaf_max_nodes`).
    pub fn new(probes: &'a Mutex<Probes>, leaf_max_nodes: usize) -> Self {
        SearchOracle { probes, leaf_max_nodes }
    }
}

/// The probes behind `probes`' lock. A panic while they were held (a bug, reported as an error
/// where it happened) leaves them usable: every probe's bookkeeping is made after its solve.
pub fn locked(probes: &Mutex<Probes>) -> std::sync::MutexGuard<'_, Probes> {
    probes.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Oracle<State> for SearchOracle<'_> {
    /// ⇄ `ExactEndgames.exact_value`: out of the last walk, out of every scope, answered without
    /// taking the probes.
    fn exact_value(&self, state: &State) -> Result<Option<Values>, Unsupported> {
        if state.walk != state.ruleset.walks - 1 {
            return Ok(None);
        }
        Ok(locked(self.probes).exact_value(state, self.leaf_max_nodes))
    }

    /// Never: every leaf in the exact endgames' scope is solved natively or rolled out.
    fn may_refuse(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::DEFAULT_ROLLOUT;
    use crate::ismcts::{run_tree, Config, Helpers, Table};
    use crate::rng::Rng;

    /// Every decision of the last walk in seeded heuristic games of two players.
    fn last_walk(games: u64) -> Vec<State> {
        let mut found = Vec::new();
        for game in 0..games {
            let mut state = State::new_named(2, "forest").expect("a shipped route");
            let mut rng = Rng::new(game);
            while !state.is_terminal() {
                if state.is_chance() {
                    let outcome = state.sample_chance(&mut rng);
                    state.apply(outcome).expect("a chance outcome");
                    continue;
                }
                if state.walk == state.ruleset.walks - 1 {
                    found.push(state);
                }
                let action = DEFAULT_ROLLOUT.choose(&state, &mut rng);
                state.apply(action).expect("a legal action");
            }
        }
        found
    }

    #[test]
    fn a_refused_probe_is_remembered_for_as_many_tiles_or_more() {
        let walkers: Vec<State> = last_walk(12).into_iter().filter(|s| single_walker(s).is_some()).collect();
        let mut probes = Probes::new();
        let large = walkers
            .iter()
            .rev()
            .find(|s| Probes::new().exact_value(s, 1).is_none())
            .expect("a position over a budget of one new position");
        assert_eq!(probes.exact_value(large, 1), None);
        assert_eq!(probes.in_budget(large, 1), None, "not probed again");
        assert_eq!(probes.too_large().0, vec![(1, walker_tiles(large))]);
        assert!(probes.in_budget(large, 2).is_some(), "another budget has not learnt it");
        for state in &walkers {
            let fewer = walker_tiles(state) < walker_tiles(large);
            assert_eq!(probes.in_budget(state, 1).is_some(), fewer);
        }
        let answered = probes.exact_value(large, LEAF_MAX_NODES * 50);
        let (wins, _) = answered.expect("a large enough budget solves it");
        assert!((wins.iter().sum::<f64>() - 1.0).abs() < 1e-12, "the win shares sum to 1 (C18)");
        assert!(probes.solved_positions() > 0);
    }

    #[test]
    fn a_step_start_undoes_the_steps_choices_and_is_its_own_start() {
        let starts: Vec<(State, State)> =
            last_walk(6).into_iter().filter_map(|s| step_start(&s).map(|start| (s, start))).collect();
        assert!(starts.len() > 3);
        let mut later = 0;
        for (state, start) in &starts {
            let first = start.actor as usize;
            assert!(rules::step_legal(state, first).len() > 1);
            assert!((first..state.players).all(|p| start.pending[p] == NO_CHOICE));
            assert_eq!(step_start(start).as_ref(), Some(start));
            later += (state.actor != start.actor) as usize;
        }
        assert!(later > 0, "some decisions are a later seat's");
    }

    #[test]
    fn the_search_oracle_answers_one_walker_leaves() {
        let walkers = last_walk(12).into_iter().filter(|s| single_walker(s).is_some());
        let state = walkers.max_by_key(walker_tiles).expect("a walker");
        let probes = Mutex::new(Probes::new());
        let oracle = SearchOracle::new(&probes, LEAF_MAX_NODES);
        let helpers = Helpers { rollout: Some(&DEFAULT_ROLLOUT), oracle: Some(&oracle), ..Helpers::default() };
        let outcome = run_tree(&state, &Config::default(), &helpers, Rng::new(1), 60, &mut Table::default());
        assert_eq!(outcome.expect("answered natively").iterations, 60);
        assert!(locked(&probes).solved_positions() > 0);
    }
}
