//! Tile facts and the one formula of an effect's gain.
//! Python twin: positions/kernel/tiles.py (`Effect`) and rules.py `effect_gain`.

use crate::state::Tiles;

/// One way to resolve a tile's effect; an "X OR Y" tile has two (C9). Python twin: `tiles.Effect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effect {
    /// Index of the effect's name in `OPTION_NAMES` (its option action is `OPTION_BASE + option`),
    /// -1 for a tile with a single effect.
    pub option: i32,
    pub steps: i32,
    pub vp: i32,
    pub steps_per_sun: i32,
    pub vp_per_sun: i32,
    pub steps_per_path_tile: i32,
    pub vp_per_path_tile: i32,
    pub steps_per_paw: i32,
    pub vp_per_paw: i32,
    pub pay_vp: i32,
    pub pay_steps: i32,
    pub extra_plays: i32,
    pub discards: i32,
    pub discards_required: i32,
}

impl Effect {
    /// An effect that gives nothing (Python twin: `Effect()`).
    pub const NONE: Effect = Effect::of(-1, [0; 13]);

    /// An effect from its option index and its 13 ints in field order (used by the catalogue).
    pub const fn of(option: i32, v: [i32; 13]) -> Effect {
        Effect {
            option,
            steps: v[0],
            vp: v[1],
            steps_per_sun: v[2],
            vp_per_sun: v[3],
            steps_per_path_tile: v[4],
            vp_per_path_tile: v[5],
            steps_per_paw: v[6],
            vp_per_paw: v[7],
            pay_vp: v[8],
            pay_steps: v[9],
            extra_plays: v[10],
            discards: v[11],
            discards_required: v[12],
        }
    }
}

/// The effects of a kind (one, or two for an "X OR Y" tile, C9). Python twin: `TILES[kind].effects`.
#[inline]
pub fn effects(kind: u8) -> &'static [Effect] {
    let (count, ref list) = crate::catalogue::EFFECTS[kind as usize];
    &list[..count]
}

/// (VP, Steps) one effect gives with `suns` on the track, a path of `path_len` tiles and `paws`
/// paw points, to a player holding `steps` and `vp`; a cost that cannot be paid gives nothing (C9).
/// Python twin: rules.py `effect_gain`.
#[inline]
pub fn effect_gain(e: &Effect, suns: i32, path_len: i32, paws: i32, steps: i32, vp: i32) -> (i32, i32) {
    if steps < e.pay_steps || vp < e.pay_vp {
        return (0, 0);
    }
    (
        e.vp - e.pay_vp + e.vp_per_sun * suns + e.vp_per_path_tile * path_len + e.vp_per_paw * paws,
        e.steps - e.pay_steps + e.steps_per_sun * suns + e.steps_per_path_tile * path_len + e.steps_per_paw * paws,
    )
}

/// Each item byte's paws: a kind's `PAW`, 0 for `PAD` and every other byte.
const PAW_OF_BYTE: [i32; 256] = {
    let mut table = [0; 256];
    let mut k = 0;
    while k < crate::catalogue::KIND_COUNT {
        table[k] = crate::catalogue::PAW[k];
        k += 1;
    }
    table
};
const _: () = assert!(PAW_OF_BYTE[crate::state::PAD as usize] == 0, "PAD has no paws");

/// The paw (return) value of the animals in a path (C9, C15). Python twin: rules.py `paw_total`.
///
/// A path of at most 16 tiles (nearly every one) is summed over its first 16 slots, the unused
/// ones `PAD` (no paws): a loop of fixed length, with no exit that depends on the path's length.
#[inline]
pub fn paw_total<const CAP: usize>(path: &Tiles<CAP>) -> i32 {
    const SHORT: usize = 16;
    if CAP >= SHORT && path.len() <= SHORT {
        return path.slots()[..SHORT].iter().map(|&k| PAW_OF_BYTE[k as usize]).sum();
    }
    path.as_slice().iter().map(|&k| crate::catalogue::PAW[k as usize]).sum()
}

#[cfg(test)]
mod tests {
    use super::paw_total;
    use crate::catalogue::{KIND_COUNT, PAW};
    use crate::state::{Tiles, OWNED_CAP};
    use proptest::prelude::*;

    proptest! {
        /// `paw_total` is the sum of the path's tiles' paws, short paths (16 slots summed) and long.
        #[test]
        fn paw_total_sums_the_paths_paws(path in prop::collection::vec(0u8..KIND_COUNT as u8, 0..=OWNED_CAP)) {
            let tiles = Tiles::<OWNED_CAP>::from_slice(&path).expect("within the capacity");
            prop_assert_eq!(paw_total(&tiles), path.iter().map(|&k| PAW[k as usize]).sum::<i32>());
        }
    }
}
