//! The learned cut-off evaluator's inference (⇄ `advisor/players/learned.py`): every layout a model
//! file may have — "summary" (the thirteen features; the shipped `advisor/players/data/evaluator.json`),
//! "mix" (with a share per tile kind), "position" (with the tiles per kind in bag and path and the
//! context) and "network" (a position model with a tanh hidden layer, crate::hidden_layer).
//!
//! Bit for bit: every sum is a left-to-right sequence of double additions in the order Python's
//! `sum()` (3.11) adds them, every product in Python's operand order, `exp` and `tanh` the platform
//! libm's. A player's win logit is the dot product of the win weights with the layout's row (left
//! to right from `0.0`), plus the hidden layer's term; the projected score the dot product of the
//! score weights with the row plus `score[-2] * walks_left + score[-1]` (docs/evaluator.md,
//! "Native inference"). The weights are never copied by hand: Python reads the model file
//! (`learned.load_model`) and hands them over ([`Model::with_layout`]); the heuristics' tables are
//! the generated catalogue's.

use crate::catalogue::{KIND_COUNT, PAW, STEP_VALUE, WORTH};
use crate::hidden_layer::{HiddenLayer, HiddenWeights};
use crate::ismcts::{PerPlayer, Values};
use crate::layout_rows::{write_context_rows, write_mix_row, write_tile_counts, CONTEXT, MIX_WIDTH, POSITION_WIDTH};
use crate::rules::storms_to_hit;
use crate::state::{State, MAX_PLAYERS};

/// The win model's features (⇄ `learned.FEATURES`).
pub const FEATURES: usize = 13;
/// The score model's features: the win model's, walks left, a constant (⇄ `learned.SCORE_FEATURES`).
pub const SCORE_FEATURES: usize = FEATURES + 2;

/// Which features a model reads (⇄ `learned.LAYOUTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The thirteen (a version-1 file).
    Summary,
    /// The thirteen and a share per tile kind (version 2).
    Mix,
    /// The thirteen, the tiles per kind in bag and path, the context (version 3).
    Position,
    /// A position model with a hidden layer (version 4).
    Network,
}

impl Layout {
    /// The layout of this name (⇄ the keys of `learned.LAYOUTS`).
    pub fn named(name: &str) -> Option<Layout> {
        match name {
            "summary" => Some(Layout::Summary),
            "mix" => Some(Layout::Mix),
            "position" => Some(Layout::Position),
            "network" => Some(Layout::Network),
            _ => None,
        }
    }

    /// How many features a row of this layout has (⇄ `len(learned.LAYOUTS[layout][1])`).
    pub fn width(self) -> usize {
        match self {
            Layout::Summary => FEATURES,
            Layout::Mix => MIX_WIDTH,
            Layout::Position | Layout::Network => POSITION_WIDTH,
        }
    }
}

/// A fitted model's weights (⇄ `learned.Model`).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    layout: Layout,
    /// One per feature of the layout.
    win: Vec<f64>,
    /// One per feature, then walks left and a constant.
    score: Vec<f64>,
    /// A network model's hidden layer.
    hidden: Option<HiddenLayer>,
}

impl Model {
    /// A summary model from the weights of a model file (⇄ `learned.Model.from_json` of a version-1
    /// file, which has already checked them); an error names what is the wrong length.
    pub fn new(win_weights: &[f64], score_weights: &[f64]) -> Result<Model, String> {
        Model::with_layout("summary", win_weights, score_weights, None)
    }

    /// A model of `layout` (a name of `learned.LAYOUTS`) from a model file's weights, with the
    /// hidden layer's `(weights_in, bias, weights_out)` for a network model and only then
    /// (⇄ `learned.Model.from_json`); an error names what does not fit.
    pub fn with_layout(
        layout: &str,
        win_weights: &[f64],
        score_weights: &[f64],
        hidden: Option<HiddenWeights<'_>>,
    ) -> Result<Model, String> {
        let layout = Layout::named(layout).ok_or_else(|| format!("evaluator: unknown layout {layout:?}"))?;
        let width = layout.width();
        if win_weights.len() != width {
            return Err(format!("evaluator: {} win weights, expected {width}", win_weights.len()));
        }
        if score_weights.len() != width + 2 {
            return Err(format!("evaluator: {} score weights, expected {}", score_weights.len(), width + 2));
        }
        let hidden = match (layout, hidden) {
            (Layout::Network, Some((weights_in, bias, out))) => Some(HiddenLayer::new(weights_in, bias, out, width)?),
            (Layout::Network, None) => return Err("evaluator: a network model needs its hidden layer".into()),
            (_, Some(_)) => return Err("evaluator: only a network model has a hidden layer".into()),
            (_, None) => None,
        };
        Ok(Model { layout, win: win_weights.to_vec(), score: score_weights.to_vec(), hidden })
    }

