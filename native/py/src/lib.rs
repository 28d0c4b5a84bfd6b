//! `refuge_native`: the Rust core (refuge-core) as a Python module. Positions cross the boundary as
//! their canonical encoding (SPEC-portable section 5); errors become the project's own exception
//! classes (positions.errors), and a panic becomes a one-line `RuntimeError`, never an abort.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use refuge_core::catalogue::{DEFAULT_ROLLOUT, THRIFTY_ROLLOUT};
use refuge_core::{heuristic, Playout};

mod endgames;
mod evaluator;
mod exact;
mod matrix_game;
mod search;
mod solver;

/// Run `f`, turning a panic into a one-line `RuntimeError` (Python twin: none; the crate's guard).
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            let line = message.lines().next().unwrap_or("").to_string();
            Err(PyRuntimeError::new_err(format!("refuge_native: internal error: {line}")))
        }
    }
}

/// The project's exception class `name` from positions.errors (ValueError if it cannot be imported).
fn project_error(py: Python<'_>, name: &str, message: String) -> PyErr {
    match py.import("positions.errors").and_then(|m| m.getattr(name)) {
        Ok(class) => match class.call1((message.clone(),)) {
            Ok(instance) => PyErr::from_value(instance),
            Err(_) => PyValueError::new_err(message),
        },
        Err(_) => PyValueError::new_err(message),
    }
}

/// The random stream (Python twin: `random.Random(seed)` restricted to `random()`).
#[pyclass(module = "refuge_native")]
#[derive(Clone)]
struct Rng {
    inner: refuge_core::Rng,
}

#[pymethods]
impl Rng {
    /// `random.Random(seed)` for an int seed below 2**64 (a negative one by its absolute value).
    #[new]
    fn new(seed: i128) -> PyResult<Rng> {
        let seed = u64::try_from(seed.unsigned_abs())
            .map_err(|_| PyValueError::new_err(format!("refuge_native.Rng: seed {seed} is not below 2**64")))?;
        Ok(Rng { inner: refuge_core::Rng::new(seed) })
    }

    /// The next float in [0, 1) (Python twin: `random.Random.random`).
    fn random(&mut self) -> f64 {
        self.inner.random()
    }

    /// `random.getstate()[1]`: the 624 words and the index, as one tuple of 625 ints.
    fn getstate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (words, index) = self.inner.getstate();
        let mut all: Vec<u64> = words.iter().map(|&w| w as u64).collect();
        all.push(index as u64);
        PyTuple::new(py, all)
    }

    /// Set the state from `random.getstate()[1]` (625 ints).
    fn setstate(&mut self, state: Vec<u64>) -> PyResult<()> {
        let bad = || PyValueError::new_err("refuge_native.Rng.setstate: expected 624 32-bit words and an index");
        let (index, words) = state.split_last().ok_or_else(bad)?;
        let words: Vec<u32> = words.iter().map(|&w| u32::try_from(w).map_err(|_| bad())).collect::<PyResult<_>>()?;
        self.inner = refuge_core::Rng::setstate(&words, *index as usize).ok_or_else(bad)?;
        Ok(())
    }

    /// A search seed drawn from the stream: `int(random() * 2**53)`.
    fn seed_from_stream(&mut self) -> u64 {
        self.inner.seed_from_stream()
    }
}

/// The heuristic rollout policy's parameters (Python twin: `HeuristicPolicy`).
#[pyclass(module = "refuge_native", frozen)]
#[derive(Clone)]
struct Heuristic {
    inner: refuge_core::Heuristic,
}

#[pymethods]
impl Heuristic {
    /// The parameters of a `HeuristicPolicy` (checked there; `buy_style` "per_step" or "max_value").
    #[new]
    #[pyo3(signature = (aggression=1.0, buy_style="per_step", draw_gain=1.45, tie_draw=1.0, behind=0.3,
                        save_ratio=0.0, save_margin=0.0))]
    fn new(aggression: f64, buy_style: &str, draw_gain: f64, tie_draw: f64, behind: f64, save_ratio: f64,
           save_margin: f64) -> PyResult<Heuristic> {
        if buy_style != "per_step" && buy_style != "max_value" {
            return Err(PyValueError::new_err(format!("heuristic: buy_style must be per_step or max_value, got {buy_style:?}")));
        }
        Ok(Heuristic { inner: refuge_core::Heuristic {
            aggression, max_value: buy_style == "max_value", draw_gain, tie_draw, behind, save_ratio, save_margin,
        } })
    }

    /// The default rollout policy (Python twin: `heuristics.DEFAULT_ROLLOUT`).
    #[staticmethod]
    fn default_rollout() -> Heuristic {
        Heuristic { inner: DEFAULT_ROLLOUT }
    }

    /// The thrifty rollout policy (Python twin: `heuristics.THRIFTY_ROLLOUT`).
    #[staticmethod]
    fn thrifty_rollout() -> Heuristic {
        Heuristic { inner: THRIFTY_ROLLOUT }
    }

    /// The policy's choice at `state`, a decision (Python twin: `HeuristicPolicy.choose`).
    fn choose(&self, state: &State, rng: &mut Rng) -> PyResult<i32> {
        state.check_decision()?;
        guard(|| Ok(self.inner.choose(&state.inner, &mut rng.inner)))
    }
}

