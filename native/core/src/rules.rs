//! The rules: what may be done at each point of a turn, and what doing it changes (C6–C17).
//! Python twin: positions/kernel/rules.py, function for function (same names without the leading
//! underscore). Decisions with a single legal action are applied automatically, so every stop is a
//! real choice, a chance event or the end of the game.

use crate::catalogue::*;
use crate::hash;
use crate::rng::Rng;
use crate::state::{Action, ActionList, Kind, KindCounts, Route, COUNT_SLOTS, PAD, State, Tie, Tiles, HAND_CAP, MAX_PLAYERS};
use crate::tiles::{effect_gain, effects, paw_total, Effect};

/// `tile` while no tile is being resolved, `pending` before a choice (Python twin: `NO_CHOICE`).
pub const NO_CHOICE: i32 = -1;
/// `actor` while nobody acts (Python twin: `NO_ACTOR`).
pub const NO_ACTOR: i32 = CHANCE_PLAYER;

/// A well-formed action that is not legal here (Python twin: `positions.errors.IllegalActionError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalAction(pub String);

impl std::fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IllegalAction {}

impl IllegalAction {
    /// The error of an illegal action, built out of line: the callers' branches to it are laid
    /// out as unlikely, away from the legal path (no Python twin: Python raises).
    #[cold]
    #[inline(never)]
    fn new(message: std::fmt::Arguments<'_>) -> IllegalAction {
        IllegalAction(message.to_string())
    }
}

/// An action's notation as `Display` (Python twin: `str(Action)`), for messages built by
/// `IllegalAction::new` without a string made beforehand.
struct Described(Action);

impl std::fmt::Display for Described {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe(self.0))
    }
}

/// Whether the phase is a chance event (Python twin: `phases.CHANCE_PHASES`).
#[inline]
pub fn is_chance_phase(phase: i32) -> bool {
    phase == DEAL || phase == EXTRA_DRAW || phase == TIEBREAK || phase == WEATHER
}

/// Whether the phase is a simultaneous step (Python twin: `phases.SIMULTANEOUS`, C6, C8, C12).
#[inline]
pub fn is_simultaneous_phase(phase: i32) -> bool {
    phase == DECIDE || phase == CHOOSE || phase == BUY
}

/// Every Storm on the weather track (C5). Python twin: `storms_on_track`.
#[inline]
pub fn storms_on_track(pos: &State) -> i32 {
    pos.track_storms + pos.owned_storms[..pos.players].iter().sum::<i32>()
}

/// How many more Storms make the Storm hit (C5). Python twin: `storms_to_hit`.
#[inline]
pub fn storms_to_hit(pos: &State) -> i32 {
    pos.threshold - storms_on_track(pos)
}

/// The chance this turn's weather tile alone brings the Storm (C5, C13). Python twin:
/// `weather_hit_chance`.
pub fn weather_hit_chance(pos: &State) -> f64 {
    let missing = storms_to_hit(pos);
    if missing <= 0 {
        return 1.0;
    }
    if missing > 1 {
        return 0.0;
    }
    let total = pos.deck_suns + pos.deck_storms;
    if total != 0 {
        pos.deck_storms as f64 / total as f64
    } else if pos.reserve != 0 {
        1.0
    } else {
        0.0
    }
}

/// How many tiles of `kind` the game holds in all (C1, C3). Python twin: `supply`.
pub fn supply(pos: &State, kind: Kind) -> i32 {
    pos.ruleset.start_bag.count(kind) as i32 * pos.players as i32
        + if pos.route.contains(&kind) { pos.ruleset.stack_size } else { 0 }
}

/// Whether `player`'s pending choice is public now (C15, C9–C11). Python twin: `choice_revealed`.
pub fn choice_revealed(pos: &State, player: usize) -> bool {
    pos.walking[player]
        && player as i32 > pos.actor
        && (pos.phase == RETURN_DISCARD
            || ((pos.phase == OPTION || pos.phase == DISCARD || pos.phase == EXTRA || pos.phase == EXTRA_DRAW)
                && !pos.hands[player].is_empty()))
}

/// Fold an event into the history (SPEC-portable section 1). Python twin: `_fold`.
#[inline]
fn fold(pos: &mut State, event: &[i64]) {
    pos.history = hash::fold(pos.history, event);
}

/// An empty track, a full deck and a full reserve (C4, C17). Python twin: `reset_weather`.
pub fn reset_weather(pos: &mut State) {
    pos.track_suns = 0;
    pos.track_storms = 0;
    pos.deck_suns = pos.ruleset.deck_suns;
    pos.deck_storms = pos.ruleset.deck_storms;
    pos.reserve = pos.ruleset.reserve_storms;
}

/// No tile being resolved, no tie pending. Python twin: `reset_resolution`.
pub fn reset_resolution(pos: &mut State) {
    pos.tile = NO_CHOICE;
    pos.extra_plays = 0;
    pos.discards_left = 0;
    pos.discards_required = 0;
    pos.set_ties(&[]);
}

// --- simultaneous steps (C6, C8, C12) ----------------------------------------------------------

/// Whether a player acts in the current simultaneous step (C7). Python twin: `takes_part`.
pub fn takes_part(pos: &State, player: usize) -> bool {
    !step_legal(pos, player).is_empty()
}

/// What one seat's options in a simultaneous step depend on, besides the phase, route and market.
#[derive(Clone, Copy)]
struct Seat {
    walking: bool,
    bag_empty: bool,
    hand: Tiles<HAND_CAP>,
    steps: i32,
}

