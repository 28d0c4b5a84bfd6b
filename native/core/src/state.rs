//! The fields of a position as plain fixed-size arrays, with no rules: `State` is `Copy`, so a copy is
//! one memcpy. Python twin: positions/kernel/state.py (`State`), rulesets.py (`Ruleset`), routes.py.

use crate::catalogue::KIND_COUNT;

/// Most seats a game has.
pub const MAX_PLAYERS: usize = 4;
/// Most tiles one player owns, and so the capacity of a path: 11 start tiles and the 32 tiles of a
/// route.
pub const OWNED_CAP: usize = 44;
/// Capacity of a bag: `OWNED_CAP` rounded up to whole 16-byte chunks, so that a draw finds and
/// removes a tile three chunks at a time (`chunks`).
pub const BAG_CAP: usize = OWNED_CAP.next_multiple_of(16);
/// Capacity of a hand (a draw gives at most 2 tiles, C7).
pub const HAND_CAP: usize = 2;
/// Capacity of the tiles set aside for additional plays (C10).
pub const SET_ASIDE_CAP: usize = 6;
/// Capacity of the box (discarded tiles, C11, C15): every tile of a 4-player default game is 76.
pub const BOX_CAP: usize = 80;
/// Capacity of a list of decisions: at most "discard none", "discard second" and one per kind a
/// player can own (the start bag's kinds and the route's 8).
pub const LEGAL_CAP: usize = 24;
/// Most contested stacks at one buy (one per route stack, C12).
pub const TIES_CAP: usize = 8;

/// Slots of a bag's per-kind counts: every kind, rounded up to 32 bytes (one vector register).
pub const COUNT_SLOTS: usize = 32;
const _: () = assert!(KIND_COUNT <= COUNT_SLOTS, "a bag's counts have a slot per kind");

/// How many tiles of each kind a group holds, indexed by kind; the slots past the last kind stay 0.
pub type KindCounts = [u8; COUNT_SLOTS];

/// Each kind's count in a group of tiles (Python: `collections.Counter(tiles)`; rules.py counts a
/// bag with `bag.count(kind)`).
#[inline]
pub fn kind_counts(tiles: &[Kind]) -> KindCounts {
    let mut counts = [0u8; COUNT_SLOTS];
    for &k in tiles {
        counts[k as usize] += 1;
    }
    counts
}

/// An action code (positions/kernel/actions.py): decisions and chance outcomes share one space.
pub type Action = i32;
/// A tile kind, an index into the catalogue.
pub type Kind = u8;

/// An ordered group of tiles or seats (a Python tuple) of at most `CAP` items, stored inline.
/// Equality and hashing see the items only; the unused slots always hold `PAD` (no kind, no seat), so
/// a count may scan the whole fixed-size array.
#[derive(Clone, Copy)]
pub struct Tiles<const CAP: usize> {
    len: u8,
    items: [u8; CAP],
}

impl<const CAP: usize> PartialEq for Tiles<CAP> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const CAP: usize> Eq for Tiles<CAP> {}

impl<const CAP: usize> std::hash::Hash for Tiles<CAP> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<const CAP: usize> std::fmt::Debug for Tiles<CAP> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<const CAP: usize> Default for Tiles<CAP> {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// What fills the unused slots of a `Tiles`: above every kind and seat.
pub const PAD: u8 = u8::MAX;

/// Each byte of a word 1, and each byte's high bit (the word-at-a-time byte tricks).
const BYTES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

impl<const CAP: usize> Tiles<CAP> {
    /// An empty group.
    pub const EMPTY: Self = Tiles { len: 0, items: [PAD; CAP] };

    /// The group holding `items`, or `None` if they exceed the capacity.
    pub fn from_slice(items: &[u8]) -> Option<Self> {
        let mut t = Self::EMPTY;
        t.try_extend(items).then_some(t)
    }

