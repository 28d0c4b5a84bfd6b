//! The search tree's hasher: a fixed, unseeded FxHash (rustc-hash 2's rounds) for the maps keyed by
//! small integers and the history hash (the node table's information sets, the walked edges).
//! Python twin: none — the Python tree's `dict`s hash their int tuples themselves.
//!
//! The standard `HashMap`'s SipHash costs about 6 % of a search iteration on keys of four integers,
//! one of them already a well-mixed 64-bit hash. The maps are only ever looked up, never iterated,
//! so their results do not depend on the hasher; it is fixed anyway (no random seed), so a run is
//! the same on every machine and every process.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// rustc-hash 2's multiplier.
const MULTIPLIER: u64 = 0xf135_7aea_2e62_a9c5;

/// FxHash's rounds over each integer written (⇄ no Python twin: Python's `hash` of an int tuple).
#[derive(Default, Clone, Copy)]
pub struct TreeHasher(u64);

impl TreeHasher {
    /// One integer into the hash (⇄ no Python twin).
    #[inline]
    fn add(&mut self, n: u64) {
        self.0 = self.0.wrapping_add(n).wrapping_mul(MULTIPLIER);
    }
}

impl Hasher for TreeHasher {
    /// Bytes, eight at a time (⇄ no Python twin; the tree's keys write integers, not bytes).
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(n as u64);
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.add(n as u64);
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    /// The hash, its well-mixed high bits rotated into the low ones a table indexes by (rustc-hash
    /// 2's `finish`) (⇄ no Python twin).
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

/// A map with the tree's hasher (⇄ a Python `dict`).
pub type TreeMap<K, V> = HashMap<K, V, BuildHasherDefault<TreeHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash>(value: &T) -> u64 {
        BuildHasherDefault::<TreeHasher>::default().hash_one(value)
    }

    #[test]
    fn the_hash_is_fixed_and_sees_every_field() {
        let key = (1i32, (1usize, 0x1234_5678_9abc_def0u64, -1i32));
        assert_eq!(hash(&key), hash(&key.clone()), "no random seed");
        assert_ne!(hash(&key), hash(&(0i32, key.1)));
        assert_ne!(hash(&key), hash(&(1i32, (0usize, key.1 .1, -1i32))));
        assert_ne!(hash(&key), hash(&(1i32, (1usize, key.1 .1 ^ 1, -1i32))));
        assert_ne!(hash(&key), hash(&(1i32, (1usize, key.1 .1, 3i32))));
    }

    #[test]
    fn a_map_finds_what_it_holds() {
        let mut map: TreeMap<(usize, i32), usize> = TreeMap::default();
        for i in 0..1000usize {
            map.insert((i / 7, i as i32 % 7), i);
        }
        assert!((0..1000usize).all(|i| map[&(i / 7, i as i32 % 7)] == i));
        assert_eq!(map.get(&(1000, 0)), None);
    }
}