impl Seat {
    #[inline]
    fn of(pos: &State, player: usize) -> Seat {
        Seat {
            walking: pos.walking[player],
            bag_empty: pos.bags[player].is_empty(),
            hand: pos.hands[player],
            steps: pos.steps[player],
        }
    }
}

/// A player's options in the current simultaneous step; none if they sit it out (C6, C7, C8, C12).
/// Python twin: `step_legal`.
pub fn step_legal(pos: &State, player: usize) -> ActionList {
    let mut out = ActionList::EMPTY;
    write_step_legal(pos.phase, Seat::of(pos, player), &pos.route, &pos.market, &mut out);
    out
}

/// `step_legal` written into `out`: `next_in_step` writes a seat's options straight into the
/// state's `legal` (a list built aside and then copied whole is read back in 16-byte pieces just
/// after its 4-byte writes, which the processor cannot forward: a stall). Always inlined: a `Seat`
/// passed through memory is stored field by field and its hand read back in one load, the same
/// stall (−2 % a heuristic playout).
#[inline(always)]
fn write_step_legal(phase: i32, seat: Seat, route: &Route, market: &[u8; KIND_COUNT], out: &mut ActionList) {
    out.clear();
    if !seat.walking {
        return;
    }
    match phase {
        DECIDE => {
            out.push(RETURN_CODE);
            if !seat.bag_empty {
                out.push(DRAW_CODE);
            }
        }
        CHOOSE => {
            if !seat.hand.is_empty() {
                write_choose_options(seat.hand.as_slice(), out);
            }
        }
        _ => {
            out.push(PASS_CODE);
            for &k in route {
                if market[k as usize] != 0 && COST[k as usize] <= seat.steps {
                    out.push(BUY_BASE + k as i32);
                }
            }
        }
    }
}

/// Which tile of a hand may be played: a priority tile must be, unless both have it (C8).
/// Python twin: `choose_options`.
pub fn choose_options(hand: &[Kind]) -> ActionList {
    let mut out = ActionList::EMPTY;
    write_choose_options(hand, &mut out);
    out
}

/// `choose_options` appended to `out`.
#[inline]
fn write_choose_options(hand: &[Kind], out: &mut ActionList) {
    if hand.len() == 1 || hand[0] == hand[1] {
        out.push(PLAY_BASE + hand[0] as i32);
        return;
    }
    let (first, second) = (hand[0], hand[1]);
    if PRIORITY[first as usize] != PRIORITY[second as usize] {
        out.push(PLAY_BASE + if PRIORITY[first as usize] { first } else { second } as i32);
        return;
    }
    out.push(PLAY_BASE + first as i32);
    out.push(PLAY_BASE + second as i32);
}

/// Start a simultaneous step (Python twin: `_start_step`).
pub fn start_step(pos: &mut State, phase: i32) {
    pos.phase = phase;
    pos.pending = [NO_CHOICE; MAX_PLAYERS];
    next_in_step(pos, 0);
}

/// The next seat with a choice in the step, forced choices taken; at the end the step's choices
/// are folded into the history and carried out (Python twin: `_next_in_step`).
fn next_in_step(pos: &mut State, start: usize) {
    // each seat's options are written into `legal`; a seat with none or one leaves them there, and
    // whichever stop the flow reaches next sets `legal` anew (every stop does)
    for player in start..pos.players {
        let seat = Seat::of(pos, player);
        write_step_legal(pos.phase, seat, &pos.route, &pos.market, &mut pos.legal);
        match pos.legal.len() {
            0 => continue,
            1 => pos.pending[player] = pos.legal.as_slice()[0],
            _ => {
                pos.actor = player as i32;
                return;
            }
        }
    }
    let mut event = [0i64; MAX_PLAYERS + 1];
    event[0] = -(pos.phase as i64) - 1;
    for p in 0..pos.players {
        event[p + 1] = pos.pending[p] as i64;
    }
    fold(pos, &event[..pos.players + 1]);
    match pos.phase {
        DECIDE => next_returner(pos, 0),
        CHOOSE => next_resolver(pos, 0),
        _ => settle_buys(pos),
    }
}

// --- C6 decide, C15 return ---------------------------------------------------------------------

/// Begin a turn: every walking player decides to return or draw (C6). Python twin: `start_turn`.
pub fn start_turn(pos: &mut State) {
    start_step(pos, DECIDE);
}

/// The next returning player scores their paws and may discard (C15). Python twin: `_next_returner`.
fn next_returner(pos: &mut State, start: usize) {
    for player in start..pos.players {
        if pos.pending[player] == RETURN_CODE && pos.walking[player] {
            pos.vp[player] += paw_total(&pos.paths[player]);
            if !pos.paths[player].is_empty() {
                pos.phase = RETURN_DISCARD;
                pos.actor = player as i32;
                pos.legal = return_discard_options(pos.paths[player].as_slice());
                return;
            }
            go_home(pos, player);
        }
    }
    next_deal(pos, 0);
}

/// The distinct kinds of a group in ascending order (Python: `sorted(set(path))`).
fn sorted_kinds(tiles: &[Kind]) -> impl Iterator<Item = Kind> {
    let mut seen = 0u32;
    for &k in tiles {
        seen |= 1 << k;
    }
    (0..KIND_COUNT as u8).filter(move |k| seen >> k & 1 == 1)
}

