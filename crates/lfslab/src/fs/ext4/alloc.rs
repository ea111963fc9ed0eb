//! Free space and a goal-based contiguous allocator in the spirit of
//! mballoc (fs/ext4/mballoc.c, ext4_mb_regular_allocator).
//!
//! The kernel keeps a bitmap per group and a buddy cache of it; here the
//! free space is a map of free extents (the same information, which the
//! bitmaps' dirtying is derived from by group). An allocation of `want`
//! blocks near `goal` tries, in order:
//! 1. the goal itself (ext4_mb_find_by_goal): as many blocks as are free
//!    from the goal on, up to `want`;
//! 2. the first free extent of at least `want` blocks at or after the goal
//!    in the goal's group and the next ones (the criteria that scan groups
//!    from the goal group for a large enough free chunk);
//! 3. the smallest free extent of at least `want` blocks anywhere;
//! 4. the largest free extent (a partial allocation; the caller asks again).
//!
//! Simplified: no preallocation (inode or locality-group PAs), no request
//! normalisation and no stripe alignment.

use std::collections::{BTreeMap, BTreeSet};

/// Extents scanned from the goal before falling back to best fit.
const SCAN_LIMIT: usize = 64;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct BlockAlloc {
    /// start -> length of every free extent; adjacent extents are merged.
    free: BTreeMap<u64, u64>,
    /// (length, start) of the same extents, for best fit.
    by_len: BTreeSet<(u64, u64)>,
    free_blocks: u64,
}

impl BlockAlloc {
    pub fn free_blocks(&self) -> u64 {
        self.free_blocks
    }

    fn insert_raw(&mut self, start: u64, len: u64) {
        self.free.insert(start, len);
        self.by_len.insert((len, start));
    }

    fn remove_raw(&mut self, start: u64) -> u64 {
        let len = self.free.remove(&start).expect("free extent");
        self.by_len.remove(&(len, start));
        len
    }

    /// Return `len` blocks at `start` to free space. Panics on a double free.
    pub fn free(&mut self, start: u64, len: u64) {
        assert!(len > 0);
        let (mut s, mut l) = (start, len);
        if let Some((&ps, &pl)) = self.free.range(..=start).next_back() {
            assert!(ps + pl <= start, "ext4: freeing {start}+{len}, already free in {ps}+{pl}");
            if ps + pl == start {
                self.remove_raw(ps);
                s = ps;
                l += pl;
            }
        }
        if let Some((&ns, _)) = self.free.range(start..).next() {
            assert!(start + len <= ns, "ext4: freeing {start}+{len} overlaps free extent at {ns}");
            if start + len == ns {
                l += self.remove_raw(ns);
            }
        }
        self.insert_raw(s, l);
        self.free_blocks += len;
    }

    /// Take `len` blocks at `start`, which must be free.
    pub fn take(&mut self, start: u64, len: u64) {
        let (&fs, &fl) = self.free.range(..=start).next_back().expect("taking blocks that are not free");
        assert!(fs + fl >= start + len, "ext4: taking {start}+{len}, free only {fs}+{fl}");
        self.remove_raw(fs);
        if start > fs {
            self.insert_raw(fs, start - fs);
        }
        if fs + fl > start + len {
            self.insert_raw(start + len, fs + fl - start - len);
        }
        self.free_blocks -= len;
    }

    /// Whether all of [start, start + len) is free.
    pub fn is_free_run(&self, start: u64, len: u64) -> bool {
        self.free.range(..=start).next_back().is_some_and(|(&s, &l)| start + len <= s + l)
    }

    /// Allocate up to `want` contiguous blocks near `goal`: (start, length).
    pub fn alloc(&mut self, goal: u64, want: u64) -> Option<(u64, u64)> {
        debug_assert!(want > 0);
        // 1. At the goal.
        if let Some((&s, &l)) = self.free.range(..=goal).next_back() {
            if goal < s + l {
                let n = want.min(s + l - goal);
                self.take(goal, n);
                return Some((goal, n));
            }
        }
        // 2. First large enough extent after the goal.
        let hit = self.free.range(goal..).take(SCAN_LIMIT).find(|(_, &l)| l >= want).map(|(&s, _)| s);
        // 3. Best fit; 4. the largest.
        let start = hit
            .or_else(|| self.by_len.range((want, 0)..).next().map(|&(_, s)| s))
            .or_else(|| self.by_len.iter().next_back().map(|&(_, s)| s))?;
        let n = want.min(self.free[&start]);
        self.take(start, n);
        Some((start, n))
    }

    /// Free extents, in block order (for consistency checks).
    pub fn extents(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.free.iter().map(|(&s, &l)| (s, l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goal_then_first_fit_then_best_fit() {
        let mut a = BlockAlloc::default();
        a.free(0, 1000);
        assert_eq!(a.alloc(100, 10), Some((100, 10)));
        // The goal is taken: the next extent after it that fits.
        assert_eq!(a.alloc(105, 10), Some((110, 10)));
        a.take(120, 880);
        // Free: 0..100. A goal past it falls back to best fit.
        assert_eq!(a.alloc(500, 50), Some((0, 50)));
        // Not enough contiguous: the largest, partially.
        assert_eq!(a.alloc(500, 80), Some((50, 50)));
        assert_eq!(a.free_blocks(), 0);
        assert_eq!(a.alloc(0, 1), None);
        a.free(110, 10);
        a.free(100, 10);
        assert_eq!(a.extents().collect::<Vec<_>>(), vec![(100, 20)]);
    }

    #[test]
    #[should_panic(expected = "already free")]
    fn double_free_panics() {
        let mut a = BlockAlloc::default();
        a.free(0, 10);
        a.free(5, 1);
    }
}