    /// The model's layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }
}

/// ⇄ `heuristics.projected_score`: `vp + 0.6 * paws + walks_left * 4.0 * bag_sum / max(1, bag_size)`.
pub fn projected_score(vp: i32, paws: i32, walks_left: i32, bag_sum: f64, bag_size: usize) -> f64 {
    vp as f64 + 0.6 * paws as f64 + walks_left as f64 * 4.0 * bag_sum / bag_size.max(1) as f64
}

/// ⇄ `learned._worth_sum` (and the inline `sum(worth[k] for k in tiles)`): left to right.
fn worth_sum(worth: &[f64], tiles: &[u8]) -> f64 {
    tiles.iter().fold(0.0, |total, &k| total + worth[k as usize])
}

/// ⇄ `learned.walks_left`.
pub fn walks_left(state: &State) -> i32 {
    (state.ruleset.walks - 1 - state.walk).max(0)
}

/// The row of `WORTH` and `STEP_VALUE` for the walk of `state` (⇄ `heuristics.walk_index`).
fn walk_index(state: &State) -> usize {
    (state.walk.max(0) as usize).min(STEP_VALUE.len() - 1)
}

/// Every player's win-model features (⇄ `learned.feature_rows`).
pub fn feature_rows(state: &State) -> Vec<[f64; FEATURES]> {
    let mut rows = [[0.0; FEATURES]; MAX_PLAYERS];
    write_feature_rows(state, &mut rows);
    rows[..state.players].to_vec()
}

/// Every player's features of a model of `layout` (⇄ `learned.layout_rows`).
pub fn layout_rows(state: &State, layout: Layout) -> Vec<Vec<f64>> {
    let mut rows = [[0.0; POSITION_WIDTH]; MAX_PLAYERS];
    write_layout_rows(state, layout, &mut rows);
    rows[..state.players].iter().map(|row| row[..layout.width()].to_vec()).collect()
}

/// `layout_rows` written into the first `players` rows of `rows` (the first `layout.width()`
/// numbers of each, `W` at least that), without allocating (⇄ `learned.layout_rows`).
fn write_layout_rows<const W: usize>(state: &State, layout: Layout, rows: &mut [[f64; W]; MAX_PLAYERS]) {
    write_feature_rows(state, rows);
    match layout {
        Layout::Summary => {}
        Layout::Mix => {
            for (p, row) in rows[..state.players].iter_mut().enumerate() {
                let mix: &mut [f64; KIND_COUNT] = (&mut row[FEATURES..MIX_WIDTH]).try_into().expect("a share per kind");
                write_mix_row(state, p, mix);
            }
        }
        Layout::Position | Layout::Network => {
            let mut contexts = [[0.0; CONTEXT]; MAX_PLAYERS];
            write_context_rows(state, &mut contexts);
            let counted = FEATURES + 2 * KIND_COUNT;
            for (p, row) in rows[..state.players].iter_mut().enumerate() {
                let counts: &mut [f64; 2 * KIND_COUNT] =
                    (&mut row[FEATURES..counted]).try_into().expect("two counts per kind");
                write_tile_counts(state, p, counts);
                row[counted..].copy_from_slice(&contexts[p]);
            }
        }
    }
}

