//! A position's exact value inside the solver: a positive common denominator, then every player's
//! win share and every player's expected score as numerators over it (⇄ search/solver.py `Values`,
//! `_common_denominator`, `_reduced`, the sums of `ExactSolver._expectation` and the comparison of
//! `ExactSolver._best`).
//!
//! Python's ints are unbounded; here the numbers are `i128` while every operation fits (checked
//! arithmetic) and `BigInt` from the first one that would not, so every value is exact either way.
//! Only the fractions a value stands for matter (the solver compares and averages them), so the two
//! representations of one value are interchangeable.

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::state::MAX_PLAYERS;

/// Most numerators of a value: a win share and a score per player.
const WIDTH: usize = 2 * MAX_PLAYERS;

/// A value whose numbers all fit `i128`, stored inline.
#[derive(Clone, Debug)]
pub(crate) struct Small {
    den: i128,
    nums: [i128; WIDTH],
    len: u8,
}

/// A value with numbers beyond `i128`.
#[derive(Clone, Debug)]
pub(crate) struct Big {
    den: BigInt,
    nums: Vec<BigInt>,
}

/// Integers over a common positive denominator (⇄ `search.solver.Values`).
#[derive(Clone, Debug)]
pub(crate) enum Values {
    Small(Small),
    Big(Big),
}

impl Small {
    fn nums(&self) -> &[i128] {
        &self.nums[..self.len as usize]
    }
}

impl Big {
    /// The same numbers as `i128` if they all fit.
    fn shrink(self) -> Values {
        let den = self.den.to_i128();
        let nums: Option<Vec<i128>> = self.nums.iter().map(ToPrimitive::to_i128).collect();
        match (den, nums) {
            (Some(den), Some(nums)) => Values::Small(small(den, &nums)),
            _ => Values::Big(self),
        }
    }
}

fn small(den: i128, nums: &[i128]) -> Small {
    let mut inline = [0i128; WIDTH];
    inline[..nums.len()].copy_from_slice(nums);
    Small { den, nums: inline, len: nums.len() as u8 }
}

impl Values {
    /// How many numerators (twice the players).
    pub(crate) fn len(&self) -> usize {
        match self {
            Values::Small(s) => s.len as usize,
            Values::Big(b) => b.nums.len(),
        }
    }

    /// The numbers as `BigInt`s.
    fn big(&self) -> Big {
        match self {
            Values::Small(s) => Big { den: s.den.into(), nums: s.nums().iter().map(|&n| n.into()).collect() },
            Values::Big(b) => b.clone(),
        }
    }

    /// Component `i` as a reduced fraction (⇄ `Fraction(values[1 + i], values[0])`).
    pub(crate) fn fraction(&self, i: usize) -> BigRational {
        match self {
            Values::Small(s) => BigRational::new(s.nums[i].into(), s.den.into()),
            Values::Big(b) => BigRational::new(b.nums[i].clone(), b.den.clone()),
        }
    }

    /// Every component as a reduced fraction.
    pub(crate) fn fractions(&self) -> Vec<BigRational> {
        (0..self.len()).map(|i| self.fraction(i)).collect()
    }

    /// Every player's win share, then every player's expected score, as Python's
    /// `float(Fraction)`: correctly rounded (⇄ `advisor.players.tablebase._floats`).
    pub(crate) fn floats(&self) -> crate::ismcts::Values {
        let half = self.len() / 2;
        ((0..half).map(|i| self.float(i)).collect(), (half..self.len()).map(|i| self.float(i)).collect())
    }

    /// Component `i` as `float(Fraction(values[1 + i], values[0]))`. Where the numerator and the
    /// denominator are exact as floats (at most 2^53), their quotient is the fraction correctly
    /// rounded (IEEE division), whatever common factor they share; else the exact fraction's.
    fn float(&self, i: usize) -> f64 {
        const EXACT: u128 = 1 << f64::MANTISSA_DIGITS;
        if let Values::Small(s) = self {
            let (num, den) = (s.nums[i], s.den);
            if num.unsigned_abs() <= EXACT && den.unsigned_abs() <= EXACT {
                return num as f64 / den as f64;
            }
        }
        self.fraction(i).to_f64().expect("a ratio of integers always converts to a float")
    }

    /// The end of a game: win share 1/k for each of k tied leaders (C18), every VP total (⇄
    /// `_common_denominator(exact_returns() + scores())`).
    pub(crate) fn terminal(vp: &[i32]) -> Values {
        let best = *vp.iter().max().expect("a game has players");
        let winners = vp.iter().filter(|&&v| v == best).count() as i128;
        let mut nums: Vec<i128> = vp.iter().map(|&v| (v == best) as i128).collect();
        nums.extend(vp.iter().map(|&v| v as i128 * winners));
        Values::Small(small(winners, &nums))
    }