/// A position (Python twin: `positions.kernel.position.Position`), with the game verbs.
#[pyclass(module = "refuge_native")]
#[derive(Clone)]
struct State {
    inner: refuge_core::State,
}

#[pymethods]
impl State {
    /// The start of a game on a shipped route with the default ruleset (Python twin: `Position.new_game`).
    #[staticmethod]
    fn new_game(py: Python<'_>, players: usize, route: &str) -> PyResult<State> {
        guard(|| {
            refuge_core::State::new_named(players, route)
                .map(|inner| State { inner })
                .map_err(|e| project_error(py, "ImpossiblePositionError", e.0))
        })
    }

    /// The position an encoding describes (Python twin: `Position.from_ints`); the encoding should
    /// come from a validated Position: bounds are checked here, the rules' consistency in Python.
    #[staticmethod]
    fn from_ints(py: Python<'_>, ints: Vec<i64>) -> PyResult<State> {
        guard(|| {
            refuge_core::State::from_ints(&ints)
                .map(|inner| State { inner })
                .map_err(|e| project_error(py, "ImpossiblePositionError", e.0))
        })
    }

    /// The canonical encoding (Python twin: `Position.to_ints`).
    fn to_ints(&self) -> Vec<i64> {
        self.inner.to_ints()
    }

    /// An independent copy (Python twin: `Position.copy`).
    fn copy(&self) -> State {
        self.clone()
    }

    fn __copy__(&self) -> State {
        self.clone()
    }

    /// Python twin: `Position.current_player`.
    fn current_player(&self) -> i32 {
        self.inner.current_player()
    }

    /// Python twin: `Position.is_terminal`.
    fn is_terminal(&self) -> bool {
        self.inner.is_terminal()
    }

    /// Python twin: `Position.is_chance`.
    fn is_chance(&self) -> bool {
        self.inner.is_chance()
    }

    /// Python twin: `Position.is_simultaneous`.
    fn is_simultaneous(&self) -> bool {
        self.inner.is_simultaneous()
    }

    /// The phase id (positions/kernel/phases.py).
    #[getter]
    fn phase(&self) -> i32 {
        self.inner.phase
    }

    /// The history hash, in [0, 2**64).
    #[getter]
    fn history(&self) -> u64 {
        self.inner.history
    }

    /// Python twin: `Position.legal_actions`.
    fn legal_actions(&self) -> PyResult<Vec<i32>> {
        guard(|| Ok(self.inner.legal_actions()))
    }

    /// Python twin: `Position.chance_outcomes`.
    fn chance_outcomes(&self) -> PyResult<Vec<(i32, f64)>> {
        guard(|| Ok(self.inner.chance_outcomes()))
    }

    /// Python twin: `Position.chance_weights`.
    fn chance_weights(&self) -> PyResult<Vec<(i32, u64)>> {
        guard(|| Ok(self.inner.chance_weights()))
    }

    /// Python twin: `Position.sample_chance`.
    fn sample_chance(&self, rng: &mut Rng) -> PyResult<i32> {
        if !self.inner.is_chance() {
            return Err(PyValueError::new_err("sample_chance: the position is not at a chance event"));
        }
        guard(|| Ok(self.inner.sample_chance(&mut rng.inner)))
    }

    /// Play a decision or a chance outcome in place; `IllegalActionError` if it is not legal.
    /// Python twin: `Position.apply`.
    fn apply(&mut self, py: Python<'_>, action: i64) -> PyResult<()> {
        let code = i32::try_from(action).unwrap_or(i32::MIN);
        guard(|| {
            self.inner
                .apply(code)
                .map_err(|e| project_error(py, "IllegalActionError", e.0))
        })
    }

