//! An index of the sections foreground GC may pick, keyed by (valid blocks,
//! section number), so greedy selection costs O(1) and each change
//! O(log sections) instead of a pass over every section per victim.
//!
//! It only speeds the simulator up: the section it names is the one
//! `Greedy.select(victim_candidates())` names (a test checks it), and the
//! simulated cost of the kernel's scan (`get_victim_by_default` over the
//! dirty segmap) is still charged from the candidate count. It is a cache,
//! not state: a clone or a deserialised copy starts without it and it is
//! rebuilt on first use.

/// A key no candidate has: the section is not a candidate.
pub const NOT_A_CANDIDATE: u64 = u64::MAX;

/// The key of a candidate section: fewest valid blocks first, then the
/// lowest number (as `Greedy` breaks ties).
#[inline]
pub fn key(valid: u32, secno: u32) -> u64 {
    (valid as u64) << 32 | secno as u64
}

/// A min-tree over sections (leaves at `leaves..2 * leaves`).
#[derive(Debug, Default)]
pub struct VictimIndex {
    tree: Option<Box<[u64]>>,
    leaves: usize,
    candidates: u32,
}

impl Clone for VictimIndex {
    /// A copy (a checkpoint image) rebuilds its own index when it needs one.
    fn clone(&self) -> Self {
        VictimIndex::default()
    }
}

impl VictimIndex {
    pub fn is_built(&self) -> bool {
        self.tree.is_some()
    }

    /// Build over `n` sections, `key_of(s)` giving each one's key.
    pub fn build(&mut self, n: usize, key_of: impl Fn(u32) -> u64) {
        let leaves = n.next_power_of_two().max(1);
        let mut t = vec![NOT_A_CANDIDATE; 2 * leaves].into_boxed_slice();
        let mut candidates = 0;
        for s in 0..n {
            let k = key_of(s as u32);
            candidates += u32::from(k != NOT_A_CANDIDATE);
            t[leaves + s] = k;
        }
        for i in (1..leaves).rev() {
            t[i] = t[2 * i].min(t[2 * i + 1]);
        }
        (self.tree, self.leaves, self.candidates) = (Some(t), leaves, candidates);
    }

    /// Section `s` now has key `k` (no-op before the index is built).
    #[inline]
    pub fn set(&mut self, s: u32, k: u64) {
        let Some(t) = self.tree.as_mut() else { return };
        let mut i = self.leaves + s as usize;
        let old = t[i];
        if old == k {
            return;
        }
        self.candidates = self.candidates + u32::from(k != NOT_A_CANDIDATE) - u32::from(old != NOT_A_CANDIDATE);
        t[i] = k;
        while i > 1 {
            i /= 2;
            let m = t[2 * i].min(t[2 * i + 1]);
            if t[i] == m {
                break;
            }
            t[i] = m;
        }
    }

    /// The greedy victim (section, valid blocks), if any section is a
    /// candidate, and how many are.
    pub fn min(&self) -> (Option<(u32, u32)>, u32) {
        let t = self.tree.as_ref().expect("victim index used before it was built");
        let k = t[1];
        let best = (k != NOT_A_CANDIDATE).then_some((k as u32, (k >> 32) as u32));
        (best, self.candidates)
    }

    /// The key the index holds for `s` (invariant checks).
    pub fn get(&self, s: u32) -> Option<u64> {
        self.tree.as_ref().map(|t| t[self.leaves + s as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimRng;

    #[test]
    fn min_follows_every_change() {
        let n = 1000;
        let mut keys = vec![NOT_A_CANDIDATE; n];
        let mut ix = VictimIndex::default();
        ix.build(n, |s| keys[s as usize]);
        assert_eq!(ix.min(), (None, 0));
        let mut rng = SimRng::new(3);
        for _ in 0..20_000 {
            let s = rng.below(n as u64) as u32;
            let k = if rng.below(4) == 0 { NOT_A_CANDIDATE } else { key(rng.below(512) as u32, s) };
            keys[s as usize] = k;
            ix.set(s, k);
            let want = keys.iter().copied().min().filter(|&k| k != NOT_A_CANDIDATE).map(|k| (k as u32, (k >> 32) as u32));
            let count = keys.iter().filter(|&&k| k != NOT_A_CANDIDATE).count() as u32;
            assert_eq!(ix.min(), (want, count));
        }
    }

    #[test]
    fn a_clone_starts_unbuilt() {
        let mut ix = VictimIndex::default();
        ix.build(4, |s| key(s, s));
        assert!(ix.is_built());
        assert!(!ix.clone().is_built());
    }
}