/// A returning player may discard one walk tile of their path, or none (C15). Python twin:
/// `return_discard_options`.
pub fn return_discard_options(path: &[Kind]) -> ActionList {
    let mut out = ActionList::EMPTY;
    out.push(DISCARD_NONE_CODE);
    for k in sorted_kinds(path) {
        out.push(DISCARD_PATH_BASE + k as i32);
    }
    out
}

/// The path joins the bag and the player is home (C15). Python twin: `_go_home`.
fn go_home(pos: &mut State, player: usize) {
    let path = pos.paths[player];
    pos.bag_extend(player, path.as_slice());
    pos.paths[player].clear();
    pos.walking[player] = false;
}

// --- C7 draw -----------------------------------------------------------------------------------

/// The next drawing player's deal, or the tile choice (C7). Python twin: `_next_deal`.
fn next_deal(pos: &mut State, start: usize) {
    for player in start..pos.players {
        if pos.walking[player] && pos.pending[player] == DRAW_CODE {
            pos.phase = DEAL;
            pos.actor = player as i32;
            pos.legal = ActionList::EMPTY;
            return;
        }
    }
    if !pos.walking[..pos.players].iter().any(|&w| w) {
        end_walk(pos);
        return;
    }
    start_step(pos, CHOOSE);
}

/// A drawing player's tiles come out of the bag; Storms go to the track (C5, C7). Python twin: `_deal`.
fn deal(pos: &mut State, action: Action) -> Result<(), IllegalAction> {
    let player = pos.actor as usize;
    let size = pos.bags[player].len();
    let mut drawn = [0i64; 2];
    let count;
    if action >= DRAWN_TWO_BASE {
        if size < 2 {
            return Err(IllegalAction::new(format_args!("{}: player {player} has only 1 tile to draw", Described(action))));
        }
        let code = (action - DRAWN_TWO_BASE) as i64;
        drawn = [code / KIND_COUNT as i64, code % KIND_COUNT as i64];
        count = 2;
    } else {
        if size != 1 {
            return Err(IllegalAction::new(format_args!("{}: player {player} must draw 2 tiles", Described(action))));
        }
        drawn[0] = (action - DRAWN_ONE_BASE) as i64;
        count = 1;
    }
    // the bag's counts say whether it holds the tiles (two of a kind need two) before any change;
    // then the tiles leave the bag in place
    let counts = &pos.bag_counts[player];
    let held = drawn[..count].iter().all(|&kind| {
        (0..KIND_COUNT as i64).contains(&kind)
            && counts[kind as usize] as usize > (count == 2 && drawn[0] == drawn[1]) as usize
    });
    if !held {
        return Err(IllegalAction::new(format_args!("{}: player {player}'s bag does not hold these tiles", Described(action))));
    }
    for &kind in &drawn[..count] {
        pos.bag_remove(player, kind as u8);
    }
    // the Storms go to the track, the other tiles to the hand in order: computed in registers and
    // stored whole (a hand pushed byte by byte and then copied stalls on store forwarding)
    let first = drawn[0] as u8;
    let second = if count == 2 { drawn[1] as u8 } else { PAD };
    pos.owned_storms[player] += (first == STORM) as i32 + (second == STORM) as i32;
    let second = if second == STORM { PAD } else { second };
    pos.hands[player] = if first == STORM { Tiles::of_two(second, PAD) } else { Tiles::of_two(first, second) };
    next_deal(pos, player + 1);
    Ok(())
}

// --- C8–C11 resolving the played tiles ---------------------------------------------------------

/// The next player with a tile to play resolves it, then the buy (C8). Python twin: `_next_resolver`.
fn next_resolver(pos: &mut State, start: usize) {
    for player in start..pos.players {
        let choice = pos.pending[player];
        if choice >= 0 && pos.walking[player] {
            let kind = (choice - PLAY_BASE) as Kind;
            pos.actor = player as i32;
            assert!(pos.hands[player].remove_first(kind), "a chosen tile is not in the hand");
            play_tile(pos, kind);
            return;
        }
    }
    start_step(pos, BUY);
}

/// Whether the actor has a tile a discard could take (C11). Python twin: `_has_discard_target`.
#[inline]
fn has_discard_target(pos: &State) -> bool {
    let a = pos.actor as usize;
    !pos.hands[a].is_empty() || !pos.paths[a].is_empty()
}

/// Resolve a played tile: ask for its option if it has two open ones, else apply its effect (C9).
/// Python twin: `play_tile`.
pub fn play_tile(pos: &mut State, kind: Kind) {
    let all = effects(kind);
    let mut chosen = &all[0];
    if all.len() > 1 {
        let mut options = ActionList::EMPTY;
        let mut last = 0;
        for (i, e) in all.iter().enumerate() {
            if e.discards_required == 0 || has_discard_target(pos) {
                options.push(OPTION_BASE + e.option);
                last = i;
            }
        }
        if options.len() > 1 {
            pos.phase = OPTION;
            pos.tile = kind as i32;
            pos.legal = options;
            return;
        }
        chosen = &all[last];
    }
    let effect = *chosen;
    apply_effect(pos, kind, &effect);
}

