//! The canonical state encoding (SPEC-portable section 5): the boundary format between Python and
//! Rust. Python twin: positions/kernel/encoding.py (`Position.to_ints` / `Position.from_ints`).

use crate::catalogue::*;
use crate::state::{ActionList, Ruleset, State, Tie, Tiles, MAX_PLAYERS, TIES_CAP};

/// The encoding's version, its first int.
pub const ENCODING_VERSION: i64 = 1;

/// Bad encoded input, naming the offset (Python twin: `ImpossiblePositionError` from `from_ints`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadEncoding(pub String);

impl std::fmt::Display for BadEncoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadEncoding {}

/// A reader over the ints, with the offset for messages.
pub struct Cursor<'a> {
    ints: &'a [i64],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// A reader at the start of `ints`.
    pub fn new(ints: &'a [i64]) -> Cursor<'a> {
        Cursor { ints, at: 0 }
    }

    fn fail<T>(&self, what: &str) -> Result<T, BadEncoding> {
        Err(BadEncoding(format!("encoded position: {what} at offset {}", self.at)))
    }

    fn next(&mut self, what: &str) -> Result<i64, BadEncoding> {
        match self.ints.get(self.at) {
            Some(&v) => {
                self.at += 1;
                Ok(v)
            }
            None => self.fail(&format!("ends before {what}")),
        }
    }

    fn int(&mut self, what: &str, lo: i64, hi: i64) -> Result<i64, BadEncoding> {
        let v = self.next(what)?;
        if v < lo || v > hi {
            self.at -= 1;
            return self.fail(&format!("{what} {v} is not in [{lo}, {hi}]"));
        }
        Ok(v)
    }

    fn i32(&mut self, what: &str) -> Result<i32, BadEncoding> {
        Ok(self.int(what, -(1 << 30), 1 << 30)? as i32)
    }

    fn group<const CAP: usize>(&mut self, what: &str, hi: i64) -> Result<Tiles<CAP>, BadEncoding> {
        // The label is formatted only for the message of a bad length (a search reads ~20 groups).
        let len = match self.ints.get(self.at) {
            Some(&v) if (0..=CAP as i64).contains(&v) => {
                self.at += 1;
                v as usize
            }
            _ => self.int(&format!("the length of {what}"), 0, CAP as i64)? as usize,
        };
        let mut t = Tiles::EMPTY;
        for _ in 0..len {
            t.push(self.int(what, 0, hi)? as u8);
        }
        Ok(t)
    }

    fn kinds<const CAP: usize>(&mut self, what: &str) -> Result<Tiles<CAP>, BadEncoding> {
        self.group(what, KIND_COUNT as i64 - 1)
    }

    fn at_end(&self) -> bool {
        self.at == self.ints.len()
    }
}

/// Write a group as (length, *items).
fn write_group(tiles: &[u8], out: &mut Vec<i64>) {
    out.push(tiles.len() as i64);
    out.extend(tiles.iter().map(|&k| k as i64));
}

/// The ruleset part of the encoding (also the start of a new game's history, SPEC section 1).
/// Python twin: the ruleset part of `to_ints`.
pub fn write_ruleset(r: &Ruleset, out: &mut Vec<i64>) {
    write_group(r.start_bag.as_slice(), out);
    out.push(r.threshold_count as i64);
    for &(count, threshold) in &r.storm_thresholds[..r.threshold_count as usize] {
        out.push(count as i64);
        out.push(threshold as i64);
    }
    match &r.penalised_kinds {
        None => out.push(-1),
        Some(kinds) => write_group(kinds.as_slice(), out),
    }
    out.extend([r.walks, r.start_steps, r.deck_suns, r.deck_storms, r.reserve_storms, r.stack_size].map(|v| v as i64));
}