    /// The group of `first` then `second`, `PAD` standing for no item (`second` is `PAD` if
    /// `first` is), built without a store per item (Python: `tuple(k for k in (first, second) if ...)`).
    #[inline]
    pub fn of_two(first: u8, second: u8) -> Self {
        debug_assert!(CAP >= 2 && (first != PAD || second == PAD));
        let mut t = Self::EMPTY;
        t.items[0] = first;
        t.items[1] = second;
        t.len = (first != PAD) as u8 + (second != PAD) as u8;
        t
    }

    /// The items in order.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.items[..self.len as usize]
    }

    /// Every slot: the items in order, then `PAD` in each unused slot.
    #[inline]
    pub fn slots(&self) -> &[u8; CAP] {
        &self.items
    }

    /// How many items.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the group is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append one item (Python: `t + (kind,)`). Panics beyond the capacity (a position the
    /// validation in Python should have refused).
    #[inline]
    pub fn push(&mut self, item: u8) {
        assert!((self.len as usize) < CAP, "a tile group is over its capacity of {CAP}");
        self.items[self.len as usize] = item;
        self.len += 1;
    }

    /// Append items (Python: `t + other`); panics beyond the capacity.
    #[inline]
    pub fn extend(&mut self, items: &[u8]) {
        assert!(self.try_extend(items), "a tile group is over its capacity of {CAP}");
    }

    /// Append items if they fit; false (and unchanged) if not.
    pub fn try_extend(&mut self, items: &[u8]) -> bool {
        let len = self.len as usize;
        if len + items.len() > CAP {
            return false;
        }
        self.items[len..len + items.len()].copy_from_slice(items);
        self.len += items.len() as u8;
        true
    }

    /// Empty the group.
    #[inline]
    pub fn clear(&mut self) {
        *self = Self::EMPTY;
    }

    /// Items `8 * w .. 8 * w + 8` as a little-endian word, the slots past the capacity read as `PAD`
    /// (Python: the slice `t[8 * w:8 * w + 8]`); `w <= CAP / 8`. A full word is one load, the one
    /// partial word at the end a copy of a constant length.
    #[inline(always)]
    fn word(&self, w: usize) -> u64 {
        let start = 8 * w;
        if start + 8 <= CAP {
            return u64::from_le_bytes(self.items[start..start + 8].try_into().expect("8 items"));
        }
        debug_assert!(w == CAP / 8, "a word past the end");
        let start = 8 * (CAP / 8);
        let mut bytes = [PAD; 8];
        bytes[..CAP - start].copy_from_slice(&self.items[start..]);
        u64::from_le_bytes(bytes)
    }

    /// Store `word` as items `8 * w .. 8 * w + 8`, the bytes past the capacity dropped; `w <= CAP / 8`
    /// (Python: the items of the new tuple `t[:i] + t[i + 1:]` that `remove_at` builds).
    #[inline(always)]
    fn set_word(&mut self, w: usize, word: u64) {
        let start = 8 * w;
        if start + 8 <= CAP {
            self.items[start..start + 8].copy_from_slice(&word.to_le_bytes());
            return;
        }
        debug_assert!(w == CAP / 8, "a word past the end");
        let start = 8 * (CAP / 8);
        self.items[start..].copy_from_slice(&word.to_le_bytes()[..CAP - start]);
    }

    /// Where the first `item` is (Python: `t.index(item)`): the slots compared eight at a time in
    /// 64-bit words, without a branch that depends on where the item is (a scan's exit at a random
    /// place is a mispredicted branch). The unused slots hold `PAD`, never an item.
    #[inline]
    pub fn position(&self, item: u8) -> Option<usize> {
        debug_assert!(item != PAD, "PAD is no item");
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if chunks::whole(CAP) {
            let found = chunks::matches(&self.items, item);
            return (found != 0).then(|| found.trailing_zeros() as usize);
        }
        let pattern = item as u64 * BYTES;
        let mut found = CAP;
        for w in (0..(self.len as usize).div_ceil(8)).rev() {
            let x = self.word(w) ^ pattern;
            // the lowest high bit set marks the first zero byte, the first slot holding `item`
            let zero = x.wrapping_sub(BYTES) & !x & HIGH;
            if zero != 0 {
                found = 8 * w + (zero.trailing_zeros() / 8) as usize;
            }
        }
        (found < CAP).then_some(found)
    }

