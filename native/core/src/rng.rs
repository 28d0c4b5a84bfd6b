//! The random stream (SPEC-portable section 2): CPython's Mersenne Twister, seeded as
//! `random.Random(int)`, and its `random()`. Python twin: the standard library's `random.Random`.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

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

    /// A float in [0, 1) from two outputs (Python twin: `random.Random.random`); the two words
    /// read with one index update when no twist comes between them.
    #[inline]
    pub fn random(&mut self) -> f64 {
        let i = self.index;
        let (a, b) = if i + 2 <= N {
            self.index = i + 2;
            (temper(self.mt[i]), temper(self.mt[i + 1]))
        } else {
            (self.next_u32(), self.next_u32())
        };
        let (a, b) = (a >> 5, b >> 6);
        (a as f64 * 67_108_864.0 + b as f64) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// A uniform index below `n`: `int(random() * n)` (SPEC-portable section 2).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        // below `n`: through `i64`, whose conversion is one instruction
        (self.random() * n as f64) as i64 as usize
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
    use super::Rng;

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