/// Read the ruleset part of the encoding.
pub fn read_ruleset(c: &mut Cursor<'_>) -> Result<Ruleset, BadEncoding> {
    let start_bag = c.kinds("a start bag tile")?;
    let count = c.int("the number of storm thresholds", 0, 4)? as usize;
    let mut storm_thresholds = [(0, 0); 4];
    for pair in storm_thresholds.iter_mut().take(count) {
        *pair = (c.int("a player count", 1, MAX_PLAYERS as i64)? as i32, c.i32("a storm threshold")?);
    }
    let penalised_len = c.int("the number of penalised kinds", -1, 32)?;
    let (penalised_kinds, penalised_mask) = if penalised_len == -1 {
        (None, u32::MAX)
    } else {
        let mut kinds = Tiles::<32>::EMPTY;
        let mut mask = 0u32;
        for _ in 0..penalised_len {
            let k = c.int("a penalised kind", 0, KIND_COUNT as i64 - 1)? as u8;
            kinds.push(k);
            mask |= 1 << k;
        }
        (Some(kinds), mask)
    };
    Ok(Ruleset {
        start_bag,
        storm_thresholds,
        threshold_count: count as u8,
        penalised_kinds,
        penalised_mask,
        walks: c.int("walks", 1, 1000)? as i32,
        start_steps: c.i32("start steps")?,
        deck_suns: c.int("deck suns", 0, 1000)? as i32,
        deck_storms: c.int("deck storms", 0, 1000)? as i32,
        reserve_storms: c.int("reserve storms", 0, 1000)? as i32,
        stack_size: c.int("stack size", 0, 1000)? as i32,
    })
}

impl State {
    /// The canonical encoding (SPEC-portable section 5). Python twin: `Position.to_ints`.
    pub fn to_ints(&self) -> Vec<i64> {
        let mut out = Vec::with_capacity(256);
        out.push(ENCODING_VERSION);
        write_ruleset(&self.ruleset, &mut out);
        write_group(&self.route, &mut out);
        out.extend([self.players as i64, self.threshold as i64, self.walk as i64, self.turn as i64,
                    self.phase as i64, self.actor as i64]);
        for p in 0..self.players {
            write_group(self.bags[p].as_slice(), &mut out);
            write_group(self.hands[p].as_slice(), &mut out);
            write_group(self.paths[p].as_slice(), &mut out);
            write_group(self.set_aside[p].as_slice(), &mut out);
            out.extend([self.steps[p] as i64, self.vp[p] as i64, self.walking[p] as i64,
                        self.owned_storms[p] as i64, self.pending[p] as i64]);
        }
        out.extend([self.track_suns, self.track_storms, self.deck_suns, self.deck_storms, self.reserve].map(|v| v as i64));
        out.extend(self.market.iter().map(|&v| v as i64));
        write_group(self.box_.as_slice(), &mut out);
        out.push(self.history as i64);
        out.extend([self.tile, self.extra_plays, self.discards_left, self.discards_required].map(|v| v as i64));
        out.push(self.tie_count as i64);
        for tie in self.ties() {
            out.push(tie.kind as i64);
            write_group(tie.tied.as_slice(), &mut out);
            out.push(tie.slots as i64);
        }
        out.push(self.legal.len() as i64);
        out.extend(self.legal.as_slice().iter().map(|&a| a as i64));
        write_group(self.hidden_bags.as_slice(), &mut out);
        out
    }

