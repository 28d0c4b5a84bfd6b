//! Exact expectimax with memoisation where one player makes every decision (the last walk with a
//! single walker), and the memo, budget and refusals the two-walker solver (`equilibrium.rs`)
//! shares. Python twin: search/solver.py.
//!
//! Every value is exact: integers over a common denominator inside (`Values`), `BigRational` at
//! the API. The order positions are visited in, the memo (keyed by `State::solver_key`), the node
//! budget per call and the refusals are Python's, so `nodes`, memo sizes and refusals match too.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

pub use num_bigint::BigInt;
use num_integer::Integer;
pub use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};

use crate::catalogue::{CHANCE_PLAYER, TERMINAL_PLAYER};
use crate::solver_key::SolverKey;
use crate::state::{Action, State};

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
    pub fn floats(&self) -> (Vec<f64>, Vec<f64>) {
        (self.wins.iter().map(to_float).collect(), self.scores.iter().map(to_float).collect())
    }

    /// The value of the solver's integers (⇄ `ExactValue.from_values`).
    pub(crate) fn from_values(values: &Values) -> ExactValue {
        let players = values.nums.len() / 2;
        let shares: Vec<BigRational> =
            values.nums.iter().map(|n| BigRational::new(n.clone(), values.den.clone())).collect();
        ExactValue { wins: shares[..players].to_vec(), scores: shares[players..].to_vec() }
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

/// A position's exact value inside the solver (⇄ `search.solver.Values`): a positive common
/// denominator and every player's win share then every player's expected score over it.
#[derive(Clone, Debug)]
pub(crate) struct Values {
    pub(crate) den: BigInt,
    pub(crate) nums: Vec<BigInt>,
}

impl Values {
    /// The values of exact fractions over their least common denominator (⇄ `_common_denominator`).
    pub(crate) fn common(shares: &[BigRational]) -> Values {
        let den = shares.iter().fold(BigInt::one(), |acc, s| acc.lcm(s.denom()));
        let nums = shares.iter().map(|s| s.numer() * (&den / s.denom())).collect();
        Values { den, nums }
    }

    /// Component `i` as a fraction.
    pub(crate) fn fraction(&self, i: usize) -> BigRational {
        BigRational::new(self.nums[i].clone(), self.den.clone())
    }
}

/// Numerators over a denominator, divided by their greatest common divisor (⇄ `_reduced`).
fn reduced(den: BigInt, nums: Vec<BigInt>) -> Values {
    let divisor = nums.iter().fold(den.clone(), |acc, n| acc.gcd(n));
    if divisor.is_one() {
        return Values { den, nums };
    }
    Values { den: den / &divisor, nums: nums.into_iter().map(|n| n / &divisor).collect() }
}

/// A fast hasher for the memo's keys (FxHash's multiply-rotate over 8-byte words).
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(tail));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl KeyHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(crate) type KeyMap<V> = HashMap<SolverKey, V, BuildHasherDefault<KeyHasher>>;

/// A root the solver refused: a call's kind (a step or not) and the root's key (⇄ the keys of
/// `ExactSolver.refused`: `solver_key()` or `("step", solver_key())`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Root {
    pub(crate) step: bool,
    pub(crate) key: SolverKey,
}

/// The exact solver with a memo kept between calls (⇄ `search.solver.ExactSolver`, and
/// `search.equilibrium.EquilibriumSolver` when made by [`ExactSolver::equilibrium`]).
pub struct ExactSolver {
    max_nodes: usize,
    /// Whether two deciders are solved as equilibria (⇄ `EquilibriumSolver`).
    pub(crate) two_deciders: bool,
    pub(crate) memo: KeyMap<Arc<Values>>,
    refused: HashMap<Root, String>,
    decider: i32,
    budget_end: usize,
}