    /// Exact fractions over their least common denominator (⇄ `_common_denominator`).
    pub(crate) fn common(shares: &[BigRational]) -> Values {
        let den = shares.iter().fold(BigInt::one(), |acc, s| acc.lcm(s.denom()));
        let nums = shares.iter().map(|s| s.numer() * (&den / s.denom())).collect();
        Big { den, nums }.shrink()
    }

    /// The expectation of `outcomes` (each value with its ways), reduced (⇄ the sums of
    /// `ExactSolver._expectation` and `_reduced`). `outcomes` is not empty.
    pub(crate) fn expectation<'a, I>(outcomes: I) -> Values
    where
        I: Iterator<Item = (u64, &'a Values)> + Clone,
    {
        small_expectation(outcomes.clone()).map(Values::Small).unwrap_or_else(|| big_expectation(outcomes))
    }

    /// Whether component `first` of `self` is greater than `other`'s, or equal and component
    /// `second` greater (⇄ `(v[win] * b[0], v[score] * b[0]) > (b[win] * v[0], b[score] * v[0])`).
    pub(crate) fn greater(&self, other: &Values, first: usize, second: usize) -> bool {
        self.compare(other, first).then_with(|| self.compare(other, second)) == Ordering::Greater
    }

    /// Component `i` of `self` against `other`'s, by cross-multiplication.
    fn compare(&self, other: &Values, i: usize) -> Ordering {
        if let (Values::Small(a), Values::Small(b)) = (self, other) {
            if let (Some(left), Some(right)) = (a.nums[i].checked_mul(b.den), b.nums[i].checked_mul(a.den)) {
                return left.cmp(&right);
            }
        }
        let (a, b) = (self.big(), other.big());
        (&a.nums[i] * &b.den).cmp(&(&b.nums[i] * &a.den))
    }
}

/// The expectation in `i128`, or `None` if a number would not fit.
fn small_expectation<'a>(outcomes: impl Iterator<Item = (u64, &'a Values)> + Clone) -> Option<Small> {
    let mut common: i128 = 1;
    let mut width = 0;
    for (_, values) in outcomes.clone() {
        let Values::Small(s) = values else { return None };
        common = common.checked_div(gcd(common, s.den) as i128)?.checked_mul(s.den)?;
        width = s.len as usize;
    }
    let mut sums = [0i128; WIDTH];
    let mut total: i128 = 0;
    for (weight, values) in outcomes {
        let Values::Small(s) = values else { return None };
        let weight = weight as i128;
        total = total.checked_add(weight)?;
        let scale = weight.checked_mul(common / s.den)?;
        for (sum, &n) in sums[..width].iter_mut().zip(s.nums()) {
            *sum = sum.checked_add(scale.checked_mul(n)?)?;
        }
    }
    let den = common.checked_mul(total)?;
    let divisor = sums[..width].iter().fold(den.unsigned_abs(), |acc, &n| gcd_u128(acc, n.unsigned_abs()));
    if divisor > 1 {
        let divisor = divisor as i128; // divides den, which fits
        for sum in &mut sums[..width] {
            *sum /= divisor;
        }
        return Some(small(den / divisor, &sums[..width]));
    }
    Some(small(den, &sums[..width]))
}

/// The expectation in `BigInt` (⇄ `ExactSolver._expectation` line for line).
fn big_expectation<'a>(outcomes: impl Iterator<Item = (u64, &'a Values)>) -> Values {
    let bigs: Vec<(u64, Big)> = outcomes.map(|(w, v)| (w, v.big())).collect();
    let common = bigs.iter().fold(BigInt::one(), |acc, (_, v)| acc.lcm(&v.den));
    let mut sums = vec![BigInt::zero(); bigs[0].1.nums.len()];
    let mut total: u64 = 0;
    for (weight, values) in &bigs {
        total += weight;
        let scale = BigInt::from(*weight) * (&common / &values.den);
        for (sum, n) in sums.iter_mut().zip(&values.nums) {
            *sum += &scale * n;
        }
    }
    let den = common * BigInt::from(total);
    let divisor = sums.iter().fold(den.clone(), |acc, n| acc.gcd(n));
    let big = if divisor.is_one() {
        Big { den, nums: sums }
    } else {
        Big { den: den / &divisor, nums: sums.into_iter().map(|n| n / &divisor).collect() }
    };
    debug_assert!(big.den.is_positive());
    big.shrink()
}

