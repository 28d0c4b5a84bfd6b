//! The heuristic rollout policy: returns by storm risk against what is at stake, plays tiles by
//! value, buys by value (per Step); the last walker of the last walk plays for the win (C18).
//! Python twin: positions/kernel/heuristics.py (`HeuristicPolicy`), float operations in the same
//! order so that its choices are the same bit for bit.

use crate::catalogue::*;
use crate::rng::Rng;
use crate::rules::{penalised_count, storm_penalty, storm_vp_loss, storms_to_hit, weather_hit_chance};
use crate::state::{Action, Kind, KindCounts, State, BAG_CAP, COUNT_SLOTS};
use crate::tiles::{effect_gain, effects, paw_total, Effect};

/// The heuristic's parameters (Python twin: `HeuristicPolicy.__init__`; `max_value` is
/// `buy_style == "max_value"`). The shipped ones: `catalogue::DEFAULT_ROLLOUT`, `THRIFTY_ROLLOUT`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heuristic {
    pub aggression: f64,
    pub max_value: bool,
    pub draw_gain: f64,
    pub tie_draw: f64,
    pub behind: f64,
    pub save_ratio: f64,
    pub save_margin: f64,
}

/// Python's `max(a, b)` on floats: `a` unless `b` is greater.
#[inline]
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// The first action of `legal` with the greatest value (Python: `max(legal, key=value)`).
fn first_max(legal: &[Action], mut value: impl FnMut(Action) -> f64) -> Action {
    let mut best = legal[0];
    let mut best_value = value(best);
    for &a in &legal[1..] {
        let v = value(a);
        if v > best_value {
            best = a;
            best_value = v;
        }
    }
    best
}

/// The first action of `legal` with the least value (Python: `min(legal, key=value)`).
fn first_min(legal: &[Action], mut value: impl FnMut(Action) -> f64) -> Action {
    first_max(legal, |a| -value(a))
}

/// A player's final score as the heuristics project it (Python twin: `projected_score`).
pub fn projected_score(vp: i32, paws: i32, walks_left: i32, bag_sum: f64, bag_size: usize) -> f64 {
    vp as f64 + 0.6 * paws as f64 + walks_left as f64 * 4.0 * bag_sum / bag_size.max(1) as f64
}

/// Python twin: `_effect_value`.
#[allow(clippy::too_many_arguments)]
fn effect_value(e: &Effect, suns: i32, path_len: i32, paws: i32, steps: i32, vp: i32, step_value: f64, extra_value: f64) -> f64 {
    let (gain_vp, gain_steps) = effect_gain(e, suns, path_len, paws, steps, vp);
    let mut value = gain_vp as f64 + step_value * gain_steps as f64 + extra_value * e.extra_plays as f64;
    if e.discards != 0 {
        value += 0.5 * step_value * e.discards as f64;
    }
    value
}

/// The row of `STEP_VALUE` and `WORTH` for the walk (Python twin: `walk_index`).
#[inline]
pub fn walk_index(pos: &State) -> usize {
    pos.walk.clamp(0, STEP_VALUE.len() as i32 - 1) as usize
}

/// Mean typical worth of the walk tiles in `bag` during `walk`, summed in bag order (Python twin:
/// `bag_value`, without its memo).
pub fn bag_value(walk: usize, bag: &[Kind]) -> f64 {
    let (sum, walk_tiles) = bag_sum(walk, bag);
    if walk_tiles == 0 {
        0.0
    } else {
        sum / walk_tiles as f64
    }
}

/// `bag_value`'s sum and count: the worths of `bag`'s tiles added in bag order from +0.0, and how
/// many of them are walk tiles (Python twin: `sum(tiles)` and `len(tiles)` in `bag_value`). A
/// caller that needs only the sum drops the count when this is inlined.
///
/// Storms are added too, without a branch: their worth is +0.0 (a test checks it), and adding +0.0
/// leaves a sum that starts at +0.0 bit for bit the same (it is never -0.0: round-to-nearest gives
/// `x + -x = +0.0`).
#[inline]
fn bag_sum(walk: usize, bag: &[Kind]) -> (f64, usize) {
    let worth = &WORTH[walk];
    let mut sum = 0.0;
    let mut walk_tiles = 0;
    for &k in bag {
        sum += worth[k as usize];
        walk_tiles += (k != STORM) as usize;
    }
    (sum, walk_tiles)
}

/// `FIXED_WORTH`'s unit: worths in 2^-24ths (every worth is below 2^6 in magnitude, so a fixed
/// worth is below 2^30 and splits into two `i16` halves).
const FIXED_SCALE: f64 = (1u32 << 24) as f64;

