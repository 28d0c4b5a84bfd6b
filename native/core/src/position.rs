//! The game verbs a search needs, on `State`. Python twin: positions/kernel/position.py (`Position`).

use crate::catalogue::*;
use crate::encoding;
use crate::hash;
use crate::rng::Rng;
use crate::rules::{self, IllegalAction, Playout};
use crate::state::{Action, Route, Ruleset, State, Tiles, MAX_PLAYERS};

/// Why a game cannot be set up (Python twin: `ImpossiblePositionError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpossiblePosition(pub String);

impl std::fmt::Display for ImpossiblePosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ImpossiblePosition {}

impl State {
    /// The position at the start of the first walk (rulebook, "Game Setup"); the history starts
    /// as SPEC-portable section 1 says. Python twin: `Position.new_game`.
    pub fn new_game(players: usize, route: Route, ruleset: Ruleset) -> Result<State, ImpossiblePosition> {
        let threshold = ruleset
            .storm_threshold(players as i32)
            .filter(|_| ruleset.fits(players))
            .ok_or_else(|| ImpossiblePosition(format!("{players} players: the ruleset does not support them")))?;
        let mut market = [0u8; KIND_COUNT];
        for &k in &route {
            market[k as usize] = ruleset.stack_size as u8;
        }
        let mut pos = State { phase: DECIDE, market, ..State::blank(ruleset, route, players, threshold) };
        for p in 0..players {
            let mut bag = Tiles::EMPTY;
            bag.extend(ruleset.start_bag.as_slice());
            pos.set_bag(p, bag);
            pos.steps[p] = ruleset.start_steps;
            pos.walking[p] = true;
        }
        let mut start = vec![players as i64, route.len() as i64];
        start.extend(route.iter().map(|&k| k as i64));
        encoding::write_ruleset(&ruleset, &mut start);
        pos.history = hash::fold(0, &start);
        rules::reset_weather(&mut pos);
        rules::reset_resolution(&mut pos);
        rules::start_turn(&mut pos);
        Ok(pos)
    }

    /// A new game on a shipped route with the default ruleset (Python twin:
    /// `Position.new_game(players, route_name)`).
    pub fn new_named(players: usize, route: &str) -> Result<State, ImpossiblePosition> {
        let kinds = crate::state::route_named(route).ok_or_else(|| ImpossiblePosition(format!("unknown route {route:?}")))?;
        State::new_game(players, kinds, Ruleset::default_ruleset())
    }

    /// An independent copy: one memcpy (Python twin: `Position.copy`).
    #[inline]
    pub fn copy(&self) -> State {
        *self
    }

    /// The player to decide, `CHANCE_PLAYER` at a chance event, `TERMINAL_PLAYER` at the end.
    /// Python twin: `Position.current_player`.
    #[inline]
    pub fn current_player(&self) -> i32 {
        if self.phase == OVER {
            TERMINAL_PLAYER
        } else if rules::is_chance_phase(self.phase) {
            CHANCE_PLAYER
        } else {
            self.actor
        }
    }

    /// Whether the game is over (Python twin: `Position.is_terminal`).
    #[inline]
    pub fn is_terminal(&self) -> bool {
        self.phase == OVER
    }

    /// Whether the next event is chance (Python twin: `Position.is_chance`).
    #[inline]
    pub fn is_chance(&self) -> bool {
        rules::is_chance_phase(self.phase)
    }

    /// Whether the decision is part of a simultaneous step (Python twin: `Position.is_simultaneous`).
    #[inline]
    pub fn is_simultaneous(&self) -> bool {
        rules::is_simultaneous_phase(self.phase)
    }

    /// The decisions open to the current player, or the possible chance outcomes (Python twin:
    /// `Position.legal_actions`).
    pub fn legal_actions(&self) -> Vec<Action> {
        if self.is_chance() {
            rules::chance_weights(self).0.into_iter().map(|(a, _)| a).collect()
        } else {
            self.legal.as_slice().to_vec()
        }
    }

    /// The decisions open to the current player, without allocating (empty at chance and the end).
    #[inline]
    pub fn decisions(&self) -> &[Action] {
        self.legal.as_slice()
    }

