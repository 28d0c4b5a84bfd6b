//! The native core of Refuge Advisor: the rules kernel, the random stream, the history hash, the
//! canonical encoding and the heuristic rollout policy, proven equal to the Python kernel
//! (tests/native/). Each module names its Python twin; see native/README.md for the map.
//!
//! The public API is the `State` (positions/kernel/position.py `Position`):
//! `State::new_named`, `copy`, `legal_actions`, `apply`, `is_chance`, `chance_outcomes`,
//! `sample_chance`, `current_player`, `is_terminal`, `returns`, `information_set_key`,
//! `determinize`, `to_ints` / `from_ints`, `playout`; and `heuristic::heuristic_choice`.

pub mod actions;
pub mod catalogue;
pub mod encoding;
pub mod endgames;
pub mod equilibrium;
pub mod exact_values;
pub mod evaluator;
pub mod foreseen;
pub mod game;
pub mod hidden_layer;
pub mod hash;
pub mod heuristic;
pub mod ismcts;
pub mod layout_rows;
pub mod matrix_game;
pub mod position;
pub mod rng;
pub mod root_result;
pub mod rules;
pub mod solver;
pub mod solver_key;
pub mod solver_memo;
pub mod state;
pub mod tiles;
pub mod tree_hash;

pub use heuristic::{heuristic_choice, Heuristic};
pub use rng::Rng;
pub use rules::{IllegalAction, Playout};
pub use state::{Action, State};