/// Apply an effect's gain, then its discards, then place the tile (C9, C11). Python twin:
/// `_apply_effect`.
fn apply_effect(pos: &mut State, kind: Kind, effect: &Effect) {
    let player = pos.actor as usize;
    let steps = pos.steps[player];
    let vp = pos.vp[player];
    if steps >= effect.pay_steps && vp >= effect.pay_vp {
        let path = pos.paths[player].as_slice();
        let paws = if effect.steps_per_paw != 0 || effect.vp_per_paw != 0 { paw_total(&pos.paths[player]) } else { 0 };
        let (gained_vp, gained_steps) = effect_gain(effect, pos.track_suns, path.len() as i32, paws, steps, vp);
        pos.steps[player] = steps + gained_steps;
        pos.vp[player] = vp + gained_vp;
        pos.extra_plays += effect.extra_plays;
        if effect.discards != 0 && has_discard_target(pos) {
            pos.tile = kind as i32;
            pos.discards_left = effect.discards;
            pos.discards_required = effect.discards_required;
            offer_discard(pos);
            return;
        }
    }
    place(pos, kind);
}

/// Stop for a discard target of Cairn, Hiker or Cave, or take the only required one (C11).
/// Python twin: `offer_discard`.
pub fn offer_discard(pos: &mut State) {
    let player = pos.actor as usize;
    let mut targets = ActionList::EMPTY;
    if pos.discards_required == 0 {
        targets.push(DISCARD_NONE_CODE);
    }
    if !pos.hands[player].is_empty() {
        targets.push(DISCARD_SECOND_CODE);
    }
    for k in sorted_kinds(pos.paths[player].as_slice()) {
        targets.push(DISCARD_PATH_BASE + k as i32);
    }
    if pos.discards_required != 0 && targets.len() == 1 {
        discard(pos, targets.as_slice()[0]);
        return;
    }
    pos.phase = DISCARD;
    pos.legal = targets;
}

/// Carry out a discard (C11). Python twin: `_discard`.
fn discard(pos: &mut State, action: Action) {
    let player = pos.actor as usize;
    if action != DISCARD_NONE_CODE {
        let kind;
        if action == DISCARD_SECOND_CODE {
            kind = pos.hands[player].get(0);
            pos.hands[player].clear();
        } else {
            kind = (action - DISCARD_PATH_BASE) as Kind;
            assert!(pos.paths[player].remove_first(kind), "a discarded tile is not in the path");
        }
        pos.box_.push(kind);
        pos.discards_left -= 1;
        pos.discards_required = 0.max(pos.discards_required - 1);
        if pos.discards_left != 0 && has_discard_target(pos) {
            offer_discard(pos);
            return;
        }
    }
    place(pos, pos.tile as Kind);
}

/// C20: the tile joins the path once its own effect is applied, before additional plays. Python
/// twin: `_place`.
fn place(pos: &mut State, kind: Kind) {
    pos.paths[pos.actor as usize].push(kind);
    pos.tile = NO_CHOICE;
    pos.discards_left = 0;
    pos.discards_required = 0;
    continue_extra_plays(pos);
}

/// Go on with the additional plays still owed (C10), then with the next player to resolve.
/// Python twin: `continue_extra_plays`.
pub fn continue_extra_plays(pos: &mut State) {
    let player = pos.actor as usize;
    if pos.extra_plays != 0 {
        let hand = pos.hands[player];
        let has_bag = !pos.bags[player].is_empty();
        if !hand.is_empty() && has_bag {
            pos.phase = EXTRA;
            pos.legal = ActionList::from_slice(&[PLAY_BASE + hand.get(0) as i32, DRAW_CODE]).unwrap_or_default();
            return;
        }
        if !hand.is_empty() {
            pos.extra_plays -= 1;
            pos.hands[player].clear();
            play_tile(pos, hand.get(0));
            return;
        }
        if has_bag {
            pos.phase = EXTRA_DRAW;
            pos.legal = ActionList::EMPTY;
            return;
        }
        pos.extra_plays = 0;
    }
    next_resolver(pos, player + 1);
}

/// An additional play: the second tile, or set it aside and draw (C10). Python twin: `_extra`.
fn extra(pos: &mut State, action: Action) {
    let player = pos.actor as usize;
    let hand = pos.hands[player];
    if action == DRAW_CODE {
        pos.set_aside[player].extend(hand.as_slice());
        pos.hands[player].clear();
        pos.phase = EXTRA_DRAW;
        pos.legal = ActionList::EMPTY;
        return;
    }
    pos.extra_plays -= 1;
    pos.hands[player].clear();
    play_tile(pos, hand.get(0));
}

/// The tile drawn for an additional play (C10). Python twin: `_extra_draw`.
fn extra_draw(pos: &mut State, action: Action) -> Result<(), IllegalAction> {
    let player = pos.actor as usize;
    let kind = action - DRAWN_ONE_BASE;
    if !(0..KIND_COUNT as i32).contains(&kind) || !pos.bag_remove(player, kind as Kind) {
        return Err(IllegalAction::new(format_args!("{action}: no such tile in player {player}'s bag")));
    }
    let kind = kind as Kind;
    pos.extra_plays -= 1;
    if kind == STORM {
        pos.owned_storms[player] += 1;
        continue_extra_plays(pos);
    } else {
        play_tile(pos, kind);
    }
    Ok(())
}

// --- C12 buying --------------------------------------------------------------------------------