    /// Whether `item` is in the group.
    #[inline]
    pub fn contains(&self, item: u8) -> bool {
        self.position(item).is_some()
    }

    /// How many of `item` (Python: `t.count(item)`): a branch-free scan of the whole array, the
    /// unused slots holding `PAD`, counted in a byte (every capacity is below 256).
    #[inline]
    pub fn count(&self, item: u8) -> usize {
        debug_assert!(item != PAD, "PAD is no item");
        self.items.iter().fold(0u8, |n, &x| n + (x == item) as u8) as usize
    }

    /// Remove the first `item`, keeping the order of the rest (Python: `list.remove`, rules.py
    /// `_without`); false if it is absent.
    #[inline]
    pub fn remove_first(&mut self, item: u8) -> bool {
        match self.position(item) {
            Some(i) => {
                self.remove_at(i);
                true
            }
            None => false,
        }
    }

    /// Remove the item at `i < len`, the later ones moving down one slot (Python: `t[:i] + t[i + 1:]`):
    /// word by word from `i`'s word to the last item's, each word itself shifted down one slot with
    /// the next word's first item on top (`PAD` past the last item), the first word's slots below `i`
    /// kept (no call to `memmove` for a few bytes).
    #[inline]
    fn remove_at(&mut self, i: usize) {
        let len = self.len as usize;
        debug_assert!(i < len);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if chunks::whole(CAP) {
            chunks::remove_at(&mut self.items, i);
            self.len -= 1;
            return;
        }
        let last = (len - 1) / 8;
        let mut keep = (1u64 << (8 * (i % 8))) - 1;
        let mut word = self.word(i / 8);
        for w in i / 8..=last {
            let next = if w < last { self.word(w + 1) } else { u64::MAX };
            let shifted = (word >> 8) | (next << 56);
            self.set_word(w, (word & keep) | (shifted & !keep));
            keep = 0;
            word = next;
        }
        self.len -= 1;
    }

    /// The item at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u8 {
        self.as_slice()[i]
    }
}

/// `Tiles`' scans and shifts for a capacity of whole 16-byte chunks (at most 64 items), in SSE2: a
/// chunk's 16 items compared or moved in one instruction, with no branch on where an item is (no
/// Python twin: these are `tuple.index` and `t[:i] + t[i + 1:]`). Built only where the target has
/// SSE2 (every x86-64 processor; `cfg(target_feature)`), which makes calling its intrinsics sound:
/// that is the only thing their `unsafe` blocks assert, besides the bounds of a load or store.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod chunks {
    use std::arch::x86_64::*;

    /// Whether a capacity is whole chunks, at most 64 items (a `u64` holds a match per item).
    #[inline(always)]
    pub const fn whole(cap: usize) -> bool {
        cap.is_multiple_of(16) && cap <= 64
    }

    /// The `c`-th 16 items.
    #[inline(always)]
    fn load<const CAP: usize>(items: &[u8; CAP], c: usize) -> __m128i {
        let chunk: &[u8; 16] = items[16 * c..16 * c + 16].try_into().expect("16 items");
        // SAFETY: `chunk` is 16 readable bytes, and `_mm_loadu_si128` reads those 16, unaligned
        // (SSE2: the module's `cfg`).
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
    }

    /// Store `v` as the `c`-th 16 items.
    #[inline(always)]
    fn store<const CAP: usize>(items: &mut [u8; CAP], c: usize, v: __m128i) {
        let chunk: &mut [u8; 16] = (&mut items[16 * c..16 * c + 16]).try_into().expect("16 items");
        // SAFETY: `chunk` is 16 writable bytes, and `_mm_storeu_si128` writes those 16, unaligned
        // (SSE2: the module's `cfg`).
        unsafe { _mm_storeu_si128(chunk.as_mut_ptr().cast(), v) }
    }

    /// Bit `j` set where item `j` is `item` (Python: the places `tuple.index` compares).
    #[inline(always)]
    pub fn matches<const CAP: usize>(items: &[u8; CAP], item: u8) -> u64 {
        // SAFETY: SSE2 intrinsics on a target with SSE2 (the module's `cfg`).
        unsafe {
            let pattern = _mm_set1_epi8(item as i8);
            let mut found = 0u64;
            for c in 0..CAP / 16 {
                let hits = _mm_movemask_epi8(_mm_cmpeq_epi8(load(items, c), pattern)) as u32 as u64;
                found |= hits << (16 * c);
            }
            found
        }
    }

    /// The items from `i` on move down one slot, `PAD` entering at the top (Python: `t[:i] + t[i + 1:]`):
    /// each chunk shifted down one byte with the next chunk's first item on top, kept below `i`.
    #[inline(always)]
    pub fn remove_at<const CAP: usize>(items: &mut [u8; CAP], i: usize) {
        // SAFETY: SSE2 intrinsics on a target with SSE2 (the module's `cfg`).
        unsafe {
            let at = _mm_set1_epi8(i as i8); // i < 64
            let lanes = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            let mut next = load(items, 0);
            for c in 0..CAP / 16 {
                let chunk = next;
                next = if c + 1 < CAP / 16 { load(items, c + 1) } else { _mm_set1_epi8(super::PAD as i8) };
                let shifted = _mm_or_si128(_mm_srli_si128::<1>(chunk), _mm_slli_si128::<15>(next));
                // the slots below `i` keep their item (slot numbers below 64: a signed compare)
                let below = _mm_cmpgt_epi8(at, _mm_add_epi8(lanes, _mm_set1_epi8(16 * c as i8)));
                store(items, c, _mm_or_si128(_mm_and_si128(below, chunk), _mm_andnot_si128(below, shifted)));
            }
        }
    }
}

