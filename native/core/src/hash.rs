//! The history hash (SPEC-portable section 1): splitmix64's finalizer folded over event integers.
//! Python twin: positions/kernel/rules.py `_fold` (and the portable hash it calls).

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The splitmix64 finalizer (Python twin: the spec's `mix`).
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One integer into the hash; a negative int as 64-bit two's complement (Python twin: `step`).
#[inline]
pub fn step(h: u64, x: i64) -> u64 {
    mix((h ^ x as u64).wrapping_add(GOLDEN))
}

/// An event (its length, then its ints) into the hash (Python twin: `fold`).
#[inline]
pub fn fold(h: u64, event: &[i64]) -> u64 {
    event.iter().fold(step(h, event.len() as i64), |h, &x| step(h, x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_is_the_splitmix64_finalizer() {
        // splitmix64's first output for seed 0 is mix(0 + GOLDEN) = 0xE220A8397B1DCDAF.
        assert_eq!(mix(GOLDEN), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn fold_is_length_then_items() {
        assert_eq!(fold(5, &[1, -2]), step(step(step(5, 2), 1), -2));
        assert_ne!(fold(0, &[1, 2]), fold(0, &[2, 1]));
        assert_ne!(fold(0, &[0]), fold(0, &[0, 0]));
    }
}
