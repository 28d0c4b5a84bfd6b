//! The exact solver's memo key: what can still change how the game goes on. Python twin:
//! positions/kernel/position.py `Position.solver_key`.

use crate::catalogue::{OVER, TIEBREAK, WEATHER};
use crate::state::State;

/// A position's solver key: the same numbers, in the same order, as the 16-bit ints Python packs
/// (⇄ `Position.solver_key`), so two keys are equal exactly when Python's are.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SolverKey(Box<[i16]>);

impl SolverKey {
    /// The numbers of the key (⇄ `array("h", numbers)`).
    pub fn numbers(&self) -> &[i16] {
        &self.0
    }
}

impl State {
    /// What can still change how the game goes on (⇄ `Position.solver_key`): no history, turn,
    /// box or legal actions; the later players' pending choices only; bags, hands, paths and
    /// set-aside tiles as sorted multisets; at the end only the phase and the VP.
    pub fn solver_key(&self) -> SolverKey {
        let players = self.players;
        let mut numbers: Vec<i32> = Vec::with_capacity(96);
        if self.phase == OVER {
            numbers.push(self.phase);
            numbers.extend_from_slice(&self.vp[..players]);
            return pack(&numbers);
        }
        let all = &self.pending[..players];
        let pending: &[i32] = if self.is_simultaneous() {
            all
        } else if self.phase == WEATHER || self.phase == TIEBREAK {
            &[]
        } else {
            &all[python_slice_start(self.actor + 1, players)..]
        };
        numbers.extend_from_slice(&[
            self.phase,
            self.actor,
            self.walk,
            self.track_suns,
            self.track_storms,
            self.deck_suns,
            self.deck_storms,
            self.reserve,
            self.tile,
            self.extra_plays,
            self.discards_left,
            self.discards_required,
        ]);
        numbers.extend_from_slice(&self.steps[..players]);
        numbers.extend_from_slice(&self.vp[..players]);
        numbers.extend(self.walking[..players].iter().map(|&w| w as i32));
        numbers.extend_from_slice(&self.owned_storms[..players]);
        numbers.extend(self.market.iter().map(|&m| m as i32));
        numbers.push(pending.len() as i32);
        numbers.extend_from_slice(pending);
        numbers.push(self.tie_count as i32);
        for p in 0..players {
            push_multiset(&mut numbers, self.bags[p].as_slice());
        }
        for p in 0..players {
            push_multiset(&mut numbers, self.hands[p].as_slice());
        }
        for p in 0..players {
            push_multiset(&mut numbers, self.paths[p].as_slice());
        }
        for p in 0..players {
            push_multiset(&mut numbers, self.set_aside[p].as_slice());
        }
        for tie in self.ties() {
            numbers.extend_from_slice(&[tie.kind as i32, tie.slots as i32, tie.tied.len() as i32]);
            numbers.extend(tie.tied.as_slice().iter().map(|&p| p as i32));
        }
        pack(&numbers)
    }
}

/// Where Python's `items[start:]` begins in a list of `len` items (a negative start counts from the end).
fn python_slice_start(start: i32, len: usize) -> usize {
    if start < 0 {
        (len as i64 + start as i64).max(0) as usize
    } else {
        (start as usize).min(len)
    }
}

/// A tile group's length, then its tiles in ascending order (⇄ `numbers.append(len(tiles));
/// numbers.extend(sorted(tiles))`).
fn push_multiset(numbers: &mut Vec<i32>, tiles: &[u8]) {
    numbers.push(tiles.len() as i32);
    let start = numbers.len();
    numbers.extend(tiles.iter().map(|&t| t as i32));
    numbers[start..].sort_unstable();
}

/// The numbers as 16-bit ints (⇄ `array("h", numbers)`; every field of a position fits).
fn pack(numbers: &[i32]) -> SolverKey {
    SolverKey(numbers.iter().map(|&n| i16::try_from(n).expect("a solver key number fits 16 bits")).collect())
}

#[cfg(test)]
mod tests {
    use super::python_slice_start;

    #[test]
    fn slices_start_as_python() {
        let items = [10, 11, 12];
        for start in -5..6 {
            let python: Vec<i32> = match start {
                -5 | -4 | -3 => vec![10, 11, 12],
                -2 => vec![11, 12],
                -1 => vec![12],
                0 => vec![10, 11, 12],
                1 => vec![11, 12],
                2 => vec![12],
                _ => vec![],
            };
            assert_eq!(items[python_slice_start(start, 3)..].to_vec(), python, "start {start}");
        }
    }
}