/// A short list of actions (a Python tuple of actions), stored inline; equality sees the actions only.
#[derive(Clone, Copy)]
pub struct ActionList {
    len: u8,
    items: [Action; LEGAL_CAP],
}

impl PartialEq for ActionList {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for ActionList {}

impl std::fmt::Debug for ActionList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl Default for ActionList {
    fn default() -> Self {
        ActionList::EMPTY
    }
}

impl ActionList {
    /// No action.
    pub const EMPTY: ActionList = ActionList { len: 0, items: [0; LEGAL_CAP] };

    /// The list of `items`, or `None` beyond the capacity.
    pub fn from_slice(items: &[Action]) -> Option<ActionList> {
        if items.len() > LEGAL_CAP {
            return None;
        }
        let mut list = ActionList::EMPTY;
        list.items[..items.len()].copy_from_slice(items);
        list.len = items.len() as u8;
        Some(list)
    }

    /// The actions in order.
    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.items[..self.len as usize]
    }

    /// Append an action.
    #[inline]
    pub fn push(&mut self, action: Action) {
        self.items[self.len as usize] = action;
        self.len += 1;
    }

    /// How many actions.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Empty the list (the unused slots keep whatever they held: nothing reads them).
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Whether the list is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `action` is in the list.
    #[inline]
    pub fn contains(&self, action: Action) -> bool {
        self.as_slice().contains(&action)
    }
}

/// The data that parameterise the rules (C1, C5, C16). Python twin: rulesets.py `Ruleset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ruleset {
    /// Each player's start tiles, Storms included (C1).
    pub start_bag: Tiles<24>,
    /// (player count, Storms on the track that make the Storm hit) (C5).
    pub storm_thresholds: [(i32, i32); 4],
    pub threshold_count: u8,
    /// Kinds that cost a Step when the Storm hits, in stored order; `None`: every walk tile (C16).
    pub penalised_kinds: Option<Tiles<32>>,
    /// The same as a bit set over kinds (every bit when `penalised_kinds` is `None`).
    pub penalised_mask: u32,
    pub walks: i32,
    pub start_steps: i32,
    pub deck_suns: i32,
    pub deck_storms: i32,
    pub reserve_storms: i32,
    pub stack_size: i32,
}