/// Each kind's worth in each walk in `FIXED_SCALE`ths, rounded, as high and low 16-bit halves
/// (`worth · 2^24 ≈ high · 2^16 + low`, `low` signed), over a bag's count slots (the slots past the
/// last kind 0): a bag's worth from its counts in two integer dot products.
const FIXED_WORTH: [[[i16; COUNT_SLOTS]; 2]; WORTH.len()] = {
    let mut table = [[[0i16; COUNT_SLOTS]; 2]; WORTH.len()];
    let mut walk = 0;
    while walk < WORTH.len() {
        let mut k = 0;
        while k < KIND_COUNT {
            let scaled = WORTH[walk][k] * FIXED_SCALE;
            assert!(scaled.abs() < (1u32 << 30) as f64, "a worth fits FIXED_WORTH");
            let fixed = if scaled >= 0.0 { (scaled + 0.5) as i64 } else { -((0.5 - scaled) as i64) };
            let low = (fixed as i16) as i64; // the low 16 bits, signed
            table[walk][0][k] = ((fixed - low) >> 16) as i16;
            table[walk][1][k] = low as i16;
            k += 1;
        }
        walk += 1;
    }
    table
};

/// The fixed worth of a slot (`FIXED_WORTH`'s halves joined), in `FIXED_SCALE`ths.
const fn fixed_worth(walk: usize, k: usize) -> i64 {
    FIXED_WORTH[walk][0][k] as i64 * 65536 + FIXED_WORTH[walk][1][k] as i64
}

/// The most a tile's fixed worth (over `FIXED_SCALE`) differs from its worth, in any walk.
const FIXED_ERROR: f64 = {
    let mut most = 0.0f64;
    let mut walk = 0;
    while walk < WORTH.len() {
        let mut k = 0;
        while k < KIND_COUNT {
            most = most.max((fixed_worth(walk, k) as f64 / FIXED_SCALE - WORTH[walk][k]).abs());
            k += 1;
        }
        walk += 1;
    }
    most
};

const _: () = assert!(FIXED_ERROR <= 1.0 / FIXED_SCALE, "a fixed worth is rounded to its nearest 2^-24th");

/// The largest worth of a tile in magnitude, in any walk.
const MAX_ABS_WORTH: f64 = {
    let mut most = 0.0f64;
    let mut walk = 0;
    while walk < WORTH.len() {
        let mut k = 0;
        while k < KIND_COUNT {
            most = most.max(WORTH[walk][k].abs());
            k += 1;
        }
        walk += 1;
    }
    most
};

/// A bag holds few enough tiles for `bag_sum_bounds`' margin and for its dot product to fit an
/// `i32` (see there).
const _: () = assert!(BAG_CAP <= 1000, "bag_sum_bounds' margin covers the rounding of a bag's sums");
const _: () = assert!(BAG_CAP * (1 << 15) < i32::MAX as usize, "a bag's dot product with a 16-bit half fits an i32");

/// An interval sure to hold `bag_sum(walk, bag)` of a bag counted `counts` holding `len` tiles,
/// found without its chain of dependent additions and without a loop as long as the bag (no Python
/// twin: `Heuristic::decide` reads it where the ordered sum cannot change the answer).
///
/// Each kind's count times its worth in `FIXED_SCALE`ths, added exactly in integers (two dot
/// products of 16-bit halves, which the compiler vectorises), so the sum `S / FIXED_SCALE` is exact
/// (`|S| < 2^53`) and within `len · FIXED_ERROR` of the bag's exact real sum `T`. The ordered sum
/// is within `γ(m - 1) · A` of `T`, `A = Σ|w| <= m · MAX_ABS_WORTH` over the bag's `m = len`
/// worths, `γ(k) = k·u / (1 - k·u)`, `u = 2^-53`: less than `1.2e-13 · m · MAX_ABS_WORTH` for
/// `m <= 1000`. The margin `len · (FIXED_ERROR + 1e-12 · MAX_ABS_WORTH)` covers both and the
/// rounding of the margin and of the bounds themselves (an empty bag: the bounds are the sum, 0).
#[inline]
fn bag_sum_bounds(walk: usize, counts: &KindCounts, len: usize) -> (f64, f64) {
    let [high, low] = &FIXED_WORTH[walk];
    let fixed = dot(counts, high) as i64 * 65536 + dot(counts, low) as i64;
    let sum = fixed as f64 / FIXED_SCALE; // exact
    let margin = len as f64 * (FIXED_ERROR + 1e-12 * MAX_ABS_WORTH);
    (sum - margin, sum + margin)
}