/// Carry out the buys; contested stacks go by fewer VP, then fewer Steps, ties to chance (C12).
/// Python twin: `_settle_buys`.
fn settle_buys(pos: &mut State) {
    let players = pos.players;
    if pos.pending[..players].iter().all(|&c| c < BUY_BASE) {
        pos.set_ties(&[]);
        turn_weather(pos);
        return;
    }
    let rank: [(i32, i32); MAX_PLAYERS] = std::array::from_fn(|p| (pos.vp[p], pos.steps[p]));
    let mut ties = [Tie::default(); 8];
    let mut tie_count = 0;
    // the kinds bought, in ascending order (Python: `sorted(wanted.items())`)
    let mut bought = 0u32;
    for &choice in &pos.pending[..players] {
        if choice >= BUY_BASE {
            bought |= 1 << (choice - BUY_BASE);
        }
    }
    while bought != 0 {
        let kind = bought.trailing_zeros() as u8;
        bought &= bought - 1;
        let mut buyers = [0usize; MAX_PLAYERS];
        let mut n = 0;
        for (player, &choice) in pos.pending[..players].iter().enumerate() {
            if choice == BUY_BASE + kind as i32 {
                buyers[n] = player;
                n += 1;
            }
        }
        let supply = pos.market[kind as usize] as i32;
        let mut chosen = [0usize; MAX_PLAYERS];
        let mut m = 0;
        if n as i32 > supply {
            buyers[..n].sort_by_key(|&p| rank[p]); // stable, as Python's list.sort
            let cut_index = if supply >= 1 { supply as usize - 1 } else { n - 1 };
            let cut = rank[buyers[cut_index]];
            for &p in &buyers[..n] {
                if rank[p] < cut {
                    chosen[m] = p;
                    m += 1;
                }
            }
            let mut tied = Tiles::<MAX_PLAYERS>::EMPTY;
            for &p in &buyers[..n] {
                if rank[p] == cut {
                    tied.push(p as u8);
                }
            }
            let slots = supply - m as i32;
            if tied.len() as i32 > slots {
                ties[tie_count] = Tie { kind, tied, slots: slots as i8 };
                tie_count += 1;
            } else {
                for &p in tied.as_slice() {
                    chosen[m] = p as usize;
                    m += 1;
                }
            }
        } else {
            chosen = buyers;
            m = n;
        }
        for &player in &chosen[..m] {
            buy(pos, player, kind);
        }
    }
    pos.set_ties(&ties[..tie_count]);
    next_tie(pos);
}

/// A player pays for a tile and it goes into their bag (C12). Python twin: `_buy`.
fn buy(pos: &mut State, player: usize, kind: Kind) {
    pos.steps[player] -= COST[kind as usize];
    pos.bag_push(player, kind);
    pos.market[kind as usize] -= 1;
}

/// The next contested stack, or the weather (C12, C13). Python twin: `_next_tie`.
fn next_tie(pos: &mut State) {
    if pos.tie_count != 0 {
        pos.phase = TIEBREAK;
        pos.actor = NO_ACTOR;
        pos.legal = ActionList::EMPTY;
        return;
    }
    turn_weather(pos);
}

/// Chance picks who gets one of the last tiles of a contested stack (C12). Python twin: `_tiebreak`.
fn tiebreak(pos: &mut State, action: Action) -> Result<(), IllegalAction> {
    let Tie { kind, mut tied, mut slots } = pos.ties[0];
    let winner = action - TIEBREAK_BASE;
    if !(0..MAX_PLAYERS as i32).contains(&winner) || !tied.contains(winner as u8) {
        return Err(IllegalAction::new(format_args!(
            "{action}: player {winner} is not in the tie for {}",
            TILE_NAMES[kind as usize]
        )));
    }
    buy(pos, winner as usize, kind);
    tied.remove_first(winner as u8);
    slots -= 1;
    let mut rest = [Tie::default(); 8];
    let mut n = 0;
    if slots != 0 && tied.len() as i8 > slots {
        rest[0] = Tie { kind, tied, slots };
        n = 1;
    } else if slots != 0 {
        for &p in tied.as_slice() {
            buy(pos, p as usize, kind);
        }
    }
    for tie in &pos.ties[1..pos.tie_count as usize] {
        rest[n] = *tie;
        n += 1;
    }
    pos.set_ties(&rest[..n]);
    next_tie(pos);
    Ok(())
}

// --- C13 weather, C16 storm, C14 / C17 ends ----------------------------------------------------

/// Turn the weather tile, or take a Storm from the reserve once the deck is empty (C13).
/// Python twin: `_turn_weather`.
fn turn_weather(pos: &mut State) {
    if pos.deck_suns + pos.deck_storms != 0 {
        pos.phase = WEATHER;
        pos.actor = NO_ACTOR;
        pos.legal = ActionList::EMPTY;
        return;
    }
    if pos.reserve != 0 {
        pos.reserve -= 1;
        pos.track_storms += 1;
    }
    check_storm(pos);
}

/// The weather tile turned (C13). Python twin: `_weather`.
fn weather(pos: &mut State, action: Action) -> Result<(), IllegalAction> {
    if action == SUN_CODE {
        if pos.deck_suns == 0 {
            return Err(IllegalAction::new(format_args!("weather sun: no Sun left in the weather deck")));
        }
        pos.deck_suns -= 1;
        pos.track_suns += 1;
    } else {
        if pos.deck_storms == 0 {
            return Err(IllegalAction::new(format_args!("weather storm: no Storm left in the weather deck")));
        }
        pos.deck_storms -= 1;
        pos.track_storms += 1;
    }
    check_storm(pos);
    Ok(())
}