    /// Python twin: `Position.returns`.
    fn returns(&self) -> Vec<f64> {
        self.inner.returns()
    }

    /// Each player's victory points (Python twin: `Position.scores`).
    fn scores(&self) -> Vec<i32> {
        self.inner.vp[..self.inner.players].to_vec()
    }

    /// The exact solver's memo key as its 16-bit numbers (Python twin: `Position.solver_key`, whose
    /// bytes are `array("h", numbers)`).
    fn solver_key(&self) -> PyResult<Vec<i16>> {
        guard(|| Ok(self.inner.solver_key().numbers().to_vec()))
    }

    /// (player, history, own pending choice) (Python twin: `Position.information_set_key`).
    fn information_set_key(&self, player: usize) -> PyResult<(usize, u64, i32)> {
        self.check_player(player)?;
        Ok(self.inner.information_set_key(player))
    }

    /// Whether `player`'s pending choice is public now (Python twin: `rules.choice_revealed`).
    fn choice_revealed(&self, player: usize) -> PyResult<bool> {
        self.check_player(player)?;
        Ok(refuge_core::rules::choice_revealed(&self.inner, player))
    }

    /// Python twin: `Position.determinize` without a belief.
    fn determinize(&self, player: usize, rng: &mut Rng) -> PyResult<State> {
        self.check_player(player)?;
        guard(|| Ok(State { inner: self.inner.determinize(player, &mut rng.inner) }))
    }

    /// Python twin: `Position.step_start`.
    fn step_start(&self, player: usize) -> PyResult<Option<State>> {
        self.check_player(player)?;
        guard(|| Ok(self.inner.step_start(player).map(|inner| State { inner })))
    }

    /// Play on in place to the end with `policy` (a `Heuristic`), or uniformly random decisions
    /// without one (Python twin: `Position.playout`).
    #[pyo3(signature = (rng, policy=None))]
    fn playout(&mut self, py: Python<'_>, rng: &mut Rng, policy: Option<&Heuristic>) -> PyResult<()> {
        let mode = match policy {
            Some(h) => Playout::Heuristic(&h.inner),
            None => Playout::Random,
        };
        let (state, stream) = (&mut self.inner, &mut rng.inner);
        py.allow_threads(|| guard(|| {
            state.playout(stream, mode);
            Ok(())
        }))
    }

    /// The default rollout policy's choice at a decision (Python twin: `DEFAULT_ROLLOUT.choose`).
    fn heuristic_choice(&self, rng: &mut Rng) -> PyResult<i32> {
        self.check_decision()?;
        guard(|| Ok(heuristic::heuristic_choice(&self.inner, &mut rng.inner)))
    }

    fn __eq__(&self, other: &State) -> bool {
        self.inner == other.inner
    }

    fn __repr__(&self) -> String {
        format!("<refuge_native.State {}p walk {} turn {} phase {} actor {}>", self.inner.players,
                self.inner.walk + 1, self.inner.turn + 1, self.inner.phase, self.inner.actor)
    }
}

impl State {
    fn check_decision(&self) -> PyResult<()> {
        if self.inner.decisions().is_empty() || self.inner.is_chance() {
            return Err(PyValueError::new_err("heuristic: the position is not at a decision"));
        }
        Ok(())
    }

    fn check_player(&self, player: usize) -> PyResult<()> {
        if player >= self.inner.players {
            return Err(PyValueError::new_err(format!("player {player}: the game has {} players", self.inner.players)));
        }
        Ok(())
    }
}

/// Panic on purpose: lets the tests see that a panic becomes a one-line Python error.
#[pyfunction]
fn _panic_for_test() -> PyResult<()> {
    guard(|| panic!("a deliberate panic\nwith a second line"))
}

/// The module.
#[pymodule]
fn refuge_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A panic is reported as a Python exception by `guard`; the default hook's stderr report is
    // not shown to a user.
    std::panic::set_hook(Box::new(|_| {}));
    m.add_class::<Rng>()?;
    m.add_class::<State>()?;
    m.add_class::<Heuristic>()?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    evaluator::register(m)?;
    search::register(m)?;
    endgames::register(m)?;
    matrix_game::register(m)?;
    solver::register(m)?;
    m.add("ENCODING_VERSION", refuge_core::encoding::ENCODING_VERSION)?;
    Ok(())
}