/// The dot product of a bag's counts and 16-bit weights, in integers (no Python twin: part of
/// `bag_sum_bounds`). Kept out of line: there the compiler vectorises it (16-bit products summed in
/// pairs), inlined it widens it to 64-bit scalar products.
#[inline(never)]
fn dot(counts: &KindCounts, weights: &[i16; COUNT_SLOTS]) -> i32 {
    let mut total = 0i32;
    for k in 0..COUNT_SLOTS {
        total += counts[k] as i16 as i32 * weights[k] as i32;
    }
    total
}

/// Whether a kind has an effect with additional plays, the only way the bag's worth enters its
/// value (C10; Python: `extra_value * effect.extra_plays` in `_effect_value`).
#[inline]
fn has_extra_plays(kind: Kind) -> bool {
    effects(kind).iter().any(|e| e.extra_plays != 0)
}

/// A distribution over a count of Storms, inline (at most 2 per drawing player and the weather
/// tile): `p[OFFSET + n]` is the chance of `n` Storms; the `OFFSET` slots before it and those past
/// `len` stay 0.0.
struct Dist {
    len: usize,
    p: [f64; Dist::OFFSET + Dist::SLOTS],
}

impl Dist {
    /// Zero slots before the distribution: a source has at most 3 terms.
    const OFFSET: usize = 2;
    /// The longest distribution: 0–2 Storms per player and 0–1 from the weather.
    const SLOTS: usize = 2 * crate::state::MAX_PLAYERS + 2;

    /// No Storm for sure.
    fn certain() -> Dist {
        let mut dist = Dist { len: 1, p: [0.0; Dist::OFFSET + Dist::SLOTS] };
        dist.p[Dist::OFFSET] = 1.0;
        dist
    }

    /// Python twin: `_convolve`, in place. Python adds `p[i] * q[j]` into `result[i + j]` for `i`,
    /// then `j`, ascending, from 0.0, skipping a zero `p[i]`; so `result[k]` is
    /// `0.0 + p[k-L+1] * q[L-1] + ... + p[k] * q[0]` over the `i` in range, added in that order.
    /// Here every `k` takes all `L` terms, the `i` out of range reading a zero slot, and nothing is
    /// skipped: with finite terms a zero product (±0.0) leaves the sum unchanged (the sum starts at
    /// +0.0 and is never -0.0, since round-to-nearest gives `x + -x = +0.0`), so the bits are
    /// Python's. Filling `k` from the top reads only slots `<= k`, not yet overwritten.
    /// Every slot is computed (a fixed, branch-free loop): past the new length the slots stay +0.0.
    #[inline]
    fn convolve<const L: usize>(&mut self, q: [f64; L]) {
        for k in (0..Dist::SLOTS).rev() {
            let mut sum = 0.0;
            for j in (0..L).rev() {
                sum += self.p[Dist::OFFSET + k - j] * q[j];
            }
            self.p[Dist::OFFSET + k] = sum;
        }
        self.len += L - 1;
    }

    /// The chance of at least `needed` Storms, summed in ascending order (Python: `sum(dist[needed:])`).
    fn at_least(&self, needed: usize) -> f64 {
        let mut sum = 0.0;
        for &p in self.p[Dist::OFFSET..Dist::OFFSET + self.len].iter().skip(needed) {
            sum += p;
        }
        sum
    }
}

/// The chance the Storm hits at the end of this turn if the player draws (C5, C7, C13).
/// Python twin: `storm_hit_chance`.
pub fn storm_hit_chance(pos: &State) -> f64 {
    let needed = storms_to_hit(pos);
    if needed <= 0 {
        return 1.0;
    }
    // (bag size, Storms in it) of each drawing player with a Storm to draw
    let mut drawers = [(0u8, 0u8); crate::state::MAX_PLAYERS];
    let mut count = 0;
    let mut most = 1; // Storms this turn can bring at most: the weather's, and up to 2 per drawer
    for other in 0..pos.players {
        let bag = &pos.bags[other];
        let size = bag.len();
        if !pos.walking[other] || size == 0 {
            continue;
        }
        let storms = pos.bag_count(other, STORM);
        if storms != 0 {
            drawers[count] = (size as u8, storms as u8);
            count += 1;
            most += size.min(2);
        }
    }
    if needed as usize > most {
        // Python sums an empty tail: 0
        return 0.0;
    }
    // the rest is a pure function of these numbers, asked again by every seat of a step: the last
    // answer of this thread is kept
    let key = HitKey { needed, drawers, count, deck: (pos.deck_suns, pos.deck_storms, pos.reserve) };
    if let Some(hit) = LAST_HIT.with(|last| last.get().filter(|(k, _)| *k == key).map(|(_, hit)| hit)) {
        return hit;
    }
    let hit = hit_chance(&key);
    LAST_HIT.with(|last| last.set(Some((key, hit))));
    hit
}