/// The Storm hits and the walk ends, or the next turn begins (C5, C14, C16). Python twin:
/// `_check_storm`.
fn check_storm(pos: &mut State) {
    if storms_to_hit(pos) <= 0 {
        storm_hits(pos);
        end_walk(pos);
        return;
    }
    for player in 0..pos.players {
        if !pos.hands[player].is_empty() || !pos.set_aside[player].is_empty() {
            let (hand, aside) = (pos.hands[player], pos.set_aside[player]);
            pos.bag_extend(player, hand.as_slice());
            pos.bag_extend(player, aside.as_slice());
            pos.hands[player].clear();
            pos.set_aside[player].clear();
        }
    }
    pos.turn += 1;
    start_turn(pos);
}

/// How many of `tiles` cost a Step when the Storm hits (C16): every one, unless the ruleset names
/// the penalised kinds. Python twin: `penalised_count`.
#[inline]
pub fn penalised_count(ruleset: &crate::state::Ruleset, tiles: &[Kind]) -> i32 {
    tiles.iter().filter(|&&k| ruleset.is_penalised(k)).count() as i32
}

/// VP the Storm costs a walker holding `steps` Steps for a penalty of `penalty` Steps: one per
/// missing Step (C16). Python twin: `storm_vp_loss`.
#[inline]
pub fn storm_vp_loss(penalty: i32, steps: i32) -> i32 {
    0.max(penalty - steps)
}

/// Steps the Storm costs a walker now: one per penalised tile in the path (C16). Python twin:
/// `storm_penalty`.
#[inline]
pub fn storm_penalty(pos: &State, player: usize) -> i32 {
    penalised_count(&pos.ruleset, pos.paths[player].as_slice())
}

/// C16: walkers pay a Step per penalised tile, a VP per missing Step (floor 0). Python twin:
/// `storm_hits`.
pub fn storm_hits(pos: &mut State) {
    for player in 0..pos.players {
        if pos.walking[player] {
            let penalty = storm_penalty(pos, player);
            let steps = pos.steps[player];
            pos.steps[player] = steps - penalty.min(steps);
            pos.vp[player] = 0.max(pos.vp[player] - storm_vp_loss(penalty, steps));
        }
    }
}

/// C17: Storms, paths and hands back to the bags, weather reset; the game ends after the last
/// walk (C18). Python twin: `end_walk`.
pub fn end_walk(pos: &mut State) {
    for player in 0..pos.players {
        let (path, hand, aside) = (pos.paths[player], pos.hands[player], pos.set_aside[player]);
        pos.bag_extend(player, path.as_slice());
        pos.bag_extend(player, hand.as_slice());
        pos.bag_extend(player, aside.as_slice());
        for _ in 0..pos.owned_storms[player] {
            pos.bag_push(player, STORM);
        }
        pos.paths[player].clear();
        pos.hands[player].clear();
        pos.set_aside[player].clear();
        pos.owned_storms[player] = 0;
        pos.walking[player] = true;
    }
    reset_weather(pos);
    reset_resolution(pos);
    pos.walk += 1;
    pos.turn = 0;
    if pos.walk >= pos.ruleset.walks {
        pos.phase = OVER;
        pos.actor = TERMINAL_PLAYER;
        pos.legal = ActionList::EMPTY;
        return;
    }
    start_turn(pos);
}

// --- chance ------------------------------------------------------------------------------------

/// A bag's counts summed up to each kind, eight kinds to a word: byte `j` of word `w` is how many
/// of the bag's tiles are of a kind `<= 8 * w + j` (no byte carries: a bag holds at most
/// `BAG_CAP` < 128 tiles). Read by `nth_sorted`; Python twin: the `sorted(bag)` of `sample_chance`.
#[inline]
fn running_counts(counts: &KindCounts) -> [u64; COUNT_SLOTS / 8] {
    let mut out = [0u64; COUNT_SLOTS / 8];
    let mut below = 0u64; // the tiles of the previous words' kinds
    for (w, word) in out.iter_mut().enumerate() {
        let bytes = u64::from_le_bytes(counts[8 * w..8 * w + 8].try_into().expect("8 bytes"));
        // multiplying by 0x0101..01 adds each byte to every byte above it
        *word = bytes.wrapping_mul(BYTES) + below * BYTES;
        below = *word >> 56;
    }
    out
}

/// Each byte of a word set to 1.
const BYTES: u64 = 0x0101_0101_0101_0101;
const _: () = assert!(crate::state::BAG_CAP < 128, "running counts fit a byte's low 7 bits");

/// The `i`-th tile of a bag taken in ascending kind order (SPEC-portable section 3; Python twin:
/// `sorted(bag)[i]` in `sample_chance`): the number of kinds whose running count is `<= i`,
/// counted without a branch (`running_counts` holds them, each below 128).
#[inline]
fn nth_sorted(running: &[u64; COUNT_SLOTS / 8], i: usize) -> Kind {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let limit = (i as u64 + 1) * BYTES;
    let mut beyond = 0u64; // per byte: 1 where the running count is > i
    for &word in running {
        // a byte's high bit survives the subtraction exactly where its count is >= i + 1
        beyond += (((word | HIGH) - limit) & HIGH) >> 7;
    }
    (COUNT_SLOTS as u64 - (beyond.wrapping_mul(BYTES) >> 56)) as Kind
}

/// The outcome "these two tiles were drawn" (order does not matter). Python twin: `drawn_two`.
#[inline]
pub fn drawn_two(first: Kind, second: Kind) -> Action {
    let (a, b) = if first > second { (second, first) } else { (first, second) };
    DRAWN_TWO_BASE + a as i32 * KIND_COUNT as i32 + b as i32
}