impl Ruleset {
    /// Storms on the track at which the Storm hits with this many players (C5). Python twin:
    /// `Ruleset.storm_threshold`.
    pub fn storm_threshold(&self, players: i32) -> Option<i32> {
        self.storm_thresholds[..self.threshold_count as usize]
            .iter()
            .find(|(count, _)| *count == players)
            .map(|&(_, threshold)| threshold)
    }

    /// Whether a tile of this kind in a path costs a Step when the Storm hits (C16). Python twin:
    /// `Ruleset.is_penalised`.
    #[inline]
    pub fn is_penalised(&self, kind: Kind) -> bool {
        self.penalised_mask >> kind & 1 == 1
    }

    /// The shipped ruleset of this name (Python twin: `RULESETS[name]`).
    pub fn named(name: &str) -> Option<Ruleset> {
        let (_, ints) = crate::catalogue::RULESETS.iter().find(|(n, _)| *n == name)?;
        let mut cursor = crate::encoding::Cursor::new(ints);
        crate::encoding::read_ruleset(&mut cursor).ok()
    }

    /// Whether a game of `players` under this ruleset fits the state's fixed capacities: a player
    /// can own every start tile and every stack tile (`OWNED_CAP`) and discard any of their kinds
    /// (`LEGAL_CAP`), the box can hold every tile
    /// (`BOX_CAP`), a stack fits a market count. The Python engine has no such limits; a caller
    /// runs such a game in Python.
    pub fn fits(&self, players: usize) -> bool {
        let start = self.start_bag.len();
        let stacks = 8 * self.stack_size.max(0) as usize;
        let mut start_kinds = self.start_bag.as_slice().to_vec();
        start_kinds.sort_unstable();
        start_kinds.dedup();
        (1..=MAX_PLAYERS).contains(&players)
            && start + stacks <= OWNED_CAP
            && 2 + start_kinds.len() + 8 <= LEGAL_CAP
            && players * start + stacks <= BOX_CAP
            && self.stack_size <= u8::MAX as i32
    }

    /// The default ruleset (Python twin: `DEFAULT_RULESET`).
    pub fn default_ruleset() -> Ruleset {
        Ruleset::named("default").expect("the catalogue holds the default ruleset")
    }
}

/// A route: 4 object kinds then 4 landscape/animal kinds (C3). Python twin: routes.py `Route`.
pub type Route = [Kind; 8];

/// The shipped route of this name (Python twin: `ROUTES[name]`).
pub fn route_named(name: &str) -> Option<Route> {
    crate::catalogue::ROUTES.iter().find(|(n, _)| *n == name).map(|&(_, kinds)| kinds)
}

/// A contested stack at a buy (C12): the kind, the tied seats, the slots left for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Tie {
    pub kind: Kind,
    pub tied: Tiles<MAX_PLAYERS>,
    pub slots: i8,
}

/// The facts of a game of Refuge at one moment. Python twin: positions/kernel/state.py `State`
/// (same fields, same meaning; tuples become inline arrays, `None`-like values -1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    pub ruleset: Ruleset,
    pub route: Route,
    pub players: usize,
    pub threshold: i32,
    pub walk: i32,
    pub turn: i32,
    pub phase: i32,
    pub actor: i32,
    /// Each player's bag in order. Read it freely; change it only through `set_bag`, `bag_push`,
    /// `bag_extend` and `bag_remove`, which keep `bag_counts` equal to it.
    pub bags: [Tiles<BAG_CAP>; MAX_PLAYERS],
    /// Each bag counted per kind, kept beside its order (no field of Python's `State`: it counts the
    /// tuple, `bag.count(kind)`), so a draw and the heuristic need not count. Always
    /// `kind_counts(bags[p])` (`counts_agree`; tests check it after every event).
    pub bag_counts: [KindCounts; MAX_PLAYERS],
    pub hands: [Tiles<HAND_CAP>; MAX_PLAYERS],
    pub paths: [Tiles<OWNED_CAP>; MAX_PLAYERS],
    pub set_aside: [Tiles<SET_ASIDE_CAP>; MAX_PLAYERS],
    pub steps: [i32; MAX_PLAYERS],
    pub vp: [i32; MAX_PLAYERS],
    pub walking: [bool; MAX_PLAYERS],
    pub owned_storms: [i32; MAX_PLAYERS],
    pub track_suns: i32,
    pub track_storms: i32,
    pub deck_suns: i32,
    pub deck_storms: i32,
    pub reserve: i32,
    pub market: [u8; KIND_COUNT],
    pub box_: Tiles<BOX_CAP>,
    pub pending: [Action; MAX_PLAYERS],
    pub history: u64,
    pub tile: i32,
    pub extra_plays: i32,
    pub discards_left: i32,
    pub discards_required: i32,
    pub ties: [Tie; TIES_CAP],
    pub tie_count: u8,
    pub legal: ActionList,
    /// Seats whose bag the player to decide cannot know; `determinize` deals them afresh.
    pub hidden_bags: Tiles<MAX_PLAYERS>,
}