/// What `storm_hit_chance` computes beyond its shortcuts.
#[derive(Clone, Copy, PartialEq)]
struct HitKey {
    needed: i32,
    /// (bag size, Storms in it) of each drawing player with a Storm to draw (a bag holds < 256).
    drawers: [(u8, u8); crate::state::MAX_PLAYERS],
    count: usize,
    /// Suns and Storms in the weather deck, Storms in the reserve.
    deck: (i32, i32, i32),
}

thread_local! {
    /// The last `storm_hit_chance` convolved by this thread.
    static LAST_HIT: std::cell::Cell<Option<(HitKey, f64)>> = const { std::cell::Cell::new(None) };
}

/// The convolution of `storm_hit_chance` (Python twin: its loop, `_convolve` and `sum`).
fn hit_chance(key: &HitKey) -> f64 {
    let HitKey { needed, drawers, count, deck: (deck_suns, deck_storms, reserve) } = *key;
    let mut dist = Dist::certain();
    for &(size, storms) in &drawers[..count] {
        let (size, storms) = (size as usize, storms as usize);
        if size == 1 {
            dist.convolve([0.0, 1.0]);
        } else {
            let pairs = (size * (size - 1)) as f64;
            let two = (storms * (storms - 1)) as f64 / pairs;
            let none = ((size - storms) * (size - storms - 1)) as f64 / pairs;
            dist.convolve([none, 1.0 - none - two, two]);
        }
    }
    let total = deck_suns + deck_storms;
    let weather = if total != 0 {
        deck_storms as f64 / total as f64
    } else if reserve != 0 {
        1.0
    } else {
        0.0
    };
    dist.convolve([1.0 - weather, weather]);
    dist.at_least(needed as usize)
}

/// C18: a win share against the best of the others (`ties` of them on `lead`). Python twin: `_share`.
#[inline]
fn share(score: f64, lead: i32, ties: usize) -> f64 {
    if score > lead as f64 {
        1.0
    } else if score == lead as f64 {
        1.0 / (1 + ties) as f64
    } else {
        0.0
    }
}

/// The best of the others' VP and how many have it.
fn others_lead(pos: &State, player: usize) -> (i32, usize) {
    let others = (0..pos.players).filter(|&p| p != player).map(|p| pos.vp[p]);
    let lead = others.clone().max().expect("a game of one player has no others");
    (lead, others.filter(|&v| v == lead).count())
}

/// How many walk tiles a bag holds (Python: `len(walk)` of the bag's non-Storm tiles).
#[inline]
fn walk_tile_count(pos: &State, player: usize) -> usize {
    pos.bags[player].len() - pos.bag_count(player, STORM)
}

/// The walk tiles of a bag, in bag order (Python: `[k for k in bag if k != STORM]`).
fn walk_tiles(pos: &State, player: usize) -> impl Iterator<Item = Kind> + '_ {
    pos.bags[player].as_slice().iter().copied().filter(|&k| k != STORM)
}

impl Heuristic {
    /// The heuristic's action for the player to move (ties broken by `rng`). Python twin:
    /// `HeuristicPolicy.choose`.
    pub fn choose(&self, pos: &State, rng: &mut Rng) -> Action {
        let legal = pos.decisions();
        if legal.len() == 1 {
            return legal[0];
        }
        let phase = pos.phase;
        let player = pos.actor as usize;
        if phase == DECIDE {
            return self.decide(pos, player);
        }
        if (phase == CHOOSE || phase == OPTION || phase == DISCARD) && alone_at_the_end(pos, player) {
            return first_max(legal, |a| self.endgame_value(pos, player, a));
        }
        match phase {
            CHOOSE => {
                let (first, second) = (legal[0], legal[1]);
                let (a, b) = ((first - PLAY_BASE) as Kind, (second - PLAY_BASE) as Kind);
                let bag = self.extra_bag_value(pos, player, has_extra_plays(a) || has_extra_plays(b));
                if self.play_value(pos, player, a, bag) >= self.play_value(pos, player, b, bag) {
                    first
                } else {
                    second
                }
            }
            BUY => self.buy(pos, player, legal),
            OPTION => self.option(pos, player, legal),
            DISCARD | RETURN_DISCARD => self.discard(pos, player, legal, phase == RETURN_DISCARD),
            EXTRA => {
                let kept = pos.hands[player].get(0);
                let bag = self.bag_value(pos, player);
                if self.play_value(pos, player, kept, bag) >= bag {
                    legal[0]
                } else {
                    DRAW_CODE
                }
            }
            _ => legal[rng.below(legal.len())],
        }
    }