/// Every outcome of the pending chance event with its number of ways, and the total. Python twin:
/// `chance_weights`.
pub fn chance_weights(pos: &State) -> (Vec<(Action, u64)>, u64) {
    match pos.phase {
        WEATHER => {
            let mut out = Vec::with_capacity(2);
            if pos.deck_suns > 0 {
                out.push((SUN_CODE, pos.deck_suns as u64));
            }
            if pos.deck_storms > 0 {
                out.push((WEATHER_STORM_CODE, pos.deck_storms as u64));
            }
            (out, (pos.deck_suns + pos.deck_storms) as u64)
        }
        TIEBREAK => {
            let tied = pos.ties[0].tied;
            (tied.as_slice().iter().map(|&p| (TIEBREAK_BASE + p as i32, 1)).collect(), tied.len() as u64)
        }
        _ => {
            let actor = pos.actor as usize;
            let counts = &pos.bag_counts[actor];
            let size = pos.bags[actor].len() as u64;
            if pos.phase == EXTRA_DRAW || size == 1 {
                let out = (0..KIND_COUNT)
                    .filter(|&k| counts[k] > 0)
                    .map(|k| (DRAWN_ONE_BASE + k as i32, counts[k] as u64))
                    .collect();
                return (out, size);
            }
            let mut out = Vec::new();
            for first in 0..KIND_COUNT {
                if counts[first] == 0 {
                    continue;
                }
                for second in first..KIND_COUNT {
                    if counts[second] == 0 {
                        continue;
                    }
                    let ways = if first == second {
                        counts[first] as u64 * (counts[first] as u64).saturating_sub(1)
                    } else {
                        2 * counts[first] as u64 * counts[second] as u64
                    };
                    if ways != 0 {
                        out.push((drawn_two(first as Kind, second as Kind), ways));
                    }
                }
            }
            (out, size * size.saturating_sub(1))
        }
    }
}

/// Every outcome of the pending chance event with its probability. Python twin: `chance_outcomes`.
pub fn chance_outcomes(pos: &State) -> Vec<(Action, f64)> {
    let (weights, total) = chance_weights(pos);
    weights.into_iter().map(|(a, w)| (a, w as f64 / total as f64)).collect()
}

/// One outcome of the pending chance event, drawn with its probability (SPEC-portable section 3).
/// Python twin: `sample_chance`.
pub fn sample_chance(pos: &State, rng: &mut Rng) -> Action {
    match pos.phase {
        WEATHER => {
            let suns = pos.deck_suns;
            if rng.random() * ((suns + pos.deck_storms) as f64) < suns as f64 {
                SUN_CODE
            } else {
                WEATHER_STORM_CODE
            }
        }
        TIEBREAK => {
            let tied = pos.ties[0].tied;
            TIEBREAK_BASE + tied.get(rng.below(tied.len())) as i32
        }
        _ => {
            let actor = pos.actor as usize;
            let counts = &pos.bag_counts[actor];
            let size = pos.bags[actor].len();
            let first = rng.below(size);
            if pos.phase == EXTRA_DRAW || size == 1 {
                return DRAWN_ONE_BASE + nth_sorted(&running_counts(counts), first) as i32;
            }
            let mut second = rng.below(size - 1);
            if second >= first {
                second += 1;
            }
            let running = running_counts(counts);
            drawn_two(nth_sorted(&running, first), nth_sorted(&running, second))
        }
    }
}

// --- apply -------------------------------------------------------------------------------------

/// Play a decision or a chance outcome in place (the history folds it in). Python twin: `apply`.
pub fn apply(pos: &mut State, action: Action) -> Result<(), IllegalAction> {
    let phase = pos.phase;
    if is_chance_phase(phase) {
        return apply_chance(pos, phase, action);
    }
    if !pos.legal.contains(action) {
        return Err(illegal_decision(pos, action));
    }
    if !is_simultaneous_phase(phase) {
        fold(pos, &[pos.actor as i64, action as i64]);
    }
    decide(pos, phase, action);
    debug_assert!(pos.counts_agree(), "a bag changed without its counts");
    Ok(())
}

/// Carry out a legal decision (checked and folded in by the caller). Python twin: `_decide`.
pub fn decide(pos: &mut State, phase: i32, action: Action) {
    match phase {
        DECIDE | CHOOSE | BUY => {
            pos.pending[pos.actor as usize] = action;
            next_in_step(pos, pos.actor as usize + 1);
        }
        RETURN_DISCARD => {
            let player = pos.actor as usize;
            if action != DISCARD_NONE_CODE {
                let kind = (action - DISCARD_PATH_BASE) as Kind;
                assert!(pos.paths[player].remove_first(kind), "a discarded tile is not in the path");
                pos.box_.push(kind);
            }
            go_home(pos, player);
            next_returner(pos, player + 1);
        }
        OPTION => {
            let option = action - OPTION_BASE;
            let kind = pos.tile as Kind;
            let effect = *effects(kind).iter().find(|e| e.option == option).expect("an option of the tile");
            apply_effect(pos, kind, &effect);
        }
        DISCARD => discard(pos, action),
        EXTRA => extra(pos, action),
        _ => panic!("{action}: the game is over"),
    }
}

/// Carry out a chance outcome of this phase (Python twin: `_CHANCE_EVENTS[phase]`).
fn chance_event(pos: &mut State, phase: i32, action: Action) -> Result<(), IllegalAction> {
    match phase {
        DEAL => deal(pos, action),
        EXTRA_DRAW => extra_draw(pos, action),
        TIEBREAK => tiebreak(pos, action),
        _ => weather(pos, action),
    }
}

