//! Refuge as the search sees it: the rules' [`State`] speaking the tree's game verbs
//! (⇄ `positions.kernel.position.Position` as a `search.protocol.Game`), and the helpers of the
//! two presets (⇄ `advisor/players/agents.py`, `bots.advisor_request`): the heuristic rollout
//! policy and prior and the learned cut-off evaluator (the exact-endgame oracle: `endgames`).

use std::borrow::Cow;

use crate::evaluator::{self, Model};
use crate::heuristic::Heuristic;
use crate::ismcts::{Evaluator, Game, PerPlayer, Policy, Values, MAX_SEATS};
use crate::rng::Rng;
use crate::state::{State, MAX_PLAYERS};

const _: () = assert!(MAX_PLAYERS <= MAX_SEATS, "the search holds a value per player inline");

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

    /// ⇄ `Position.legal_actions`: a decision's are borrowed from the state.
    fn legal_actions(&self) -> Cow<'_, [i32]> {
        if self.is_chance() {
            Cow::Owned(State::legal_actions(self))
        } else {
            Cow::Borrowed(self.decisions())
        }
    }

    /// ⇄ `Position.apply`; the tree plays only legal actions, so an illegal one is a bug.
    fn apply(&mut self, action: i32) {
        if let Err(error) = State::apply(self, action) {
            panic!("search: the tree played an illegal action {action}: {error:?}");
        }
    }

    /// ⇄ one event of `rules.playout`: no legality check, no history fold.
    fn play(&mut self, action: i32) {
        crate::rules::play(self, action)
    }

    fn sample_chance(&mut self, rng: &mut Rng) -> i32 {
        State::sample_chance(self, rng)
    }

    /// ⇄ `Position.returns`.
    fn returns(&self) -> PerPlayer {
        PerPlayer::from_slice(&self.win_shares()[..self.players])
    }

    /// ⇄ `Position.scores`: each player's VP.
    fn scores(&self) -> PerPlayer {
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
