//! The features a mix or position model reads beyond the thirteen (⇄ `learned.mix_rows`,
//! `learned.context_rows`, `learned.position_rows`), written into a player's row after them.
//!
//! Bit for bit: every count is a small integer (exact in a double), every ratio Python's true
//! division of two such integers (one correctly rounded division), every product in Python's
//! operand order.

use crate::catalogue::{KIND_COUNT, STORM};
use crate::evaluator::{walks_left, FEATURES};
use crate::rules::{storms_to_hit, weather_hit_chance};
use crate::state::State;

/// The public facts a position row ends with (⇄ `learned.CONTEXT`).
pub const CONTEXT: usize = 9;
/// A mix model's row: the thirteen, then a share per tile kind (⇄ `FEATURES + MIX_FEATURES`).
pub const MIX_WIDTH: usize = FEATURES + KIND_COUNT;
/// A position model's row (⇄ `learned.POSITION_FEATURES`): the thirteen, the bag's and the path's
/// tiles per kind, the context.
pub const POSITION_WIDTH: usize = FEATURES + 2 * KIND_COUNT + CONTEXT;

/// How many tiles of each kind `player` owns (bag, path, hand, set aside, Storms held), and in all
/// (⇄ `learned.owned_kinds`).
pub fn owned_kinds(state: &State, player: usize) -> ([u32; KIND_COUNT], u32) {
    let mut counts = [0u32; KIND_COUNT];
    let groups = [
        state.bags[player].as_slice(),
        state.paths[player].as_slice(),
        state.hands[player].as_slice(),
        state.set_aside[player].as_slice(),
    ];
    for &kind in groups.iter().flat_map(|group| group.iter()) {
        counts[kind as usize] += 1;
    }
    counts[STORM as usize] += state.owned_storms[player].max(0) as u32;
    (counts, counts.iter().sum())
}

/// `player`'s mix features (⇄ `learned.mix_rows`): per kind, its count times walks left over every
/// tile owned.
pub fn write_mix_row(state: &State, player: usize, out: &mut [f64; KIND_COUNT]) {
    let (counts, total) = owned_kinds(state, player);
    let scale = walks_left(state) as f64 / total.max(1) as f64;
    for (value, &count) in out.iter_mut().zip(&counts) {
        *value = count as f64 * scale;
    }
}

/// Every player's context (⇄ `learned.context_rows`), written into the first `players` of `rows`.
pub fn write_context_rows(state: &State, rows: &mut [[f64; CONTEXT]]) {
    let left = walks_left(state) as f64;
    let to_hit = storms_to_hit(state) as f64;
    let hit = weather_hit_chance(state);
    let deck = state.deck_suns + state.deck_storms;
    let storm_share = if deck != 0 { state.deck_storms as f64 / deck as f64 } else { 0.0 };
    let walkers = state.walking[..state.players].iter().filter(|&&w| w).count();
    for (p, out) in rows[..state.players].iter_mut().enumerate() {
        let walking = state.walking[p];
        *out = [
            left,
            state.turn as f64,
            state.steps[p] as f64,
            state.bags[p].len() as f64,
            to_hit,
            if walking { hit } else { 0.0 },
            if walking { storm_share } else { 0.0 },
            (walkers - usize::from(walking)) as f64,
            state.players as f64,
        ];
    }
}

/// `player`'s tiles per kind in the bag and, while walking, in the path (⇄ the counts of
/// `learned.position_rows`).
pub fn write_tile_counts(state: &State, player: usize, out: &mut [f64; 2 * KIND_COUNT]) {
    *out = [0.0; 2 * KIND_COUNT];
    for &kind in state.bags[player].as_slice() {
        out[kind as usize] += 1.0;
    }
    if state.walking[player] {
        for &kind in state.paths[player].as_slice() {
            out[KIND_COUNT + kind as usize] += 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walking_position() -> State {
        let mut state = State::new_named(3, "forest").expect("a shipped route");
        state.walk = 1;
        state.turn = 4;
        state.walking[..3].copy_from_slice(&[true, false, true]);
        state.paths[0].extend(&[4, 4, 19]);
        state.deck_suns = 3;
        state.deck_storms = 1;
        state
    }

    #[test]
    fn context_follows_its_definition() {
        let state = walking_position();
        let mut rows = [[0.0; CONTEXT]; 4];
        write_context_rows(&state, &mut rows);
        let (walker, home) = (rows[0], rows[1]);
        assert_eq!(walker[0], walks_left(&state) as f64);
        assert_eq!(walker[1], 4.0);
        assert_eq!(walker[3], state.bags[0].len() as f64);
        assert_eq!(walker[6], 0.25); // the deck's Storm share, read while walking
        assert_eq!((walker[7], home[7]), (1.0, 2.0)); // the other walkers
        assert_eq!((home[5], home[6]), (0.0, 0.0));
        assert_eq!(home[8], 3.0);
    }

    #[test]
    fn counts_read_the_path_only_while_walking() {
        let mut state = walking_position();
        let mut counts = [0.0; 2 * KIND_COUNT];
        write_tile_counts(&state, 0, &mut counts);
        assert_eq!((counts[KIND_COUNT + 4], counts[KIND_COUNT + 19]), (2.0, 1.0));
        assert_eq!(counts[..KIND_COUNT].iter().sum::<f64>(), state.bags[0].len() as f64);
        state.walking[0] = false;
        write_tile_counts(&state, 0, &mut counts);
        assert_eq!(counts[KIND_COUNT..].iter().sum::<f64>(), 0.0);
    }

    #[test]
    fn mix_shares_sum_to_the_walks_left() {
        let state = walking_position();
        let mut row = [0.0; KIND_COUNT];
        write_mix_row(&state, 0, &mut row);
        let (counts, total) = owned_kinds(&state, 0);
        assert_eq!(total as usize, state.bags[0].len() + 3);
        assert_eq!(counts[4], 2 + state.bags[0].count(4) as u32);
        assert!((row.iter().sum::<f64>() - walks_left(&state) as f64).abs() < 1e-12);
    }
}