    /// The state an encoding describes; a one-line error naming the offset on bad input (the input
    /// is bounds-checked here, its rules-consistency is validated in Python). Python twin:
    /// `Position.from_ints`.
    pub fn from_ints(ints: &[i64]) -> Result<State, BadEncoding> {
        let c = &mut Cursor::new(ints);
        if c.next("the version")? != ENCODING_VERSION {
            c.at -= 1;
            return c.fail(&format!("the version is not {ENCODING_VERSION}"));
        }
        let ruleset = read_ruleset(c)?;
        if c.int("the route length", 8, 8)? != 8 {
            unreachable!()
        }
        let mut route = [0u8; 8];
        for k in route.iter_mut() {
            *k = c.int("a route kind", 0, KIND_COUNT as i64 - 1)? as u8;
        }
        let players = c.int("players", 1, MAX_PLAYERS as i64)? as usize;
        if !ruleset.fits(players) {
            c.at -= 1;
            return c.fail("a game too large for the native core's capacities");
        }
        let threshold = c.i32("threshold")?;
        let walk = c.i32("walk")?;
        let turn = c.i32("turn")?;
        let phase = c.int("phase", 0, OVER as i64)? as i32;
        let actor = c.int("actor", TERMINAL_PLAYER as i64, players as i64 - 1)? as i32;
        let mut pos = State { walk, turn, phase, actor, ..State::blank(ruleset, route, players, threshold) };
        for p in 0..players {
            pos.set_bag(p, c.kinds("a bag tile")?);
            pos.hands[p] = c.kinds("a hand tile")?;
            pos.paths[p] = c.kinds("a path tile")?;
            pos.set_aside[p] = c.kinds("a set-aside tile")?;
            pos.steps[p] = c.i32("steps")?;
            pos.vp[p] = c.i32("vp")?;
            pos.walking[p] = c.int("walking", 0, 1)? == 1;
            pos.owned_storms[p] = c.int("owned storms", 0, 1000)? as i32;
            pos.pending[p] = c.int("a pending choice", -1, ACTION_SPACE as i64 - 1)? as i32;
        }
        pos.track_suns = c.int("track suns", 0, 1000)? as i32;
        pos.track_storms = c.int("track storms", 0, 1000)? as i32;
        pos.deck_suns = c.int("deck suns", 0, 1000)? as i32;
        pos.deck_storms = c.int("deck storms", 0, 1000)? as i32;
        pos.reserve = c.int("reserve", 0, 1000)? as i32;
        for k in 0..KIND_COUNT {
            pos.market[k] = c.int("a market count", 0, u8::MAX as i64)? as u8;
        }
        pos.box_ = c.kinds("a box tile")?;
        pos.history = c.next("the history")? as u64;
        pos.tile = c.int("the tile", -1, KIND_COUNT as i64 - 1)? as i32;
        pos.extra_plays = c.int("extra plays", 0, 1000)? as i32;
        pos.discards_left = c.int("discards left", 0, 1000)? as i32;
        pos.discards_required = c.int("discards required", 0, 1000)? as i32;
        let ties = c.int("the number of ties", 0, TIES_CAP as i64)? as usize;
        for i in 0..ties {
            let kind = c.int("a tie's kind", 0, KIND_COUNT as i64 - 1)? as u8;
            let tied = c.group("a tied player", players as i64 - 1)?;
            let slots = c.int("a tie's slots", 0, MAX_PLAYERS as i64)? as i8;
            pos.ties[i] = Tie { kind, tied, slots };
        }
        pos.tie_count = ties as u8;
        if phase == TIEBREAK && (ties == 0 || pos.ties[0].tied.is_empty()) {
            return c.fail("a tie-break with no tie");
        }
        let legal = c.int("the number of legal actions", 0, crate::state::LEGAL_CAP as i64)? as usize;
        let mut actions = ActionList::EMPTY;
        for _ in 0..legal {
            actions.push(c.int("a legal action", 0, ACTION_SPACE as i64 - 1)? as i32);
        }
        pos.legal = actions;
        pos.hidden_bags = c.group("a hidden bag's player", players as i64 - 1)?;
        if !c.at_end() {
            return c.fail("trailing ints");
        }
        if !rules_safe(&pos) {
            return Err(BadEncoding("encoded position: the phase and its facts disagree".into()));
        }
        Ok(pos)
    }
}

/// The facts the rules index without checking, checked once so that no encoding makes them panic.
fn rules_safe(pos: &State) -> bool {
    let actor_seat = pos.actor >= 0 && (pos.actor as usize) < pos.players;
    match pos.phase {
        DEAL | EXTRA_DRAW => actor_seat && !pos.bags[pos.actor as usize].is_empty(),
        OPTION | DISCARD | EXTRA | RETURN_DISCARD | DECIDE | CHOOSE | BUY => actor_seat,
        _ => true,
    }
}