    /// C6 return or draw. Python twin: `_decide`.
    fn decide(&self, pos: &State, player: usize) -> Action {
        let paws = paw_total(&pos.paths[player]);
        let hit = storm_hit_chance(pos);
        if alone_at_the_end(pos, player) {
            return self.decide_alone_at_the_end(pos, player, paws, hit);
        }
        // C9/C13/C16: the tile played this turn joins the path before the weather tile is turned,
        // so a Storm this turn penalises it too (counted as penalised: its kind is not known yet).
        let steps = pos.steps[player];
        let penalty = storm_penalty(pos, player) + 1;
        let lost_vp = pos.vp[player].min(storm_vp_loss(penalty, steps));
        let step_value = STEP_VALUE[walk_index(pos)];
        let stake = (paws + lost_vp) as f64 + step_value * penalty.min(steps) as f64;
        // Python: `gain = draw_gain * bag_value`, then `(1.0 - hit) * gain * aggression > hit * stake`
        let n = walk_tile_count(pos, player);
        let draws = |sum: f64| {
            let bag = if n == 0 { 0.0 } else { sum / n as f64 };
            (1.0 - hit) * (self.draw_gain * bag) * self.aggression > hit * stake
        };
        let bag = pos.bags[player].as_slice();
        let walk = walk_index(pos);
        // With non-negative factors every float operation of `draws` is non-decreasing in the sum,
        // so when both ends of an interval holding the ordered sum give one answer, the sum gives it
        // too: the ordered sum's chain of dependent additions is run only for a near tie.
        let draw = if n == 0 || !(1.0 - hit >= 0.0 && self.draw_gain >= 0.0 && self.aggression >= 0.0) {
            draws(bag_sum(walk, bag).0)
        } else {
            let (low, high) = bag_sum_bounds(walk, &pos.bag_counts[player], bag.len());
            if draws(low) {
                true
            } else if !draws(high) {
                false
            } else {
                draws(bag_sum(walk, bag).0)
            }
        };
        if draw {
            DRAW_CODE
        } else {
            RETURN_CODE
        }
    }

    /// Behind at the end even after scoring the path (C12, C18). Python twin: `_behind_at_the_end`.
    fn behind_at_the_end(&self, pos: &State, player: usize) -> bool {
        if !alone_at_the_end(pos, player) {
            return false;
        }
        let home = pos.vp[player] + paw_total(&pos.paths[player]);
        home < others_lead(pos, player).0
    }

    /// VP and paw points `kind` would bring if drawn and played now with `steps` Steps. Python
    /// twin: `_endgame_points`.
    fn endgame_points(&self, pos: &State, player: usize, kind: Kind, steps: i32) -> f64 {
        let path = pos.paths[player].as_slice();
        let (suns, paws, vp) = (pos.track_suns, paw_total(&pos.paths[player]), pos.vp[player]);
        let mut best = 0.0;
        for e in effects(kind) {
            let gain_vp = effect_gain(e, suns, path.len() as i32, paws, steps, vp).0;
            best = py_max(best, (gain_vp + e.extra_plays) as f64);
        }
        best + PAW[kind as usize] as f64
    }

    /// Behind at the end: the affordable tile that most raises what a draw brings on average.
    /// Python twin: `_buy_to_catch_up`.
    fn buy_to_catch_up(&self, pos: &State, player: usize, legal: &[Action]) -> Action {
        let steps = pos.steps[player];
        let bag_len = walk_tile_count(pos, player);
        let mut best = PASS_CODE;
        let mut best_mean = if bag_len > 0 {
            let mut sum = 0.0;
            for k in walk_tiles(pos, player) {
                sum += self.endgame_points(pos, player, k, steps);
            }
            sum / bag_len as f64
        } else {
            0.0
        };
        for &action in legal {
            if action >= BUY_BASE {
                let kind = (action - BUY_BASE) as Kind;
                let left = steps - COST[kind as usize];
                let mut sum = 0.0;
                for k in walk_tiles(pos, player) {
                    sum += self.endgame_points(pos, player, k, left);
                }
                let mean = (sum + self.endgame_points(pos, player, kind, left)) / (bag_len + 1) as f64;
                if mean > best_mean {
                    best = action;
                    best_mean = mean;
                }
            }
        }
        best
    }

