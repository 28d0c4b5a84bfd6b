//! Refuge as the search sees it: the rules' [`State`] speaking the tree's game verbs
//! (⇄ `positions.kernel.position.Position` as a `search.protocol.Game`), and the helpers of the
//! two presets (⇄ `advisor/players/agents.py`, `bots.advisor_request`): the heuristic rollout
//! policy and prior, the learned cut-off evaluator, and the exact-endgame oracle's scope.

use crate::evaluator::{self, Model};
use crate::heuristic::Heuristic;
use crate::ismcts::{Evaluator, Game, Oracle, Policy, Unsupported, Values};
use crate::rng::Rng;
use crate::state::State;

impl Game for State {
    type Key = (usize, u64, i32);

    fn players(&self) -> usize {
        self.players
    }

    fn current_player(&self) -> i32 {
        State::current_player(self)
    }

    fn is_simultaneous(&self) -> bool {
        State::is_simultaneous(self)
    }

    fn legal_actions(&self) -> Vec<i32> {
        State::legal_actions(self)
    }

    /// ⇄ `Position.apply`; the tree plays only legal actions, so an illegal one is a bug.
    fn apply(&mut self, action: i32) {
        if let Err(error) = State::apply(self, action) {
            panic!("search: the tree played an illegal action {action}: {error:?}");
        }
    }

    fn sample_chance(&self, rng: &mut Rng) -> i32 {
        State::sample_chance(self, rng)
    }

    fn returns(&self) -> Vec<f64> {
        State::returns(self)
    }

    /// ⇄ `Position.scores`: each player's VP.
    fn scores(&self) -> Vec<f64> {
        self.vp[..self.players].iter().map(|&v| v as f64).collect()
    }

    fn information_set_key(&self, player: i32) -> Self::Key {
        State::information_set_key(self, player as usize)
    }

    fn determinize(&self, player: i32, rng: &mut Rng) -> Self {
        State::determinize(self, player as usize, rng)
    }

    fn step_start(&self, player: i32) -> Option<Self> {
        State::step_start(self, player as usize)
    }
}

impl Policy<State> for Heuristic {
    /// ⇄ `HeuristicPolicy.choose`.
    fn choose(&self, state: &State, rng: &mut Rng) -> i32 {
        Heuristic::choose(self, state, rng)
    }
}

impl Evaluator<State> for Model {
    /// ⇄ `LearnedEvaluator.evaluate`.
    fn evaluate(&self, state: &State) -> Values {
        evaluator::evaluate(self, state)
    }
}

/// The exact-endgame oracle's scope (⇄ `advisor/players/tablebase.py` `ExactEndgames`): the native
/// core has no solver yet, so a leaf the oracle might answer stops the search (the Python search
/// runs it instead); everywhere else the oracle answers nothing and has no effect.
pub struct EndgameScope;

/// ⇄ `tablebase.TWO_WALKER_MAX_TILES`.
pub const TWO_WALKER_MAX_TILES: usize = 8;

impl Oracle<State> for EndgameScope {
    /// ⇄ `ExactEndgames.exact_value`'s scope: `single_walker`, else `two_walkers` with at most
    /// `TWO_WALKER_MAX_TILES` tiles in the walkers' bags and hands.
    fn exact_value(&self, state: &State) -> Result<Option<Values>, Unsupported> {
        let player = State::current_player(state);
        let walking = &state.walking[..state.players];
        if player < 0 || state.walk != state.ruleset.walks - 1 {
            return Ok(None);
        }
        let walkers = walking.iter().filter(|&&w| w).count();
        let single = walkers == 1 && walking[player as usize];
        let pair = state.players == 2 && walkers == 2 && {
            let tiles: usize = (0..2).map(|p| state.bags[p].len() + state.hands[p].len()).sum();
            tiles <= TWO_WALKER_MAX_TILES
        };
        if single || pair {
            return Err(Unsupported("an exact-endgame leaf (the native core has no solver yet)".into()));
        }
        Ok(None)
    }
}
