//! The exact solver's memo: position key -> value (⇄ the dict `ExactSolver.memo` of
//! search/solver.py, keyed by `Position.solver_key`).
//!
//! A solver holds tens of thousands of positions, and each was two allocations (a boxed key, a
//! shared value) made as it was solved and freed as the solver was dropped. Here every key's
//! numbers sit one after another in one buffer, every value in one array, and the table holds
//! a key's place in the first and its value's index in the second: growing the memo allocates only
//! when a buffer doubles, and dropping it frees three buffers. A value is stored once however many
//! positions share it (a decision's value is its best option's, as Python's dict holds one object).
//! The memo is looked up and added to, never iterated in hash order, so its results do not depend
//! on the table's layout.

use hashbrown::HashTable;

use crate::exact_values::Values;

/// A value held by a [`Memo`]: its index in the memo's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValueId(u32);

/// One position held: its key's hash and place among the keys' numbers, and its value.
#[derive(Clone, Copy)]
struct Slot {
    hash: u64,
    start: u32,
    len: u32,
    value: ValueId,
}

/// Positions' keys and values (⇄ `ExactSolver.memo`).
#[derive(Default)]
pub(crate) struct Memo {
    table: HashTable<Slot>,
    /// Every held key's numbers, one key after another.
    numbers: Vec<i16>,
    values: Vec<Values>,
}

impl Memo {
    /// How many positions are held (⇄ `len(memo)`).
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    /// The value of the position whose key is `key` with hash `hash`, if held (⇄ `memo.get(key)`).
    #[inline]
    pub(crate) fn get(&self, hash: u64, key: &[i16]) -> Option<ValueId> {
        let numbers = &self.numbers;
        let found = self.table.find(hash, |slot| {
            slot.hash == hash && &numbers[slot.start as usize..(slot.start + slot.len) as usize] == key
        });
        found.map(|slot| slot.value)
    }

    /// Hold `value` for the position whose key is `key` with hash `hash`, a key not held yet (⇄
    /// `memo[key] = value`: the solver adds a position once, after solving it).
    pub(crate) fn insert(&mut self, hash: u64, key: &[i16], value: ValueId) {
        debug_assert!(self.get(hash, key).is_none(), "a position is solved once");
        let start = u32::try_from(self.numbers.len()).expect("fewer than 2^32 key numbers held");
        self.numbers.extend_from_slice(key);
        let slot = Slot { hash, start, len: key.len() as u32, value };
        self.table.insert_unique(hash, slot, |slot| slot.hash);
    }

    /// Keep `value` (a new one), to be held for positions by [`Memo::insert`].
    pub(crate) fn add(&mut self, value: Values) -> ValueId {
        let id = ValueId(u32::try_from(self.values.len()).expect("fewer than 2^32 values held"));
        self.values.push(value);
        id
    }

    /// The value `id` stands for.
    #[inline]
    pub(crate) fn value(&self, id: ValueId) -> &Values {
        &self.values[id.0 as usize]
    }

    /// Every held position's value, in no particular order (for tests).
    #[cfg(test)]
    pub(crate) fn values(&self) -> impl Iterator<Item = &Values> + '_ {
        self.table.iter().map(|slot| self.value(slot.value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The memo finds exactly the keys it holds (their hashes colliding or not), with their values.
        #[test]
        fn a_memo_finds_what_it_holds(keys in prop::collection::hash_set(prop::collection::vec(-3i16..3, 0..6), 1..60), buckets in 1u64..8) {
            let keys: Vec<Vec<i16>> = keys.into_iter().collect();
            let hash = |key: &[i16]| key.iter().map(|&n| n.unsigned_abs() as u64).sum::<u64>() % buckets;
            let (held, missing) = keys.split_at(keys.len() / 2);
            let mut memo = Memo::default();
            for (i, key) in held.iter().enumerate() {
                let value = memo.add(Values::terminal(&[i as i32, 0]));
                memo.insert(hash(key), key, value);
            }
            prop_assert_eq!(memo.len(), held.len());
            for (i, key) in held.iter().enumerate() {
                let value = memo.get(hash(key), key).map(|id| memo.value(id).fractions());
                prop_assert_eq!(value, Some(Values::terminal(&[i as i32, 0]).fractions()));
            }
            for key in missing {
                prop_assert!(memo.get(hash(key), key).is_none());
            }
        }
    }
}
