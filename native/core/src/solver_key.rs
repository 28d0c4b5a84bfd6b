//! The exact solver's memo key: what can still change how the game goes on. Python twin:
//! positions/kernel/position.py `Position.solver_key`.

use crate::catalogue::{KIND_COUNT, OVER, TIEBREAK, WEATHER};
use crate::state::{kind_counts, KindCounts, State, BAG_CAP, HAND_CAP, MAX_PLAYERS, SET_ASIDE_CAP, TIES_CAP};

/// A position's solver key: the same numbers, in the same order, as the 16-bit ints Python packs
/// (⇄ `Position.solver_key`), so two keys are equal exactly when Python's are. The solver's memo
/// (`solver_memo.rs`) holds the numbers and their hash ([`State::write_solver_key`]) rather than
/// keys of their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverKey {
    numbers: Box<[i16]>,
}

impl SolverKey {
    /// The numbers of the key (⇄ `array("h", numbers)`).
    pub fn numbers(&self) -> &[i16] {
        &self.numbers
    }
}

/// FxHash's multiplier.
const MULTIPLIER: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The hash of a key's numbers: FxHash over 64-bit words of four numbers, in two independent
/// lanes (every other word) so the multiplications overlap.
fn hash_numbers(numbers: &[i16]) -> u64 {
    let word = |chunk: &[i16]| chunk.iter().rev().fold(0u64, |w, &n| w << 16 | n as u16 as u64);
    let (mut even, mut odd) = (numbers.len() as u64, 0u64);
    let mut pairs = numbers.chunks_exact(8);
    for pair in &mut pairs {
        even = (even.rotate_left(5) ^ word(&pair[..4])).wrapping_mul(MULTIPLIER);
        odd = (odd.rotate_left(5) ^ word(&pair[4..])).wrapping_mul(MULTIPLIER);
    }
    let rest = pairs.remainder();
    let mut hash = (even.rotate_left(5) ^ odd).wrapping_mul(MULTIPLIER);
    for chunk in rest.chunks(4) {
        hash = (hash.rotate_left(5) ^ word(chunk)).wrapping_mul(MULTIPLIER);
    }
    hash ^ hash >> 32 // the product's well-mixed high bits into the low ones a hash table indexes by
}

impl State {
    /// What can still change how the game goes on (⇄ `Position.solver_key`): no history, turn,
    /// box or legal actions; the later players' pending choices only; bags, hands, paths and
    /// set-aside tiles as sorted multisets; at the end only the phase and the VP.
    pub fn solver_key(&self) -> SolverKey {
        let mut numbers = Vec::new();
        self.write_key_numbers(&mut Numbers::new(&mut numbers), Groups::Sorted);
        SolverKey { numbers: numbers.into_boxed_slice() }
    }

    /// The solver's memo key written at the end of `out`, and its hash (⇄ the `solver_key()` and
    /// its `hash` a dict lookup of `ExactSolver._value` takes): the solver's memo writes its keys
    /// into buffers it reuses rather than into an allocation of each key. The numbers are
    /// [`State::solver_key`]'s but for each bag and each path, written as its counts per kind (no
    /// sorting; a bag's the state keeps), a fixed width: two keys are equal exactly when Python's
    /// keys are (a multiset is its counts, and the fixed width keeps the numbers' order
    /// unambiguous), which is all the memo reads of them.
    pub fn write_solver_key(&self, out: &mut Vec<i16>) -> u64 {
        let start = out.len();
        self.write_key_numbers(&mut Numbers::new(out), Groups::Counted);
        hash_numbers(&out[start..])
    }

    /// The numbers of [`State::solver_key`], in order, the bags and paths written as `groups` says.
    fn write_key_numbers(&self, numbers: &mut Numbers<'_>, groups: Groups) {
        let players = self.players;
        if self.phase == OVER {
            numbers.push(self.phase);
            numbers.extend(&self.vp[..players]);
            return;
        }
        let all = &self.pending[..players];
        let pending: &[i32] = if self.is_simultaneous() {
            all
        } else if self.phase == WEATHER || self.phase == TIEBREAK {
            &[]
        } else {
            &all[python_slice_start(self.actor + 1, players)..]
        };
        numbers.extend(&[
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
        numbers.extend(&self.steps[..players]);
        numbers.extend(&self.vp[..players]);
        numbers.small(self.walking[..players].iter().map(|&walking| walking as u8));
        numbers.extend(&self.owned_storms[..players]);
        numbers.small(self.market.iter().copied());
        numbers.push(pending.len() as i32);
        numbers.extend(pending);
        numbers.push(self.tie_count as i32);
        for p in 0..players {
            match groups {
                Groups::Sorted => numbers.multiset(self.bags[p].as_slice()),
                Groups::Counted => numbers.counts(&self.bag_counts[p]),
            }
        }
        for p in 0..players {
            numbers.multiset(self.hands[p].as_slice());
        }
        for p in 0..players {
            match groups {
                Groups::Sorted => numbers.multiset(self.paths[p].as_slice()),
                Groups::Counted => numbers.counts(&kind_counts(self.paths[p].as_slice())),
            }
        }
        for p in 0..players {
            numbers.multiset(self.set_aside[p].as_slice());
        }
        for tie in self.ties() {
            numbers.extend(&[tie.kind as i32, tie.slots as i32, tie.tied.len() as i32]);
            for &seat in tie.tied.as_slice() {
                numbers.push(seat as i32);
            }
        }
    }
}

const _: () = assert!(KIND_COUNT <= 32, "a multiset's counting sort holds kinds below 32");

/// How a key writes the bags and paths: Python's way (a group's length, then its tiles sorted) or
/// the memo's (its counts per kind: no sorting, and a bag's are kept by the state).
#[derive(Clone, Copy)]
enum Groups {
    Sorted,
    Counted,
}

/// Most numbers in a key (the room reserved before one is written): the fields, then every tile group of four players at full capacity and
/// eight ties.
const KEY_CAP: usize = 64 + MAX_PLAYERS * (4 + 2 * BAG_CAP + HAND_CAP + SET_ASIDE_CAP) + TIES_CAP * (3 + MAX_PLAYERS);

/// A key's numbers as they are written, at the end of a buffer (⇄ the list `numbers` of
/// `Position.solver_key`).
struct Numbers<'a> {
    out: &'a mut Vec<i16>,
}

impl<'a> Numbers<'a> {
    /// Numbers written after what `out` holds, room for the longest key made at once.
    fn new(out: &'a mut Vec<i16>) -> Self {
        out.reserve(KEY_CAP);
        Numbers { out }
    }