/// The thirteen features written into the first `players` rows of `rows` (`W` at least thirteen),
/// without allocating (⇄ `learned.feature_rows`).
fn write_feature_rows<const W: usize>(state: &State, rows: &mut [[f64; W]; MAX_PLAYERS]) {
    let players = state.players;
    let left = walks_left(state);
    let row = walk_index(state);
    let worth = &WORTH[row];
    let step_value = STEP_VALUE[row];
    let progress = f64::min(1.0, (state.walk + 1) as f64 / state.ruleset.walks as f64);
    let to_hit = storms_to_hit(state);
    let pressure = if to_hit > 1 { 1.0 / to_hit as f64 } else { 1.0 };
    for (p, out) in rows[..players].iter_mut().enumerate() {
        let best_other = (0..players).filter(|&q| q != p).map(|q| state.vp[q]).max().unwrap_or(0);
        let vp = state.vp[p];
        let lead = vp - best_other;
        let path = state.paths[p].as_slice();
        let bag = state.bags[p].as_slice();
        let hand = state.hands[p].as_slice();
        let aside = state.set_aside[p].as_slice();
        let walking = state.walking[p];
        let paws: i32 = if walking { path.iter().map(|&k| PAW[k as usize]).sum() } else { 0 };
        let bag_sum = worth_sum(worth, bag);
        let projection = projected_score(vp, paws, left, bag_sum, bag.len());
        let hand_sum = worth_sum(worth, hand);
        let owned = bag.len() + path.len() + hand.len() + aside.len() + state.owned_storms[p] as usize;
        let owned_worth =
            (bag_sum + worth_sum(worth, path) + hand_sum + worth_sum(worth, aside)) / owned.max(1) as f64;
        out[..FEATURES].copy_from_slice(&[
            vp as f64,
            lead as f64,
            lead as f64 * progress,
            paws as f64,
            paws as f64 * pressure,
            if walking { path.len() as f64 * pressure } else { 0.0 },
            left as f64 * owned_worth,
            owned_worth,
            state.steps[p] as f64 * step_value,
            projection,
            projection * progress,
            if walking { 1.0 } else { 0.0 },
            hand_sum,
        ]);
    }
}

/// Shares proportional to `exp(logit)`, summing to 1, of one logit per player (⇄ `learned.softmax`).
pub fn softmax(logits: &[f64]) -> PerPlayer {
    let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut weights = PerPlayer::zeros(logits.len());
    for (w, x) in weights.as_mut_slice().iter_mut().zip(logits) {
        *w = (x - top).exp();
    }
    let total = weights.iter().fold(0.0, |sum, w| sum + w);
    weights.iter().map(|w| w / total).collect()
}

/// `sum(map(mul, weights, row))`: the dot product over the row's length, left to right.
fn dot(weights: &[f64], row: &[f64]) -> f64 {
    weights.iter().zip(row).fold(0.0, |sum, (w, x)| sum + w * x)
}

/// (win share per player, projected final score per player) at a cut-off
/// (⇄ `learned.LearnedEvaluator.evaluate`).
pub fn evaluate(model: &Model, state: &State) -> Values {
    // rows as wide as the layout reads (zeroing a position row per player for the thirteen features
    // of the shipped summary model was a tenth of a cut-off)
    match model.layout {
        Layout::Summary => judge(model, state, &mut [[0.0; FEATURES]; MAX_PLAYERS]),
        Layout::Mix => judge(model, state, &mut [[0.0; MIX_WIDTH]; MAX_PLAYERS]),
        Layout::Position | Layout::Network => judge(model, state, &mut [[0.0; POSITION_WIDTH]; MAX_PLAYERS]),
    }
}