impl ExactSolver {
    /// A solver that gives up beyond `max_nodes` new positions per call (⇄ `ExactSolver(max_nodes)`;
    /// Python refuses a `max_nodes` below 1 before: `SearchConfigError`).
    pub fn new(max_nodes: usize) -> Self {
        ExactSolver {
            max_nodes,
            two_deciders: false,
            memo: KeyMap::default(),
            refused: HashMap::new(),
            decider: -1,
            budget_end: 0,
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
        self.refused.get(&Root { step, key: state.solver_key() }).map(String::as_str)
    }

    /// Every player's exact value at `state`, a decision, a chance event or the end (⇄
    /// `ExactSolver.value`).
    pub fn value(&mut self, state: &State) -> Result<ExactValue, SolverLimit> {
        let root = Root { step: false, key: state.solver_key() };
        self.call(state.current_player(), root, |solver| {
            solver.value_of(state).map(|values| ExactValue::from_values(&values))
        })
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
        let root = Root { step: false, key: state.solver_key() };
        let options = self.call(player, root, |solver| {
            let mut options = Vec::new();
            for action in state.legal_actions() {
                let values = solver.after(state, action)?;
                options.push(SolvedOption::new(action, player as usize, ExactValue::from_values(&values)));
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

    /// One call (⇄ `ExactSolver._call`): a root refused before is refused at once; else the
    /// call's decider and budget are set, and a refusal is remembered for the root.
    pub(crate) fn call<T>(
        &mut self,
        player: i32,
        root: Root,
        body: impl FnOnce(&mut Self) -> Result<T, SolverLimit>,
    ) -> Result<T, SolverLimit> {
        if let Some(message) = self.refused.get(&root) {
            return Err(SolverLimit(message.clone()));
        }
        self.decider = player;
        self.budget_end = self.memo.len() + self.max_nodes;
        body(self).inspect_err(|error| {
            self.refused.insert(root, error.0.clone());
        })
    }

    /// The value after `action` at `node` (⇄ `ExactSolver._after`).
    pub(crate) fn after(&mut self, node: &State, action: Action) -> Result<Arc<Values>, SolverLimit> {
        let mut child = *node;
        child.apply(action).expect("the solver plays legal actions and chance outcomes only");
        self.value_of(&child)
    }

    /// A position's value, from the memo or solved (⇄ `ExactSolver._value`).
    pub(crate) fn value_of(&mut self, node: &State) -> Result<Arc<Values>, SolverLimit> {
        let key = node.solver_key();
        if let Some(known) = self.memo.get(&key) {
            return Ok(known.clone());
        }
        if self.memo.len() >= self.budget_end {
            return Err(SolverLimit(format!(
                "{SIZE_MESSAGE} more than {} distinct positions (max_nodes={})",
                self.max_nodes, self.max_nodes
            )));
        }
        let actor = node.current_player();
        let result = Arc::new(if actor == TERMINAL_PLAYER {
            terminal(node)
        } else if actor == CHANCE_PLAYER {
            self.expectation(node)?
        } else {
            self.decision(node, actor)?
        });
        self.memo.insert(key, result.clone());
        Ok(result)
    }

    /// A decision's value (⇄ `ExactSolver._decision`, `EquilibriumSolver._decision`).
    fn decision(&mut self, node: &State, actor: i32) -> Result<Values, SolverLimit> {
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
    fn expectation(&mut self, node: &State) -> Result<Values, SolverLimit> {
        let mut weighted = Vec::new();
        for (outcome, weight) in node.chance_weights() {
            weighted.push((weight, self.after(node, outcome)?));
        }
        if weighted.is_empty() {
            return Err(SolverLimit("solver: a chance event with no outcome".into()));
        }
        let common = weighted.iter().fold(BigInt::one(), |acc, (_, v)| acc.lcm(&v.den));
        let mut sums = vec![BigInt::zero(); weighted[0].1.nums.len()];
        let mut total: u64 = 0;
        for (weight, values) in &weighted {
            total += weight;
            let scale = BigInt::from(*weight) * (&common / &values.den);
            for (sum, n) in sums.iter_mut().zip(&values.nums) {
                *sum += &scale * n;
            }
        }
        Ok(reduced(common * BigInt::from(total), sums))
    }

    /// The decider's best option: highest win share, then expected score, then the lowest action
    /// code (⇄ `ExactSolver._best`).
    pub(crate) fn best(&mut self, node: &State, actor: i32) -> Result<Values, SolverLimit> {
        let (win, score) = (actor as usize, node.players + actor as usize);
        let mut actions = node.legal_actions();
        actions.sort_unstable();
        let mut best: Option<Arc<Values>> = None;
        for action in actions {
            let values = self.after(node, action)?;
            let better = match &best {
                None => true,
                Some(b) => {
                    let by_win = (&values.nums[win] * &b.den).cmp(&(&b.nums[win] * &values.den));
                    by_win.then_with(|| (&values.nums[score] * &b.den).cmp(&(&b.nums[score] * &values.den)))
                        == std::cmp::Ordering::Greater
                }
            };
            if better {
                best = Some(values);
            }
        }
        match best {
            Some(values) => Ok((*values).clone()),
            None => Err(SolverLimit(format!("solver: player {actor} has no legal action"))),
        }
    }
}

/// The end's value: the exact win shares (C18: k tied winners 1/k each) and the scores (⇄ the
/// terminal case of `ExactSolver._value`).
fn terminal(node: &State) -> Values {
    let vp = &node.vp[..node.players];
    let best = *vp.iter().max().expect("a game has players");
    let winners = vp.iter().filter(|&&v| v == best).count();
    let den = BigInt::from(winners);
    let mut nums: Vec<BigInt> = vp.iter().map(|&v| BigInt::from((v == best) as i32)).collect();
    nums.extend(vp.iter().map(|&v| BigInt::from(v) * &den));
    Values { den, nums }
}
