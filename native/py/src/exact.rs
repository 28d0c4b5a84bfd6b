//! The exact solvers' answers as they cross to Python (⇄ `advisor/players/native_solver.py`, which
//! builds `search.solver`'s and `search.equilibrium`'s dataclasses from them): a fraction as
//! (numerator, denominator) Python ints, the denominator positive.

use refuge_core::solver::{BigInt, BigRational, ExactValue, SolvedOption, StepResult};

/// A fraction as (numerator, denominator).
pub type Fraction = (BigInt, BigInt);
/// Every player's win share, then every player's expected score (⇄ `ExactValue`).
pub type Value = (Vec<Fraction>, Vec<Fraction>);
/// An option: its action and every player's value after it (⇄ `SolvedOption`).
pub type Option_ = (i32, Value);
/// A seat at a step: its player, its options, its equilibrium mix (⇄ `SeatStrategy`).
pub type Seat = (usize, Vec<Option_>, Vec<Fraction>);
/// A step: both seats, the step's value, the positions solved (⇄ `StepResult`).
pub type Step = (Vec<Seat>, Value, usize);

/// ⇄ `native_solver.fraction`.
pub fn fraction(value: &BigRational) -> Fraction {
    (value.numer().clone(), value.denom().clone())
}

/// ⇄ `native_solver.exact_value`.
pub fn value(value: &ExactValue) -> Value {
    (value.wins.iter().map(fraction).collect(), value.scores.iter().map(fraction).collect())
}

/// ⇄ `native_solver.solved_options`.
pub fn options(options: &[SolvedOption]) -> Vec<Option_> {
    options.iter().map(|o| (o.action, value(&o.value))).collect()
}

/// ⇄ `native_solver.step_result`.
pub fn step(result: &StepResult) -> Step {
    let seats = result
        .seats
        .iter()
        .map(|seat| (seat.player, options(&seat.options), seat.mix.iter().map(fraction).collect()))
        .collect();
    (seats, value(&result.value), result.nodes)
}