impl State {
    /// A position of `players` on `route` under `ruleset` before anything is set: empty tile groups,
    /// zero counts, the first walk's first turn, no choice pending (what `State::new_game` and
    /// `encoding::from_ints` fill in). Python twin: the fields' defaults in positions/kernel/state.py.
    pub fn blank(ruleset: Ruleset, route: Route, players: usize, threshold: i32) -> State {
        State {
            ruleset,
            route,
            players,
            threshold,
            walk: 0,
            turn: 0,
            phase: 0,
            actor: 0,
            bags: [Tiles::EMPTY; MAX_PLAYERS],
            bag_counts: [[0; COUNT_SLOTS]; MAX_PLAYERS],
            hands: [Tiles::EMPTY; MAX_PLAYERS],
            paths: [Tiles::EMPTY; MAX_PLAYERS],
            set_aside: [Tiles::EMPTY; MAX_PLAYERS],
            steps: [0; MAX_PLAYERS],
            vp: [0; MAX_PLAYERS],
            walking: [false; MAX_PLAYERS],
            owned_storms: [0; MAX_PLAYERS],
            track_suns: 0,
            track_storms: 0,
            deck_suns: 0,
            deck_storms: 0,
            reserve: 0,
            market: [0; KIND_COUNT],
            box_: Tiles::EMPTY,
            pending: [crate::rules::NO_CHOICE; MAX_PLAYERS],
            history: 0,
            tile: crate::rules::NO_CHOICE,
            extra_plays: 0,
            discards_left: 0,
            discards_required: 0,
            ties: [Tie::default(); TIES_CAP],
            tie_count: 0,
            legal: ActionList::EMPTY,
            hidden_bags: Tiles::EMPTY,
        }
    }

    /// Replace a player's bag, recounting it (Python: `replace(state, bags=...)`, rules.py and
    /// position.py build each bag tuple anew).
    #[inline]
    pub fn set_bag(&mut self, player: usize, bag: Tiles<BAG_CAP>) {
        self.bag_counts[player] = kind_counts(bag.as_slice());
        self.bags[player] = bag;
    }

    /// A tile joins the end of a player's bag (Python: `bag + (kind,)`, rules.py `_buy`).
    #[inline]
    pub fn bag_push(&mut self, player: usize, kind: Kind) {
        self.bags[player].push(kind);
        self.bag_counts[player][kind as usize] += 1;
    }

    /// Tiles join the end of a player's bag in order (Python: `bag + tiles`, rules.py `_go_home`,
    /// `_check_storm`, `end_walk`).
    #[inline]
    pub fn bag_extend(&mut self, player: usize, kinds: &[Kind]) {
        self.bags[player].extend(kinds);
        let counts = &mut self.bag_counts[player];
        for &k in kinds {
            counts[k as usize] += 1;
        }
    }

    /// Take the first tile of `kind` out of a player's bag, keeping the order of the rest; false
    /// (and unchanged) if the bag holds none (Python: rules.py `_without`, after `kind in bag`).
    #[inline]
    pub fn bag_remove(&mut self, player: usize, kind: Kind) -> bool {
        let count = &mut self.bag_counts[player][kind as usize];
        if *count == 0 {
            return false;
        }
        *count -= 1;
        let removed = self.bags[player].remove_first(kind);
        debug_assert!(removed, "a bag's counts disagree with its tiles");
        true
    }

