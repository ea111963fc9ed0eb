//! The only randomness in a run: a seeded PRNG tree. The root is built from
//! the run's u64 seed; every component forks its own child stream by a
//! stable name, so adding a component never perturbs another's sequence.
//!
//! Generator: xoshiro256** (Blackman & Vigna, 2018), seeded through
//! SplitMix64 as its authors recommend.

/// SplitMix64 step (Steele, Lea & Flood, OOPSLA 2014).
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A stateless 64-bit mix, used for fingerprints and hashing.
pub fn mix64(x: u64) -> u64 {
    let mut s = x;
    splitmix64(&mut s)
}

#[derive(Clone, Debug)]
pub struct SimRng {
    s: [u64; 4],
}

impl SimRng {
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        SimRng { s }
    }

    /// A child stream named `name`: depends only on this stream's seed
    /// material and the name, not on how many numbers were drawn.
    pub fn fork(&self, name: &str) -> SimRng {
        // FNV-1a over the name, folded with the parent state.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        SimRng::new(mix64(self.s[0] ^ h) ^ self.s[1].rotate_left(17))
    }

    /// Child stream by index (e.g. job number).
    pub fn fork_indexed(&self, name: &str, index: u64) -> SimRng {
        let child = self.fork(name);
        SimRng::new(mix64(child.s[0] ^ mix64(index)))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n) without modulo bias (Lemire's multiply-shift with rejection).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        let mut m = (self.next_u64() as u128) * (n as u128);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = (self.next_u64() as u128) * (n as u128);
            }
        }
        (m >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = SimRng::new(7);
        let mut b = SimRng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut c = SimRng::new(8);
        assert_ne!(SimRng::new(7).next_u64(), c.next_u64());
    }

    #[test]
    fn forks_are_independent_of_draws() {
        let root = SimRng::new(1);
        let mut drawn = root.clone();
        drawn.next_u64();
        assert_eq!(root.fork("ftl").next_u64(), root.clone().fork("ftl").next_u64());
        assert_ne!(root.fork("ftl").next_u64(), root.fork("workload").next_u64());
        assert_ne!(root.fork_indexed("job", 0).next_u64(), root.fork_indexed("job", 1).next_u64());
    }

    #[test]
    fn below_is_in_range_and_covers() {
        let mut r = SimRng::new(3);
        let mut seen = [0u32; 10];
        for _ in 0..10_000 {
            let x = r.below(10);
            seen[x as usize] += 1;
        }
        // Each bucket expects 1000; a fair generator stays well inside 800..1200.
        for (i, &c) in seen.iter().enumerate() {
            assert!((800..1200).contains(&c), "bucket {i} has {c}");
        }
        let f = r.next_f64();
        assert!((0.0..1.0).contains(&f));
    }
}
