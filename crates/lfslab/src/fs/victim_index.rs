//! An index of the sections foreground and background GC may pick, keyed
//! by (valid blocks, section number): a min-tree, so the kernel's victim
//! searches (`get_victim_by_default` over the dirty section map, Linux 6.0)
//! cost O(log sections) per step instead of a pass over every section.
//!
//! It only speeds the simulator up: the section a search names is the one
//! the kernel's loop names (a test transcribes the loop and checks it). It
//! is a cache, not state: a clone or a deserialised copy starts without it
//! and it is rebuilt on first use.
//!
//! A *dirty unit* (`dirty_secmap`, or `dirty_segmap[DIRTY]` with one
//! segment per section) is a candidate with fewer valid blocks than a
//! section holds: the index counts them and finds them in order.

/// A key no candidate has: the section is not a candidate.
pub const NOT_A_CANDIDATE: u64 = u64::MAX;

/// The key of a candidate section: fewest valid blocks first, then the
/// lowest number (the searches break ties from their cursor on top of it).
#[inline]
pub fn key(valid: u32, secno: u32) -> u64 {
    (valid as u64) << 32 | secno as u64
}

/// A min-tree over sections (leaves at `leaves..2 * leaves`).
#[derive(Debug, Default)]
pub struct VictimIndex {
    tree: Option<Box<[u64]>>,
    leaves: usize,
    /// Keys below this are dirty units: `key(blocks_per_sec, 0)`.
    dirty_below: u64,
    dirty: u32,
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

    /// Build over `n` sections of `blocks_per_sec` blocks, `key_of(s)`
    /// giving each one's key.
    pub fn build(&mut self, n: usize, blocks_per_sec: u32, key_of: impl Fn(u32) -> u64) {
        let leaves = n.next_power_of_two().max(1);
        let mut t = vec![NOT_A_CANDIDATE; 2 * leaves].into_boxed_slice();
        let dirty_below = key(blocks_per_sec, 0);
        let mut dirty = 0;
        for s in 0..n {
            let k = key_of(s as u32);
            dirty += u32::from(k < dirty_below);
            t[leaves + s] = k;
        }
        for i in (1..leaves).rev() {
            t[i] = t[2 * i].min(t[2 * i + 1]);
        }
        (self.tree, self.leaves, self.dirty_below, self.dirty) = (Some(t), leaves, dirty_below, dirty);
    }

    fn tree(&self) -> &[u64] {
        self.tree.as_deref().expect("victim index used before it was built")
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
        self.dirty = self.dirty + u32::from(k < self.dirty_below) - u32::from(old < self.dirty_below);
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

    /// How many sections are dirty units.
    pub fn dirty(&self) -> u32 {
        self.dirty
    }

    /// Greedy's victim from unit `start` (section, valid blocks): the first
    /// section of fewest valid blocks in the order `start..`, then `..start`,
    /// as the kernel's search from its cursor keeps the first of least cost.
    pub fn first_min_from(&self, start: u32) -> Option<(u32, u32)> {
        let global = self.tree()[1];
        if global == NOT_A_CANDIDATE {
            return None;
        }
        let after = self.range_min(start as usize, self.leaves);
        let k = if after >> 32 == global >> 32 { after } else { global };
        Some((k as u32, (k >> 32) as u32))
    }

    /// The least key among sections `from..to`.
    fn range_min(&self, from: usize, to: usize) -> u64 {
        let t = self.tree();
        let (mut lo, mut hi, mut m) = (from + self.leaves, to.min(self.leaves) + self.leaves, NOT_A_CANDIDATE);
        while lo < hi {
            if lo & 1 == 1 {
                m = m.min(t[lo]);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                m = m.min(t[hi]);
            }
            (lo, hi) = (lo / 2, hi / 2);
        }
        m
    }

    /// The first dirty unit in `from..to` (`find_next_bit` on the dirty map).
    pub fn next_dirty(&self, from: u32, to: u32) -> Option<u32> {
        self.first_below(1, 0, self.leaves, from as usize, to as usize)
    }

    fn first_below(&self, node: usize, lo: usize, hi: usize, from: usize, to: usize) -> Option<u32> {
        let t = self.tree();
        if hi <= from || to <= lo || t[node] >= self.dirty_below {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo as u32);
        }
        let mid = (lo + hi) / 2;
        self.first_below(2 * node, lo, mid, from, to).or_else(|| self.first_below(2 * node + 1, mid, hi, from, to))
    }

    /// The last dirty unit of the volume.
    pub fn last_dirty(&self) -> Option<u32> {
        let t = self.tree();
        if t[1] >= self.dirty_below {
            return None;
        }
        let mut i = 1;
        while i < self.leaves {
            i = if t[2 * i + 1] < self.dirty_below { 2 * i + 1 } else { 2 * i };
        }
        Some((i - self.leaves) as u32)
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

    /// Every query agrees with a pass over the keys, through random changes.
    #[test]
    fn queries_follow_every_change() {
        let (n, per_sec) = (1000, 512);
        let mut keys = vec![NOT_A_CANDIDATE; n];
        let mut ix = VictimIndex::default();
        ix.build(n, per_sec, |s| keys[s as usize]);
        assert_eq!((ix.first_min_from(0), ix.dirty(), ix.last_dirty()), (None, 0, None));
        let mut rng = SimRng::new(3);
        let dirty = |k: u64| k < key(per_sec, 0);
        for _ in 0..20_000 {
            let s = rng.below(n as u64) as u32;
            // Few distinct costs, so ties are common; some full sections.
            let k = if rng.below(4) == 0 { NOT_A_CANDIDATE } else { key(per_sec - rng.below(8) as u32 * 64, s) };
            keys[s as usize] = k;
            ix.set(s, k);
            let start = rng.below(n as u64 + 1) as usize;
            let least = keys.iter().copied().min().filter(|&k| k != NOT_A_CANDIDATE).map(|k| (k >> 32) as u32);
            let want = least.map(|v| {
                let first = (start..n).chain(0..start).find(|&i| keys[i] != NOT_A_CANDIDATE && (keys[i] >> 32) as u32 == v);
                (first.expect("a least section") as u32, v)
            });
            assert_eq!(ix.first_min_from(start as u32), want);
            assert_eq!(ix.dirty(), keys.iter().filter(|&&k| dirty(k)).count() as u32);
            assert_eq!(ix.last_dirty(), keys.iter().rposition(|&k| dirty(k)).map(|i| i as u32));
            let to = rng.below(n as u64 + 1) as usize;
            let next = (start..to.max(start)).find(|&i| dirty(keys[i])).map(|i| i as u32);
            assert_eq!(ix.next_dirty(start as u32, to as u32), next, "{start}..{to}");
        }
    }

    #[test]
    fn a_clone_starts_unbuilt() {
        let mut ix = VictimIndex::default();
        ix.build(4, 512, |s| key(s, s));
        assert!(ix.is_built());
        assert!(!ix.clone().is_built());
    }
}
