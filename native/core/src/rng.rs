//! The random stream (SPEC-portable section 2): CPython's Mersenne Twister, seeded as
//! `random.Random(int)`, and its `random()`. Python twin: the standard library's `random.Random`.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;
/// 2^53: `random()`'s integers are below it.
const TWO_53: u64 = 1 << 53;
/// `below(n)` computes in 64-bit integers for `n` below this (the product stays below 2^64).
const SMALL: usize = 1 << 11;

/// MT19937 with CPython's seeding (Python twin: `random.Random`).
#[derive(Clone)]
pub struct Rng {
    mt: [u32; N],
    index: usize,
}

impl std::fmt::Debug for Rng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Rng {{ index: {} }}", self.index)
    }
}

/// MT19937's tempering of a state word into an output (CPython `genrand_uint32`'s last steps).
#[inline(always)]
fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

/// `below(n)` for `random()`'s integer `x` (see there; Python twin: `int(random() * n)`).
#[inline]
fn index_below(x: u64, n: usize) -> usize {
    if n >= SMALL {
        return (x as i64 as f64 * (1.0 / TWO_53 as f64) * n as f64) as i64 as usize;
    }
    let product = x * n as u64; // below 2^64: x < 2^53, n < 2^11
    let q = product >> 53;
    let half = (1u64 << (64 - q.leading_zeros())) >> 1;
    (q + (((product & (TWO_53 - 1)) + half) >> 53)) as usize
}

impl Rng {
    /// `random.Random(seed)` for a non-negative int seed (CPython `random_seed`: init_by_array over
    /// the seed's little-endian 32-bit words, `[0]` for 0).
    pub fn new(seed: u64) -> Rng {
        let low = seed as u32;
        let high = (seed >> 32) as u32;
        if high == 0 {
            Rng::from_key(&[low])
        } else {
            Rng::from_key(&[low, high])
        }
    }

    /// `random.Random(n)` for any non-negative int given as its little-endian 32-bit words with no
    /// high zero words (CPython `init_by_array`).
    pub fn from_key(key: &[u32]) -> Rng {
        let key: &[u32] = if key.is_empty() { &[0] } else { key };
        let mut rng = Rng::init_genrand(19_650_218);
        let mt = &mut rng.mt;
        let (mut i, mut j) = (1usize, 0usize);
        let mut k = N.max(key.len());
        while k > 0 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
            k -= 1;
        }
        k = N - 1;
        while k > 0 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            k -= 1;
        }
        mt[0] = 0x8000_0000;
        rng
    }

    fn init_genrand(seed: u32) -> Rng {
        let mut mt = [0u32; N];
        mt[0] = seed;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Rng { mt, index: N }
    }

    /// The next 32-bit output (CPython `genrand_uint32`); inlined, the twist of every 624th call
    /// kept out of line.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let y = self.mt[self.index];
        self.index += 1;
        temper(y)
    }

    /// The next 624 words of the state (CPython `genrand_uint32`'s refill).
    #[inline(never)]
    fn twist(&mut self) {
        let mt = &mut self.mt;
        let mag = |y: u32| if y & 1 == 1 { MATRIX_A } else { 0 };
        for kk in 0..N - M {
            let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag(y);
        }
        for kk in N - M..N - 1 {
            let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M - N] ^ (y >> 1) ^ mag(y);
        }
        let y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag(y);
        self.index = 0;
    }

    /// The 53-bit integer behind `random()` from two outputs: `random()` is it times 2^-53,
    /// exactly (CPython `random_random`: `(a >> 5) * 2^26 + (b >> 6)`); the two words read with
    /// one index update when no twist comes between them (`i < N - 1`: both reads in bounds, no
    /// check left), the rare other case out of line.
    #[inline(always)]
    fn next_53(&mut self) -> u64 {
        let i = self.index;
        let (a, b) = if i < N - 1 {
            self.index = i + 2;
            (temper(self.mt[i]), temper(self.mt[i + 1]))
        } else {
            self.next_two()
        };
        ((a >> 5) as u64) << 26 | (b >> 6) as u64
    }

    /// The next two outputs with a twist between or before them (CPython: two `genrand_uint32`).
    #[cold]
    #[inline(never)]
    fn next_two(&mut self) -> (u32, u32) {
        (self.next_u32(), self.next_u32())
    }

    /// A float in [0, 1) from two outputs (Python twin: `random.Random.random`).
    #[inline]
    pub fn random(&mut self) -> f64 {
        // below 2^53: the conversion is exact, and through `i64` one instruction
        self.next_53() as i64 as f64 * (1.0 / TWO_53 as f64)
    }

    /// A uniform index below `n`: `int(random() * n)` (SPEC-portable section 2), computed in
    /// integers: `random() * n` is `fl(x * n) * 2^-53` for `random()`'s integer `x`, so the index
    /// is `x * n` rounded to 53 significant bits (ties to even), shifted down 53 bits. With `q`
    /// the product shifted down 53 bits, the rounding drops `s = bitlen(q)` bits and lifts the
    /// index to `q + 1` exactly when the product's low 53 bits plus half of `2^s` reach `2^53`
    /// (a tie rounds up too: the multiple of `2^s` above is even). A test checks it against the
    /// float computation, near every boundary.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        index_below(self.next_53(), n)
    }

    /// A search seed drawn from the stream: `int(rng.random() * 2**53)` (Python twin:
    /// `seed_from_stream`, SPEC-portable section 4).
    pub fn seed_from_stream(&mut self) -> u64 {
        (self.random() * 9_007_199_254_740_992.0) as u64
    }

    /// The generator's state as `random.getstate()[1]` gives it: 624 words and the index.
    pub fn getstate(&self) -> ([u32; N], usize) {
        (self.mt, self.index)
    }

    /// A generator at the state `getstate` gave (Python twin: `random.setstate`); `None` for an
    /// index above 624.
    pub fn setstate(words: &[u32], index: usize) -> Option<Rng> {
        if words.len() != N || index > N {
            return None;
        }
        let mut mt = [0u32; N];
        mt.copy_from_slice(words);
        Some(Rng { mt, index })
    }
}