/// Fold a chance outcome in and carry it out; an illegal one leaves the position unchanged.
/// Python twin: `_apply_chance`.
fn apply_chance(pos: &mut State, phase: i32, action: Action) -> Result<(), IllegalAction> {
    if !outcome_fits(pos, phase, action) {
        return Err(IllegalAction::new(format_args!(
            "{} is not a possible {} outcome",
            Described(action),
            PHASE_NAMES[phase as usize]
        )));
    }
    let history = pos.history;
    fold(pos, &[CHANCE_PLAYER as i64, action as i64]);
    let result = chance_event(pos, phase, action);
    if result.is_err() {
        pos.history = history; // every outcome check comes before any other change
    }
    debug_assert!(pos.counts_agree(), "a bag changed without its counts");
    result
}

/// Whether `action` is an outcome of the right kind for this chance phase. Python twin:
/// `_outcome_fits`.
fn outcome_fits(pos: &State, phase: i32, action: Action) -> bool {
    match phase {
        DEAL => action >= DRAWN_TWO_BASE || (DRAWN_ONE_BASE..TIEBREAK_BASE).contains(&action),
        EXTRA_DRAW => (DRAWN_ONE_BASE..TIEBREAK_BASE).contains(&action),
        TIEBREAK => (TIEBREAK_BASE..TIEBREAK_BASE + pos.players as i32).contains(&action),
        _ => action == SUN_CODE || action == WEATHER_STORM_CODE,
    }
}

/// A policy for `playout`: the heuristic, or uniformly random decisions.
#[derive(Clone, Copy, Debug)]
pub enum Playout<'a> {
    /// `legal[int(rng.random() * len(legal))]` at every decision.
    Random,
    /// The heuristic rollout policy's choice.
    Heuristic(&'a crate::heuristic::Heuristic),
}

/// Play on in place to the end: the policy's decisions and chance outcomes from `sample_chance`,
/// without folding decisions and outcomes into the history (the rollout fast path). Python twin:
/// `playout` (with `policy=None` or a `HeuristicPolicy`).
pub fn playout(pos: &mut State, rng: &mut Rng, policy: Playout<'_>) {
    loop {
        let action = if pos.is_chance() {
            sample_chance(pos, rng)
        } else if pos.phase == OVER {
            return;
        } else {
            match policy {
                Playout::Random => pos.legal.as_slice()[rng.below(pos.legal.len())],
                Playout::Heuristic(h) => h.choose(pos, rng),
            }
        };
        play(pos, action);
    }
}

/// One event of `playout`: a sampled chance outcome or a policy's legal decision carried out
/// without the legality check and the history fold (no rule reads the history: only the
/// information-set key does, and a rollout asks none). Python twin: one step of `playout`.
#[inline]
pub fn play(pos: &mut State, action: Action) {
    let phase = pos.phase;
    if is_chance_phase(phase) {
        chance_event(pos, phase, action).expect("a sampled outcome is legal");
    } else {
        debug_assert!(pos.legal.contains(action));
        decide(pos, phase, action);
    }
    debug_assert!(pos.counts_agree(), "a bag changed without its counts");
}

/// An action's notation (Python twin: `_describe` / `str(Action)`).
pub fn describe(action: Action) -> String {
    crate::actions::name(action).unwrap_or_else(|| format!("action code {action}"))
}

/// The error of an illegal decision, built out of line (Python twin: `_illegal_message`).
#[cold]
#[inline(never)]
fn illegal_decision(pos: &State, action: Action) -> IllegalAction {
    let legal: Vec<String> = pos.legal.as_slice().iter().map(|&a| describe(a)).collect();
    IllegalAction(format!(
        "{} is not legal for player {} at {} (legal: {})",
        describe(action),
        pos.actor,
        PHASE_NAMES[pos.phase as usize],
        legal.join(", ")
    ))
}


#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The branch-free `nth_sorted` is `sorted(bag)[i]` for every index of any bag.
        #[test]
        fn nth_sorted_is_the_sorted_bags_item(bag in prop::collection::vec(0u8..KIND_COUNT as u8, 1..=crate::state::BAG_CAP)) {
            let running = running_counts(&crate::state::kind_counts(&bag));
            let mut sorted = bag.clone();
            sorted.sort_unstable();
            for (i, &kind) in sorted.iter().enumerate() {
                prop_assert_eq!(nth_sorted(&running, i), kind);
            }
        }
    }

    /// A deal whose first tile is in the bag and whose second is not fails and changes nothing:
    /// the first tile, already out of the bag, is put back where it was.
    #[test]
    fn a_deal_of_a_held_and_a_missing_tile_changes_nothing() {
        let mut pos = State::new_named(2, "meadows").expect("a shipped route");
        apply(&mut pos, DRAW_CODE).expect("player 0 draws");
        apply(&mut pos, DRAW_CODE).expect("player 1 draws");
        assert_eq!(pos.phase, DEAL);
        let bag = pos.bags[pos.actor as usize];
        let held = bag.get(bag.len() - 1);
        let missing = (0..KIND_COUNT as Kind).find(|&k| !bag.contains(k)).expect("a kind the bag lacks");
        for outcome in [drawn_two(held, missing), drawn_two(missing, held)] {
            let before = pos;
            assert!(apply(&mut pos, outcome).is_err());
            assert_eq!(pos, before);
            assert_eq!(pos.bags[pos.actor as usize].as_slice(), bag.as_slice());
        }
    }
}
