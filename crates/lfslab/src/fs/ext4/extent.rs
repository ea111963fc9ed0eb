//! A file's extents (fs/ext4/extents.c): logical start -> (physical start,
//! length, unwritten). Four extents fit in the inode's i_block; more need
//! a tree whose leaves hold 340 each (EXT4_EXT_SPACE_LEAF: (4096 - 12) /
//! 12). Adjacent extents merge when they continue each other logically
//! and physically (ext4_ext_try_to_merge), up to 32768 blocks
//! (EXT_INIT_MAX_LEN) or 32767 unwritten (EXT_UNWRITTEN_MAX_LEN).

use std::collections::BTreeMap;

pub const EXTENTS_IN_INODE: usize = 4;
pub const EXTENTS_PER_LEAF: usize = 340;
const INIT_MAX_LEN: u64 = 32768;
const UNWRITTEN_MAX_LEN: u64 = 32767;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Extent {
    pub pblk: u64,
    pub len: u64,
    pub unwritten: bool,
}

impl Extent {
    fn max_len(&self) -> u64 {
        if self.unwritten {
            UNWRITTEN_MAX_LEN
        } else {
            INIT_MAX_LEN
        }
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ExtentMap {
    map: BTreeMap<u64, Extent>,
}

impl ExtentMap {
    pub fn count(&self) -> usize {
        self.map.len()
    }

    /// Leaf blocks the tree needs (0 while the extents fit in the inode).
    pub fn leaves(&self) -> usize {
        if self.map.len() <= EXTENTS_IN_INODE {
            0
        } else {
            self.map.len().div_ceil(EXTENTS_PER_LEAF)
        }
    }

    /// The leaf (index into the tree's leaves) holding `lblk`'s extent:
    /// the extent's rank / 340, estimated from the logical position in
    /// very large maps so the lookup stays cheap.
    pub fn leaf_of(&self, lblk: u64) -> usize {
        let leaves = self.leaves();
        if leaves <= 1 {
            return 0;
        }
        let rank = if self.map.len() <= 4096 {
            self.map.range(..lblk).count()
        } else {
            let last = self.map.keys().next_back().copied().unwrap_or(0).max(1);
            (lblk.min(last) as u128 * self.map.len() as u128 / (last as u128 + 1)) as usize
        };
        (rank / EXTENTS_PER_LEAF).min(leaves - 1)
    }

    /// (physical block, unwritten) of logical block `lblk`.
    pub fn lookup(&self, lblk: u64) -> Option<(u64, bool)> {
        let (&s, e) = self.map.range(..=lblk).next_back()?;
        (lblk < s + e.len).then(|| (e.pblk + lblk - s, e.unwritten))
    }

    /// ext4_ext_find_goal: the block after the nearest mapping before
    /// `lblk`, at the same distance (keeps a file contiguous).
    pub fn goal_for(&self, lblk: u64) -> Option<u64> {
        let (&s, e) = self.map.range(..=lblk).next_back().or_else(|| self.map.iter().next())?;
        Some(if lblk >= s { e.pblk + (lblk - s) } else { e.pblk.saturating_sub(s - lblk) })
    }

    /// Make `lblk` the start of an extent if it falls inside one.
    fn split_at(&mut self, lblk: u64) {
        if let Some((&s, &e)) = self.map.range(..lblk).next_back() {
            if lblk < s + e.len {
                let head = lblk - s;
                self.map.insert(s, Extent { len: head, ..e });
                self.map.insert(lblk, Extent { pblk: e.pblk + head, len: e.len - head, unwritten: e.unwritten });
            }
        }
    }

    fn try_merge(&mut self, lblk: u64) {
        let Some(&e) = self.map.get(&lblk) else { return };
        let mut start = lblk;
        let mut cur = e;
        if let Some((&ps, &p)) = self.map.range(..lblk).next_back() {
            if ps + p.len == lblk && p.pblk + p.len == e.pblk && p.unwritten == e.unwritten && p.len + e.len <= e.max_len() {
                self.map.remove(&lblk);
                cur = Extent { len: p.len + e.len, ..p };
                self.map.insert(ps, cur);
                start = ps;
            }
        }
        let next = start + cur.len;
        if let Some(&n) = self.map.get(&next) {
            if cur.pblk + cur.len == n.pblk && n.unwritten == cur.unwritten && cur.len + n.len <= cur.max_len() {
                self.map.remove(&next);
                self.map.insert(start, Extent { len: cur.len + n.len, ..cur });
            }
        }
    }

    /// Map [lblk, lblk + len) (which must be unmapped) to `pblk`...
    pub fn insert(&mut self, lblk: u64, pblk: u64, len: u64, unwritten: bool) {
        debug_assert!(self.lookup(lblk).is_none() && self.lookup(lblk + len - 1).is_none());
        let max = if unwritten { UNWRITTEN_MAX_LEN } else { INIT_MAX_LEN };
        let mut off = 0;
        while off < len {
            let n = (len - off).min(max);
            self.map.insert(lblk + off, Extent { pblk: pblk + off, len: n, unwritten });
            self.try_merge(lblk + off);
            off += n;
        }
    }

    /// Unmap every block from `lblk` on; returns the physical runs released.
    pub fn remove_from(&mut self, lblk: u64) -> Vec<(u64, u64)> {
        self.split_at(lblk);
        let tail = self.map.split_off(&lblk);
        tail.values().map(|e| (e.pblk, e.len)).collect()
    }

    /// Mark [lblk, lblk + n) written where it was unwritten
    /// (ext4_convert_unwritten_extents); returns whether anything changed.
    pub fn mark_written(&mut self, lblk: u64, n: u64) -> bool {
        self.split_at(lblk);
        self.split_at(lblk + n);
        let keys: Vec<u64> = self.map.range(lblk..lblk + n).filter(|(_, e)| e.unwritten).map(|(&k, _)| k).collect();
        for &k in &keys {
            self.map.get_mut(&k).expect("listed").unwritten = false;
        }
        // Merge what the splits and conversions left side by side.
        let around: Vec<u64> = self.map.range(..=lblk + n).rev().take(keys.len() + 3).map(|(&k, _)| k).collect();
        for k in around.into_iter().rev() {
            self.try_merge(k);
        }
        !keys.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, Extent)> + '_ {
        self.map.iter().map(|(&l, &e)| (l, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_inserts_merge_and_truncate_releases_the_tail() {
        let mut m = ExtentMap::default();
        m.insert(0, 1000, 10, false);
        m.insert(10, 1010, 5, false);
        assert_eq!(m.count(), 1);
        m.insert(20, 5000, 5, false);
        assert_eq!(m.count(), 2);
        assert_eq!(m.lookup(12), Some((1012, false)));
        assert_eq!(m.lookup(17), None);
        assert_eq!(m.goal_for(17), Some(1017));
        assert_eq!(m.remove_from(12), vec![(1012, 3), (5000, 5)]);
        assert_eq!(m.lookup(11), Some((1011, false)));
        assert_eq!(m.lookup(12), None);
    }

    #[test]
    fn writing_into_an_unwritten_extent_splits_then_merges_back() {
        let mut m = ExtentMap::default();
        m.insert(0, 100, 30, true);
        assert!(m.mark_written(10, 5));
        assert_eq!(m.count(), 3);
        assert_eq!(m.lookup(12), Some((112, false)));
        assert_eq!(m.lookup(9), Some((109, true)));
        assert!(m.mark_written(0, 10));
        assert!(m.mark_written(15, 15));
        assert_eq!(m.count(), 1);
        assert!(!m.mark_written(0, 30));
        // Past 4 extents the tree has leaves.
        for i in 0..5 {
            m.insert(100 + 10 * i, 10_000 + 20 * i, 1, false);
        }
        assert_eq!(m.leaves(), 1);
    }
}