    /// The last walker's win share after `action` (C16, C15, C18). Python twin: `_endgame_value`.
    fn endgame_value(&self, pos: &State, player: usize, action: Action) -> f64 {
        let hand = &pos.hands[player];
        match pos.phase {
            CHOOSE => {
                let kind = (action - PLAY_BASE) as Kind;
                let second = if hand.get(0) == kind { hand.get(1) } else { hand.get(0) };
                let mut best = f64::NEG_INFINITY;
                for (i, e) in effects(kind).iter().enumerate() {
                    let v = self.effect_share(pos, player, kind, e, second as i32);
                    if i == 0 || v > best {
                        best = v;
                    }
                }
                best
            }
            OPTION => {
                let kind = pos.tile as Kind;
                let option = action - OPTION_BASE;
                let e = effects(kind).iter().find(|e| e.option == option).expect("an option of the tile");
                let second = if hand.is_empty() { -1 } else { hand.get(0) as i32 };
                self.effect_share(pos, player, kind, e, second)
            }
            _ => {
                // the discard step (C11): the played tile joins the path once its discards are done
                let kind = pos.tile as Kind;
                let mut penalty = storm_penalty(pos, player) + penalised_count(&pos.ruleset, &[kind]);
                let mut lost = 0;
                if action != DISCARD_NONE_CODE && action != DISCARD_SECOND_CODE {
                    let removed = (action - DISCARD_PATH_BASE) as Kind;
                    lost = PAW[removed as usize];
                    penalty -= penalised_count(&pos.ruleset, &[removed]);
                }
                self.endgame_share(pos, player, pos.vp[player] as f64, pos.steps[player], penalty,
                                   (paw_total(&pos.paths[player]) + PAW[kind as usize] - lost) as f64)
            }
        }
    }

    /// The endgame win share of playing `kind` with `effect` (C9, C10). Python twin: `_effect_share`.
    fn effect_share(&self, pos: &State, player: usize, kind: Kind, e: &Effect, mut second: i32) -> f64 {
        let path = pos.paths[player].as_slice();
        let (paws, steps, vp) = (paw_total(&pos.paths[player]), pos.steps[player], pos.vp[player]);
        let (gain_vp, gain_steps) = effect_gain(e, pos.track_suns, path.len() as i32, paws, steps, vp);
        // the tile joins the path, each additional play adds one (counted as penalised: not known
        // yet), a discard takes the path's first tile of fewest paws
        let mut penalty = storm_penalty(pos, player) + penalised_count(&pos.ruleset, &[kind]) + e.extra_plays;
        let mut lost = 0;
        if e.discards != 0 && !path.is_empty() {
            let mut removed = path[0];
            for &k in &path[1..] {
                if PAW[k as usize] < PAW[removed as usize] {
                    removed = k;
                }
            }
            lost = PAW[removed as usize];
            penalty -= penalised_count(&pos.ruleset, &[removed]);
        }
        let mut extra_vp = 0.0;
        let mut extra_paws = 0.0;
        if e.extra_plays != 0 {
            let n = walk_tile_count(pos, player);
            let (draw_vp, draw_paws) = if n > 0 {
                let mut vp_sum = 0.0;
                let mut paw_sum = 0;
                for k in walk_tiles(pos, player) {
                    vp_sum += self.tile_vp(pos, player, k);
                    paw_sum += PAW[k as usize];
                }
                (vp_sum / n as f64, paw_sum as f64 / n as f64)
            } else {
                (0.0, 0.0)
            };
            for _ in 0..e.extra_plays {
                if second >= 0
                    && self.tile_vp(pos, player, second as Kind) + PAW[second as usize] as f64 >= draw_vp + draw_paws
                {
                    extra_vp += self.tile_vp(pos, player, second as Kind);
                    extra_paws += PAW[second as usize] as f64;
                    second = -1;
                } else {
                    extra_vp += draw_vp;
                    extra_paws += draw_paws;
                }
            }
        }
        self.endgame_share(pos, player, (vp + gain_vp) as f64 + extra_vp, steps + gain_steps, penalty,
                           (paws + PAW[kind as usize] - lost) as f64 + extra_paws)
    }

    /// The most VP `kind`'s effect gives if played now (C9). Python twin: `_tile_vp`.
    fn tile_vp(&self, pos: &State, player: usize, kind: Kind) -> f64 {
        let path = pos.paths[player].as_slice();
        let paws = paw_total(&pos.paths[player]);
        effects(kind)
            .iter()
            .map(|e| effect_gain(e, pos.track_suns, path.len() as i32, paws, pos.steps[player], pos.vp[player]).0)
            .max()
            .expect("a kind has an effect") as f64
    }

    /// The win share with `vp`, `steps`, a Storm penalty of `penalty` Steps and `paws` paw points
    /// in the path (C16, C15, C18). Python twin: `_endgame_share`.
    fn endgame_share(&self, pos: &State, player: usize, vp: f64, steps: i32, penalty: i32, paws: f64) -> f64 {
        let (lead, ties) = others_lead(pos, player);
        let hit = weather_hit_chance(pos);
        let if_hit = py_max(0.0, vp - storm_vp_loss(penalty, steps) as f64);
        let home = vp + paws;
        let walk_on = if home >= lead as f64 { share(home, lead, ties) } else { self.behind };
        hit * share(if_hit, lead, ties) + (1.0 - hit) * walk_on + 0.001 * (hit * if_hit + (1.0 - hit) * home)
    }