    /// Every outcome of the pending chance event with its probability (Python twin:
    /// `Position.chance_outcomes`).
    pub fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        rules::chance_outcomes(self)
    }

    /// Every outcome with its number of ways (Python twin: `Position.chance_weights`).
    pub fn chance_weights(&self) -> Vec<(Action, u64)> {
        rules::chance_weights(self).0
    }

    /// One outcome of the pending chance event (Python twin: `Position.sample_chance`).
    #[inline]
    pub fn sample_chance(&self, rng: &mut Rng) -> Action {
        rules::sample_chance(self, rng)
    }

    /// Play a decision or a chance outcome in place (Python twin: `Position.apply`).
    #[inline]
    pub fn apply(&mut self, action: Action) -> Result<(), IllegalAction> {
        rules::apply(self, action)
    }

    /// Play on to the end (Python twin: `Position.playout`).
    pub fn playout(&mut self, rng: &mut Rng, policy: Playout<'_>) {
        rules::playout(self, rng, policy)
    }

    /// Each player's share of the win at the end (C18: k tied winners get 1/k each), else 0.
    /// Python twin: `Position.returns`.
    pub fn returns(&self) -> Vec<f64> {
        self.win_shares()[..self.players].to_vec()
    }

    /// [`State::returns`] without allocating: the first `players` numbers, then zeros
    /// (Python twin: `Position.returns`).
    pub fn win_shares(&self) -> [f64; MAX_PLAYERS] {
        let mut shares = [0.0; MAX_PLAYERS];
        if self.phase != OVER {
            return shares;
        }
        let vp = &self.vp[..self.players];
        let best = *vp.iter().max().expect("a game has players");
        let winners = vp.iter().filter(|&&v| v == best).count();
        for (share, &v) in shares.iter_mut().zip(vp) {
            if v == best {
                *share = 1.0 / winners as f64;
            }
        }
        shares
    }

    /// All `player` has seen: (player, public history, their own not-yet-revealed choice).
    /// Python twin: `Position.information_set_key`.
    #[inline]
    pub fn information_set_key(&self, player: usize) -> (usize, u64, i32) {
        let own = if self.is_simultaneous() { self.pending[player] } else { -1 };
        (player, self.history, own)
    }

    /// A copy in which the others' unrevealed choices of this step are drawn afresh (uniformly among
    /// their options) and so are the hidden bags. Python twin: `Position.determinize` (no belief).
    pub fn determinize(&self, player: usize, rng: &mut Rng) -> State {
        let mut state = *self;
        if !state.hidden_bags.is_empty() {
            deal_hidden_bags(&mut state, rng);
        }
        if state.is_simultaneous() {
            for other in 0..state.players {
                if other != player && state.pending[other] >= 0 {
                    let options = rules::step_legal(&state, other);
                    state.pending[other] = options.as_slice()[rng.below(options.len())];
                }
            }
        }
        state
    }

    /// The position at the start of the current simultaneous step as `player` knows it, or `None`
    /// when no other seat has made a choice there `player` cannot see. Python twin:
    /// `Position.step_start`.
    pub fn step_start(&self, player: usize) -> Option<State> {
        if !self.is_simultaneous() {
            return None;
        }
        let hidden = (0..self.players).any(|seat| {
            seat != player && self.pending[seat] >= 0 && rules::step_legal(self, seat).len() > 1
        });
        if !hidden {
            return None;
        }
        let mut start = *self;
        let phase = start.phase;
        rules::start_step(&mut start, phase);
        Some(start)
    }
}

/// Deal the non-Storm tiles of the hidden bags afresh among them, each bag keeping its size and its
/// Storms (SPEC-portable section 4: a Fisher–Yates shuffle of the pool in ascending kind order).
/// Python twin: position.py `deal_hidden_bags`.
pub fn deal_hidden_bags(state: &mut State, rng: &mut Rng) {
    let mut pool = [0u8; MAX_PLAYERS * crate::state::BAG_CAP];
    let mut n = 0;
    for &player in state.hidden_bags.as_slice() {
        let mut tiles: Vec<u8> = state.bags[player as usize].as_slice().iter().copied().filter(|&k| k != STORM).collect();
        tiles.sort_unstable();
        pool[n..n + tiles.len()].copy_from_slice(&tiles);
        n += tiles.len();
    }
    for i in (1..n).rev() {
        let j = rng.below(i + 1);
        pool.swap(i, j);
    }
    let mut start = 0;
    let hidden = state.hidden_bags;
    for &player in hidden.as_slice() {
        let storms = state.bag_count(player as usize, STORM);
        let size = state.bags[player as usize].len() - storms;
        let mut tiles: Vec<u8> = vec![STORM; storms];
        tiles.extend_from_slice(&pool[start..start + size]);
        tiles.sort_unstable();
        state.set_bag(player as usize, Tiles::from_slice(&tiles).expect("the same size as before"));
        start += size;
    }
}