    /// One number, as a 16-bit int (⇄ `array("h", ...)`: every field of a position fits).
    #[inline]
    fn push(&mut self, n: i32) {
        self.out.push(i16::try_from(n).expect("a solver key number fits 16 bits"));
    }

    fn extend(&mut self, numbers: &[i32]) {
        self.out.extend(numbers.iter().map(|&n| i16::try_from(n).expect("a solver key number fits 16 bits")));
    }

    /// Numbers below 256: no check.
    fn small(&mut self, numbers: impl ExactSizeIterator<Item = u8>) {
        self.out.extend(numbers.map(i16::from));
    }

    /// A bag's counts per kind, two to a number (`COUNT_SLOTS` / 2 numbers: every count is below
    /// 256).
    fn counts(&mut self, counts: &KindCounts) {
        self.out.extend(counts.chunks_exact(2).map(|pair| i16::from_le_bytes([pair[0], pair[1]])));
    }

    /// A tile group's length, then its tiles in ascending order (⇄ `numbers.append(len(tiles));
    /// numbers.extend(sorted(tiles))`).
    fn multiset(&mut self, tiles: &[u8]) {
        self.push(tiles.len() as i32);
        match *tiles {
            [] => {}
            [a] => self.push(a as i32),
            [a, b] => {
                self.push(a.min(b) as i32);
                self.push(a.max(b) as i32);
            }
            _ => {
                // A counting sort: kinds are below 32 (KIND_COUNT).
                let mut counts = [0u8; 32];
                let mut present = 0u32;
                for &tile in tiles {
                    counts[tile as usize] += 1;
                    present |= 1 << tile;
                }
                while present != 0 {
                    let kind = present.trailing_zeros();
                    let count = counts[kind as usize] as usize;
                    self.out.extend(std::iter::repeat_n(kind as i16, count));
                    present &= present - 1;
                }
            }
        }
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

#[cfg(test)]
mod tests {
    use super::python_slice_start;
    use crate::rng::Rng;
    use crate::state::{State, Tiles};
    use crate::heuristic_choice;

    /// The memo's key of `state` (without its hash).
    fn memo_key(state: &State) -> Vec<i16> {
        let mut out = Vec::new();
        state.write_solver_key(&mut out);
        out
    }

    /// Every position of `games` seeded heuristic games of `players` players, and each again with
    /// its bags and paths in another order (the same multisets).
    fn positions(players: usize, games: u64) -> Vec<State> {
        let mut found = Vec::new();
        for seed in 0..games {
            let mut state = State::new_named(players, "forest").expect("a shipped route");
            let mut rng = Rng::new(seed);
            loop {
                found.push(state);
                let mut shuffled = state;
                for p in 0..players {
                    let mut bag: Vec<u8> = state.bags[p].as_slice().to_vec();
                    let half = bag.len() / 2;
                    bag.rotate_left(half);
                    shuffled.set_bag(p, Tiles::from_slice(&bag).expect("as many tiles"));
                    let mut path: Vec<u8> = state.paths[p].as_slice().to_vec();
                    path.reverse();
                    shuffled.paths[p] = Tiles::from_slice(&path).expect("as many tiles");
                }
                found.push(shuffled);
                if state.is_terminal() {
                    break;
                }
                let action = if state.is_chance() { state.sample_chance(&mut rng) } else { heuristic_choice(&state, &mut rng) };
                state.apply(action).expect("a legal action");
            }
        }
        found
    }

    #[test]
    fn memo_keys_are_equal_exactly_when_python_keys_are() {
        for players in 2..=4 {
            let states = positions(players, 3);
            let python: Vec<Vec<i16>> = states.iter().map(|s| s.solver_key().numbers().to_vec()).collect();
            let memo: Vec<Vec<i16>> = states.iter().map(memo_key).collect();
            let mut equal = 0;
            for i in 0..states.len() {
                for j in i..states.len() {
                    assert_eq!(python[i] == python[j], memo[i] == memo[j], "positions {i} and {j} of {players} players");
                    equal += usize::from(python[i] == python[j] && i != j);
                }
            }
            assert!(equal >= states.len() / 2, "each position and its reordered twin share a key");
        }
    }

    #[test]
    fn slices_start_as_python() {
        let items = [10, 11, 12];
        for start in -5..6 {
            let python: Vec<i32> = match start {
                -5..=-3 => vec![10, 11, 12],
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