/// The greatest common divisor of two positive `i128`s.
fn gcd(a: i128, b: i128) -> u128 {
    gcd_u128(a.unsigned_abs(), b.unsigned_abs())
}

/// The greatest common divisor (binary; gcd(0, n) = n), in 64 bits where both fit.
fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    if (a | b) >> 64 == 0 {
        return (a as u64).gcd(&(b as u64)) as u128;
    }
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fractions_of(values: &Values) -> Vec<BigRational> {
        values.fractions()
    }

    /// The expectation by plain rational arithmetic.
    fn reference(outcomes: &[(u64, Values)]) -> Vec<BigRational> {
        let total: u64 = outcomes.iter().map(|(w, _)| w).sum();
        let mut sums = vec![BigRational::zero(); outcomes[0].1.len()];
        for (w, v) in outcomes {
            for (sum, f) in sums.iter_mut().zip(v.fractions()) {
                *sum += BigRational::from_integer((*w).into()) * f;
            }
        }
        sums.into_iter().map(|s| s / BigRational::from_integer(total.into())).collect()
    }

    fn value(den: i128, nums: &[i128], big: bool) -> Values {
        let v = Values::Small(small(den, nums));
        if big {
            Values::Big(v.big())
        } else {
            v
        }
    }

    proptest! {
        /// Both paths give the exact expectation, whether the numbers fit `i128` or not.
        #[test]
        fn expectations_are_exact(
            outcomes in prop::collection::vec(
                (1u64..5_000, 1i128..1_000_000_000_000_000_000, prop::collection::vec(-1_000_000i128..1_000_000, 4), any::<bool>()),
                1..6)
        ) {
            let outcomes: Vec<(u64, Values)> =
                outcomes.iter().map(|(w, den, nums, big)| (*w, value(*den, nums, *big))).collect();
            let got = Values::expectation(outcomes.iter().map(|(w, v)| (*w, v)));
            prop_assert_eq!(fractions_of(&got), reference(&outcomes));
            if let Values::Big(b) = &got {
                prop_assert!(b.den.to_i128().is_none() || b.nums.iter().any(|n| n.to_i128().is_none()));
            }
        }

        /// The comparison is that of the fractions, by either path.
        #[test]
        fn comparisons_are_exact(a in 1i128..i128::MAX, b in 1i128..i128::MAX, x in any::<i64>(), y in any::<i64>(), big in any::<bool>()) {
            let left = value(a, &[x as i128 * 7, 1], big);
            let right = value(b, &[y as i128 * 7, 0], false);
            let expected = left.fraction(0).cmp(&right.fraction(0)).then(left.fraction(1).cmp(&right.fraction(1)));
            prop_assert_eq!(left.greater(&right, 0, 1), expected == Ordering::Greater);
        }

        #[test]
        fn gcd_is_euclids(a in any::<u128>(), b in any::<u128>(), c in any::<u64>(), d in any::<u64>()) {
            prop_assert_eq!(gcd_u128(a, b), BigInt::from(a).gcd(&BigInt::from(b)).to_u128().unwrap());
            let (c, d) = (c as u128 >> (c % 64), d as u128 >> (d % 64));
            prop_assert_eq!(gcd_u128(c, d), BigInt::from(c).gcd(&BigInt::from(d)).to_u128().unwrap());
        }

        /// Every component as the exact fraction correctly rounded (`BigRational::to_f64`), the
        /// numbers within 2^53 (the quotient of floats) or beyond, common factors or not.
        #[test]
        fn floats_are_the_fractions_correctly_rounded(
            den in 1i128..i128::MAX, nums in prop::collection::vec(any::<i128>(), 4), shift in 0u32..127, factor in 1i128..1_000,
        ) {
            for (den, nums) in [(den >> shift, nums.iter().map(|n| n >> shift).collect::<Vec<_>>()),
                                ((den >> shift).max(1) % (1 << 53) * factor, nums.iter().map(|n| (n >> shift) % (1 << 53) * factor).collect())] {
                let v = value(den.max(1), &nums, false);
                let (wins, scores) = v.floats();
                let exact: Vec<f64> = v.fractions().iter().map(|f| f.to_f64().unwrap()).collect();
                prop_assert_eq!([&wins[..], &scores[..]].concat().iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                                exact.iter().map(|f| f.to_bits()).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn a_terminal_splits_the_win_among_the_tied_leaders() {
        let v = Values::terminal(&[7, 9, 9]);
        let f = v.fractions();
        let third = |n: i64, d: i64| BigRational::new(n.into(), d.into());
        assert_eq!(f, vec![third(0, 1), third(1, 2), third(1, 2), third(7, 1), third(9, 1), third(9, 1)]);
    }
}