    /// How many tiles of `kind` a player's bag holds (Python: `bag.count(kind)`).
    #[inline]
    pub fn bag_count(&self, player: usize, kind: Kind) -> usize {
        self.bag_counts[player][kind as usize] as usize
    }

    /// Whether every bag's counts equal its tiles (`bag_counts`' invariant; no Python twin: Python
    /// keeps no counts).
    pub fn counts_agree(&self) -> bool {
        (0..MAX_PLAYERS).all(|p| self.bag_counts[p] == kind_counts(self.bags[p].as_slice()))
    }

    /// The pending ties in order (Python: `pos.ties`).
    #[inline]
    pub fn ties(&self) -> &[Tie] {
        &self.ties[..self.tie_count as usize]
    }

    /// Replace the pending ties (the unused slots cleared, so equal states compare equal).
    #[inline]
    pub fn set_ties(&mut self, ties: &[Tie]) {
        self.ties[..ties.len()].copy_from_slice(ties);
        self.ties[ties.len()..].fill(Tie::default());
        self.tie_count = ties.len() as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::{Tiles, PAD};
    use proptest::prelude::*;

    /// Apply `ops` to an empty `Tiles<CAP>` and to a `Vec` model: the items, `count`, `contains`
    /// and `position` agree and every unused slot holds `PAD` after every edit.
    fn check_against_a_model<const CAP: usize>(ops: &[(u8, u8)]) -> Result<(), TestCaseError> {
        let mut tiles = Tiles::<CAP>::EMPTY;
        let mut model: Vec<u8> = Vec::new();
        for &(op, item) in ops {
            match op {
                0 if model.len() < CAP => { tiles.push(item); model.push(item); }
                1 => {
                    let removed = tiles.remove_first(item);
                    let at = model.iter().position(|&x| x == item);
                    prop_assert_eq!(removed, at.is_some());
                    if let Some(i) = at { model.remove(i); }
                }
                2 if model.len() + 2 <= CAP => { tiles.extend(&[item, item / 2]); model.extend([item, item / 2]); }
                3 => { tiles.clear(); model.clear(); }
                _ => {}
            }
            prop_assert_eq!(tiles.as_slice(), &model[..]);
            prop_assert!(tiles.items[model.len()..].iter().all(|&x| x == PAD));
            for kind in 0..6 {
                prop_assert_eq!(tiles.count(kind), model.iter().filter(|&&x| x == kind).count());
                prop_assert_eq!(tiles.contains(kind), model.contains(&kind));
                prop_assert_eq!(tiles.position(kind), model.iter().position(|&x| x == kind));
            }
        }
        Ok(())
    }

    proptest! {
        /// Against a `Vec` model, for a capacity of words and a part word (`Tiles::word`).
        #[test]
        fn tiles_keep_their_padding(ops in prop::collection::vec((0u8..4, 0u8..6), 0..80)) {
            check_against_a_model::<12>(&ops)?;
        }

        /// Against a `Vec` model, for a bag's capacity (on x86-64: SSE2 chunks, `chunks`), mostly
        /// pushes so that the bag fills and items are removed from every chunk.
        #[test]
        fn bags_keep_their_padding(ops in prop::collection::vec((prop_oneof![3 => Just(0u8), 1 => 1u8..3, 1 => Just(1u8)], 0u8..6), 0..200)) {
            check_against_a_model::<{ super::BAG_CAP }>(&ops)?;
            check_against_a_model::<16>(&ops)?;
        }
    }

    /// A copy is one memcpy of the state: keep it small (issue 53: a copy ≤ 50 ns; 1,088 bytes
    /// with the bags' counts and whole chunks of bag copy in about 32–35 ns, docs/performance.md).
    #[test]
    fn state_stays_small() {
        let size = std::mem::size_of::<super::State>();
        eprintln!("State: {size} bytes");
        assert!(size <= 1088, "State is {size} bytes");
    }
}