    /// The last walker of the last walk plays for the win (C18). Python twin:
    /// `_decide_alone_at_the_end`.
    fn decide_alone_at_the_end(&self, pos: &State, player: usize, paws: i32, hit: f64) -> Action {
        let home = pos.vp[player] + paws;
        let (lead, ties) = others_lead(pos, player);
        if home < lead {
            return DRAW_CODE;
        }
        if home > lead {
            let safe = storms_to_hit(pos) > pos.bag_count(player, STORM) as i32 + 1;
            let costly = home - lead <= 2 && pos.bag_count(player, MARSHMALLOWS) != 0;
            return if safe && !costly { DRAW_CODE } else { RETURN_CODE };
        }
        let share = 1.0 / (1 + ties) as f64;
        if (1.0 - hit) * self.tie_draw > share {
            DRAW_CODE
        } else {
            RETURN_CODE
        }
    }

    /// Python twin: `_bag_value`.
    #[inline]
    fn bag_value(&self, pos: &State, player: usize) -> f64 {
        bag_value(walk_index(pos), pos.bags[player].as_slice())
    }

    /// `_bag_value` where a tile's value reads it, `needed`: it enters only as
    /// `extra_value * effect.extra_plays` (`_effect_value`), so without additional plays any
    /// finite value gives the same values up to a zero's sign, which no comparison sees.
    #[inline]
    fn extra_bag_value(&self, pos: &State, player: usize, needed: bool) -> f64 {
        if needed {
            self.bag_value(pos, player)
        } else {
            0.0
        }
    }

    /// Python twin: `_play_value`; `bag` is `_bag_value(pos, player)`, computed once by the caller.
    fn play_value(&self, pos: &State, player: usize, kind: Kind, bag: f64) -> f64 {
        let path = pos.paths[player].as_slice();
        let step_value = STEP_VALUE[walk_index(pos)];
        let extra = 0.8 * bag;
        let paws = paw_total(&pos.paths[player]);
        let mut best = f64::NEG_INFINITY;
        for (i, e) in effects(kind).iter().enumerate() {
            let v = effect_value(e, pos.track_suns, path.len() as i32, paws, pos.steps[player], pos.vp[player], step_value, extra);
            if i == 0 || v > best {
                best = v;
            }
        }
        best + 0.7 * PAW[kind as usize] as f64
    }

    /// Python twin: `_option`.
    fn option(&self, pos: &State, player: usize, legal: &[Action]) -> Action {
        let path = pos.paths[player].as_slice();
        let step_value = STEP_VALUE[walk_index(pos)];
        let kind = pos.tile as Kind;
        let extra = 0.8 * self.extra_bag_value(pos, player, has_extra_plays(kind));
        let paws = paw_total(&pos.paths[player]);
        first_max(legal, |action| {
            let e = effects(kind).iter().find(|e| e.option == action - OPTION_BASE).expect("an option of the tile");
            if e.discards != 0 {
                self.discard_gain(pos, player)
            } else {
                effect_value(e, pos.track_suns, path.len() as i32, paws, pos.steps[player], pos.vp[player], step_value, extra)
            }
        })
    }

    /// Python twin: `_keep_value`.
    #[inline]
    fn keep_value(&self, pos: &State, kind: Kind) -> f64 {
        WORTH[walk_index(pos)][kind as usize]
    }

    /// What discarding the weakest target is worth (C11). Python twin: `_discard_gain`.
    fn discard_gain(&self, pos: &State, player: usize) -> f64 {
        let walks_left = pos.ruleset.walks - 1 - pos.walk;
        let targets = pos.paths[player].as_slice().iter().chain(pos.hands[player].as_slice());
        if targets.clone().next().is_none() || walks_left == 0 {
            return 0.0;
        }
        let mut weakest = f64::INFINITY;
        for (i, &k) in targets.enumerate() {
            let v = self.keep_value(pos, k);
            if i == 0 || v < weakest {
                weakest = v;
            }
        }
        py_max(0.0, 1.5 - weakest) * walks_left as f64 * 0.5
    }

    /// Python twin: `_discard`.
    fn discard(&self, pos: &State, player: usize, legal: &[Action], returning: bool) -> Action {
        first_min(legal, |action| {
            if action == DISCARD_NONE_CODE {
                return if pos.walk < pos.ruleset.walks - 1 { 1.0 } else { -1.0 };
            }
            if action == DISCARD_SECOND_CODE {
                return self.keep_value(pos, pos.hands[player].get(0));
            }
            let kind = (action - DISCARD_PATH_BASE) as Kind;
            let at_stake = if returning { 0.0 } else { 0.7 * PAW[kind as usize] as f64 };
            self.keep_value(pos, kind) + at_stake
        })
    }