/// [`evaluate`] with `rows` (at least the layout's width) to write the players' rows in.
fn judge<const W: usize>(model: &Model, state: &State, rows: &mut [[f64; W]; MAX_PLAYERS]) -> Values {
    write_layout_rows(state, model.layout, rows);
    let width = model.layout.width();
    let rows = &rows[..state.players];
    let mut logits = [0.0; MAX_PLAYERS];
    for (logit, row) in logits.iter_mut().zip(rows) {
        let row = &row[..width];
        *logit = dot(&model.win, row);
        if let Some(hidden) = &model.hidden {
            *logit += hidden.logit(row);
        }
    }
    let tail = model.score[width] * walks_left(state) as f64 + model.score[width + 1];
    let scores = rows.iter().map(|row| dot(&model.score, &row[..width]) + tail).collect();
    (softmax(&logits[..rows.len()]), scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position() -> State {
        let mut state = State::new_named(2, "meadows").expect("a shipped route");
        state.walk = 1;
        state.vp[..2].copy_from_slice(&[5, 9]);
        state.steps[..2].copy_from_slice(&[2, 0]);
        state.walking[..2].copy_from_slice(&[true, false]);
        state
    }

    #[test]
    fn features_follow_their_definitions() {
        let state = position();
        let rows = feature_rows(&state);
        let (walker, home) = (rows[0], rows[1]);
        assert_eq!((walker[0], walker[1]), (5.0, -4.0)); // vp, lead over the best other
        assert_eq!(walker[8], 2.0 * STEP_VALUE[1]); // Steps at walk 2's Step value
        assert_eq!(walker[11], 1.0);
        // not walking: no paws, no path at risk, walking 0
        assert_eq!(&home[3..6], &[0.0, 0.0, 0.0]);
        assert_eq!(home[11], 0.0);
        let bag = state.bags[1].as_slice();
        let mean = bag.iter().fold(0.0, |t, &k| t + WORTH[1][k as usize]) / bag.len() as f64;
        assert_eq!(home[7], mean); // owned worth: the bag's mean worth (nothing else owned)
        assert_eq!(home[9], projected_score(9, 0, walks_left(&state), mean * bag.len() as f64, bag.len()));
    }

    #[test]
    fn win_shares_sum_to_one_and_follow_the_logits() {
        let mut win = [0.0; FEATURES];
        win[0] = 0.5; // only VP counts: 5 against 9
        let model = Model::new(&win, &[1.0; SCORE_FEATURES]).unwrap();
        let (wins, scores) = evaluate(&model, &position());
        assert!((wins[0] + wins[1] - 1.0).abs() < 1e-15);
        assert!((wins[1] / wins[0] - 2.0f64.exp()).abs() < 1e-12);
        assert_eq!(scores.len(), 2);
    }

    #[test]
    fn weights_of_the_wrong_length_are_refused() {
        let error = Model::new(&[0.0; 12], &[0.0; SCORE_FEATURES]).unwrap_err();
        assert_eq!(error, "evaluator: 12 win weights, expected 13");
        let error = Model::with_layout("mix", &[0.0; MIX_WIDTH], &[0.0; MIX_WIDTH], None).unwrap_err();
        assert_eq!(error, format!("evaluator: {MIX_WIDTH} score weights, expected {}", MIX_WIDTH + 2));
    }

    #[test]
    fn every_layout_reads_the_thirteen_then_its_own_features() {
        let state = position();
        let summary = feature_rows(&state);
        for layout in [Layout::Summary, Layout::Mix, Layout::Position, Layout::Network] {
            let rows = layout_rows(&state, layout);
            assert_eq!(rows.len(), 2);
            for (row, thirteen) in rows.iter().zip(&summary) {
                assert_eq!(row.len(), layout.width());
                assert_eq!(&row[..FEATURES], thirteen);
            }
        }
        let position_rows = layout_rows(&state, Layout::Position);
        let bag = state.bags[1].as_slice();
        assert_eq!(position_rows[1][FEATURES + bag[0] as usize], bag.iter().filter(|&&k| k == bag[0]).count() as f64);
        assert_eq!(position_rows[1][POSITION_WIDTH - 1], 2.0); // the players, last of the context
    }

    #[test]
    fn a_network_whose_units_say_nothing_is_its_position_model() {
        let state = position();
        let win: Vec<f64> = (0..POSITION_WIDTH).map(|i| (i % 7) as f64 * 0.01).collect();
        let score = vec![0.2; POSITION_WIDTH + 2];
        let rows: Vec<Vec<f64>> = (0..POSITION_WIDTH).map(|i| vec![(i % 5) as f64 * 0.002 - 0.004; 3]).collect();
        let silent = Model::with_layout("network", &win, &score, Some((&rows, &[0.1; 3], &[0.0; 3]))).unwrap();
        let linear = Model::with_layout("position", &win, &score, None).unwrap();
        assert_eq!(evaluate(&silent, &state), evaluate(&linear, &state));
        let speaking = Model::with_layout("network", &win, &score, Some((&rows, &[0.1; 3], &[1.0; 3]))).unwrap();
        assert_ne!(evaluate(&speaking, &state).0, evaluate(&linear, &state).0);
        assert_eq!(evaluate(&speaking, &state).1, evaluate(&linear, &state).1); // scores are linear
    }
}