#[cfg(test)]
mod tests {
    use super::{index_below, Rng, SMALL, TWO_53};
    use proptest::prelude::*;

    /// `int(random() * n)` as Python computes it, in floats, from `random()`'s integer `x`.
    fn float_below(x: u64, n: usize) -> usize {
        let random = (x >> 26) as f64 * 67_108_864.0 + (x & ((1 << 26) - 1)) as f64;
        (random * (1.0 / 9_007_199_254_740_992.0) * n as f64) as i64 as usize
    }

    /// The integer `below` equals the float computation where the rounding decides: products
    /// just below, at and above every multiple of 2^53 and half a dropped bit either side of it.
    #[test]
    fn below_matches_the_float_product_at_the_boundaries() {
        let bounds = (1..=80usize).chain([127, 128, 129, 255, 256, 1000, 1023, 1024, 1025, SMALL - 1]);
        for n in bounds {
            // a dropped bit's half is at most 2^10 for n < 2^11
            let reach = if n <= 80 { 70 } else { 1100 };
            let tops: Vec<u64> = if n <= 80 { (0..n as u64).collect() } else { vec![0, 1, n as u64 / 2, n as u64 - 2, n as u64 - 1] };
            for q in tops {
                let boundary = (q + 1) << 53;
                for offset in 0..=reach {
                    for target in [boundary - offset, boundary + offset] {
                        for x in [target / n as u64, target / n as u64 + 1] {
                            if x < TWO_53 {
                                assert_eq!(index_below(x, n), float_below(x, n), "x {x}, n {n}");
                            }
                        }
                    }
                }
            }
        }
        for n in [0, 1, 2, 3, 44, SMALL - 1, SMALL, SMALL + 1, 1 << 20] {
            for x in [0, 1, TWO_53 - 1, TWO_53 - 2, TWO_53 / 2, TWO_53 / 3] {
                assert_eq!(index_below(x, n), float_below(x, n), "x {x}, n {n}");
            }
        }
    }

    proptest! {
        /// The integer `below` equals `int(random() * n)` for any 53-bit integer and bound.
        #[test]
        fn below_is_the_float_product(x in 0..TWO_53, n in 0..SMALL + 100) {
            prop_assert_eq!(index_below(x, n), float_below(x, n));
        }

        /// A generator's `below(n)` is `int(random() * n)` of the same generator, and leaves it
        /// where `random()` does.
        #[test]
        fn below_reads_what_random_reads(seed in 0u64..1000, skip in 0usize..700, n in 1usize..100) {
            let mut rng = Rng::new(seed);
            for _ in 0..skip {
                rng.next_u32();
            }
            let mut floats = rng.clone();
            prop_assert_eq!(rng.below(n), (floats.random() * n as f64) as usize);
            prop_assert_eq!(rng.getstate(), floats.getstate());
        }
    }

    #[test]
    fn matches_python_random_vectors() {
        // python3 -c "import random; r=random.Random(0); print([r.random() for _ in range(3)])"
        let mut r = Rng::new(0);
        assert_eq!(r.random(), 0.8444218515250481);
        assert_eq!(r.random(), 0.7579544029403025);
        assert_eq!(r.random(), 0.420571580830845);
        // random.Random(42).random()
        assert_eq!(Rng::new(42).random(), 0.6394267984578837);
        // random.Random(2**40 + 7).random()
        assert_eq!(Rng::new((1 << 40) + 7).random(), 0.6137037779936511);
        assert_eq!(Rng::new(12_345_678_901_234_567).random(), 0.09702702310935107);
        // r = random.Random(7); 400 draws (past one twist), then r.random()
        let mut r = Rng::new(7);
        for _ in 0..400 {
            r.random();
        }
        assert_eq!(r.random(), 0.07072281558400617);
    }
}