    /// C12 buying. Python twin: `_buy`.
    fn buy(&self, pos: &State, player: usize, legal: &[Action]) -> Action {
        if pos.walk >= pos.ruleset.walks - 1 {
            if !self.behind_at_the_end(pos, player) {
                return PASS_CODE;
            }
            return self.buy_to_catch_up(pos, player, legal);
        }
        let worth = &WORTH[walk_index(pos)];
        let mut best = PASS_CODE;
        let mut best_value = 0.0;
        for &action in legal {
            if action < BUY_BASE {
                continue;
            }
            let kind = (action - BUY_BASE) as usize;
            let value = if self.max_value {
                worth[kind] - 0.1 * COST[kind] as f64
            } else {
                worth[kind] / COST[kind] as f64
            };
            if value > best_value {
                best = action;
                best_value = value;
            }
        }
        if best != PASS_CODE && (self.save_ratio != 0.0 || self.save_margin != 0.0) {
            let floor = self.save_ratio * self.bag_value(pos, player) + self.save_margin;
            if worth[(best - BUY_BASE) as usize] < floor {
                return PASS_CODE;
            }
        }
        best
    }
}

/// The last walk, every other player home: their scores are final (C15, C17). Python twin:
/// `HeuristicPolicy._alone_at_the_end`.
pub fn alone_at_the_end(pos: &State, player: usize) -> bool {
    pos.walk == pos.ruleset.walks - 1 && !(0..pos.players).any(|p| p != player && pos.walking[p])
}

/// The default rollout policy's choice (Python twin: `DEFAULT_ROLLOUT.choose(state, rng)`).
pub fn heuristic_choice(pos: &State, rng: &mut Rng) -> Action {
    DEFAULT_ROLLOUT.choose(pos, rng)
}

#[cfg(test)]
mod tests {
    use super::Dist;
    use crate::catalogue::{STORM, WORTH};
    use proptest::prelude::*;

    /// `bag_value` adds the Storms' worth without a branch: it must be +0.0 in every walk.
    #[test]
    fn storms_are_worth_positive_zero() {
        for row in &WORTH {
            assert_eq!(row[STORM as usize].to_bits(), 0.0f64.to_bits());
        }
    }

    /// Python's `_convolve` as written there: a new list, products added in `i`, then `j`, order.
    fn convolve_as_python(dist: &[f64], source: &[f64]) -> Vec<f64> {
        let mut result = vec![0.0; dist.len() + source.len() - 1];
        for (i, &p) in dist.iter().enumerate() {
            if p != 0.0 {
                for (j, &q) in source.iter().enumerate() {
                    result[i + j] += p * q;
                }
            }
        }
        result
    }

    proptest! {
        /// `bag_sum_bounds` holds the ordered sum of any bag in any walk.
        #[test]
        fn bag_sum_bounds_hold_the_ordered_sum(
            bag in prop::collection::vec(0u8..crate::catalogue::KIND_COUNT as u8, 0..=crate::state::BAG_CAP),
            walk in 0..WORTH.len(),
        ) {
            let (low, high) = super::bag_sum_bounds(walk, &crate::state::kind_counts(&bag), bag.len());
            let sum = super::bag_sum(walk, &bag).0;
            prop_assert!(low <= sum && sum <= high, "{} <= {} <= {}", low, sum, high);
        }

        /// The in-place convolution gives Python's bits, zeros in the distribution included.
        #[test]
        fn in_place_convolution_is_pythons(
            sources in prop::collection::vec(
                prop_oneof![
                    (0.0..1.0f64).prop_map(|w| vec![1.0 - w, w]),
                    (0.0..1.0f64, 0.0..1.0f64).prop_map(|(a, b)| vec![a * b, 1.0 - a * b - (1.0 - a) * b, (1.0 - a) * b]),
                    Just(vec![0.0, 1.0]),
                    Just(vec![1.0, 0.0]),
                ],
                1..5,
            )
        ) {
            let mut expected = vec![1.0];
            let mut dist = Dist::certain();
            for source in &sources {
                expected = convolve_as_python(&expected, source);
                match source[..] {
                    [a, b] => dist.convolve([a, b]),
                    [a, b, c] => dist.convolve([a, b, c]),
                    _ => unreachable!("sources of 2 or 3 terms"),
                }
            }
            let bits: Vec<u64> = dist.p[Dist::OFFSET..Dist::OFFSET + dist.len].iter().map(|p| p.to_bits()).collect();
            prop_assert_eq!(bits, expected.iter().map(|p| p.to_bits()).collect::<Vec<_>>());
        }
    }
}
