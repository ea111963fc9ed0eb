//! A file's extents (fs/ext4/extents.c): logical start -> (physical start,
//! length, unwritten). Four extents fit in the inode's i_block; more need
//! a tree whose leaves hold 340 each (EXT4_EXT_SPACE_LEAF: (4096 - 12) /
//! 12). Adjacent extents merge when they continue each other logically
//! and physically (ext4_ext_try_to_merge), up to 32768 blocks
//! (EXT_INIT_MAX_LEN) or 32767 unwritten (EXT_UNWRITTEN_MAX_LEN).

use std::collections::BTreeMap;
use std::ops::Bound;

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

/// An extent as ext4 stores it on disk (struct ext4_extent, less the
/// logical start, which is the map's key): a 48-bit physical start and
/// `ee_len`, which above EXT_INIT_MAX_LEN (32768) means unwritten with
/// length `ee_len - 32768`. Eight bytes a value and four a key, where
/// `Extent` would take 24 and 8: a file written at random into fallocated
/// space splits into about a million extents per 16 GiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Packed {
    start_lo: u32,
    start_hi: u16,
    ee_len: u16,
}

impl Packed {
    fn pack(e: Extent) -> Packed {
        assert!(e.pblk < 1 << 48, "extent start {} beyond ext4's 48-bit block numbers", e.pblk);
        assert!(e.len >= 1 && e.len <= e.max_len(), "extent length {} (unwritten {})", e.len, e.unwritten);
        let ee_len = if e.unwritten { INIT_MAX_LEN + e.len } else { e.len };
        Packed { start_lo: e.pblk as u32, start_hi: (e.pblk >> 32) as u16, ee_len: ee_len as u16 }
    }

    fn unpack(self) -> Extent {
        let pblk = self.start_lo as u64 | (self.start_hi as u64) << 32;
        // ee_len 32768 is a written extent of 32768 blocks (EXT_INIT_MAX_LEN).
        let (len, unwritten) = match self.ee_len as u64 {
            l if l > INIT_MAX_LEN => (l - INIT_MAX_LEN, true),
            l => (l, false),
        };
        Extent { pblk, len, unwritten }
    }
}

/// Logical block numbers are 32-bit in ext4 (`MAX_FILE_BLOCKS`), so every
/// extent start is (a range's end may be 2^32: see `before`).
fn key(lblk: u64) -> u32 {
    u32::try_from(lblk).unwrap_or_else(|_| panic!("logical block {lblk} beyond ext4's 32-bit offsets"))
}

/// Saved as the logical start -> `Extent` map it stood for before packing,
/// so aged states keep their format.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(from = "BTreeMap<u64, Extent>", into = "BTreeMap<u64, Extent>")]
pub struct ExtentMap {
    map: BTreeMap<u32, Packed>,
}

impl From<BTreeMap<u64, Extent>> for ExtentMap {
    fn from(m: BTreeMap<u64, Extent>) -> Self {
        ExtentMap { map: m.into_iter().map(|(l, e)| (key(l), Packed::pack(e))).collect() }
    }
}

impl From<ExtentMap> for BTreeMap<u64, Extent> {
    fn from(m: ExtentMap) -> Self {
        m.map.into_iter().map(|(l, p)| (l as u64, p.unpack())).collect()
    }
}

impl ExtentMap {
    pub fn count(&self) -> usize {
        self.map.len()
    }

    /// The extents starting before `lblk` (at or before, `inclusive`).
    fn before(&self, lblk: u64, inclusive: bool) -> impl DoubleEndedIterator<Item = (u64, Extent)> + '_ {
        let end = match u32::try_from(lblk) {
            Ok(k) if inclusive => Bound::Included(k),
            Ok(k) => Bound::Excluded(k),
            Err(_) => Bound::Unbounded,
        };
        self.map.range((Bound::Unbounded, end)).map(|(&l, p)| (l as u64, p.unpack()))
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
            self.before(lblk, false).count()
        } else {
            let last = self.map.keys().next_back().map_or(0, |&k| k as u64).max(1);
            (lblk.min(last) as u128 * self.map.len() as u128 / (last as u128 + 1)) as usize
        };
        (rank / EXTENTS_PER_LEAF).min(leaves - 1)
    }

    /// (physical block, unwritten) of logical block `lblk`.
    pub fn lookup(&self, lblk: u64) -> Option<(u64, bool)> {
        let (s, e) = Extents::last_before(self, lblk, true)?;
        (lblk < s + e.len).then(|| (e.pblk + lblk - s, e.unwritten))
    }

    /// ext4_ext_find_goal: the block after the nearest mapping before
    /// `lblk`, at the same distance (keeps a file contiguous).
    pub fn goal_for(&self, lblk: u64) -> Option<u64> {
        let (s, e) = Extents::last_before(self, lblk, true).or_else(|| self.iter().next())?;
        Some(if lblk >= s { e.pblk + (lblk - s) } else { e.pblk.saturating_sub(s - lblk) })
    }

    /// Map [lblk, lblk + len) (which must be unmapped) to `pblk`...
    pub fn insert(&mut self, lblk: u64, pblk: u64, len: u64, unwritten: bool) {
        debug_assert!(self.lookup(lblk).is_none() && self.lookup(lblk + len - 1).is_none());
        let max = if unwritten { UNWRITTEN_MAX_LEN } else { INIT_MAX_LEN };
        let mut off = 0;
        while off < len {
            let n = (len - off).min(max);
            self.put(lblk + off, Extent { pblk: pblk + off, len: n, unwritten });
            try_merge(self, lblk + off);
            off += n;
        }
    }

    /// Unmap every block from `lblk` on; returns the physical runs released.
    pub fn remove_from(&mut self, lblk: u64) -> Vec<(u64, u64)> {
        split_at(self, lblk);
        let Ok(k) = u32::try_from(lblk) else { return Vec::new() };
        let tail = self.map.split_off(&k);
        tail.values().map(|p| p.unpack()).map(|e| (e.pblk, e.len)).collect()
    }

    /// Mark [lblk, lblk + n) written where it was unwritten
    /// (ext4_convert_unwritten_extents); returns whether anything changed.
    /// The rules run on a `Window` of the extents around the range, and
    /// only what they changed goes back into the tree.
    pub fn mark_written(&mut self, lblk: u64, n: u64) -> bool {
        let mut w = Window::around(self, lblk, n);
        let changed = mark_written(&mut w, lblk, n);
        w.write_back(self);
        changed
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, Extent)> + '_ {
        self.map.iter().map(|(&l, p)| (l as u64, p.unpack()))
    }
}

/// What the split and merge rules need of a sorted extent map: the tree
/// itself, or a `Window` of it.
trait Extents {
    /// The last extent starting before `lblk` (at or before, `inclusive`).
    fn last_before(&self, lblk: u64, inclusive: bool) -> Option<(u64, Extent)>;
    fn get(&self, lblk: u64) -> Option<Extent>;
    fn put(&mut self, lblk: u64, e: Extent);
    fn remove(&mut self, lblk: u64);
    /// The extents starting in [lo, hi), in order.
    fn starting_in(&self, lo: u64, hi: u64) -> Vec<(u64, Extent)>;
    /// The starts of the last `n` extents starting at or before `lblk`, last first.
    fn last_starts(&self, lblk: u64, n: usize) -> Vec<u64>;
}

impl Extents for ExtentMap {
    fn last_before(&self, lblk: u64, inclusive: bool) -> Option<(u64, Extent)> {
        self.before(lblk, inclusive).next_back()
    }

    fn get(&self, lblk: u64) -> Option<Extent> {
        u32::try_from(lblk).ok().and_then(|k| self.map.get(&k)).map(|p| p.unpack())
    }

    fn put(&mut self, lblk: u64, e: Extent) {
        self.map.insert(key(lblk), Packed::pack(e));
    }

    fn remove(&mut self, lblk: u64) {
        self.map.remove(&key(lblk));
    }

    fn starting_in(&self, lo: u64, hi: u64) -> Vec<(u64, Extent)> {
        let mut v: Vec<_> = self.before(hi, false).rev().take_while(|&(k, _)| k >= lo).collect();
        v.reverse();
        v
    }

    fn last_starts(&self, lblk: u64, n: usize) -> Vec<u64> {
        self.before(lblk, true).rev().take(n).map(|(k, _)| k).collect()
    }
}

/// A contiguous run of a tree's extents, copied out so that a conversion's
/// dozen look-ups and edits cost one descent of the tree each way and a
/// write-back of what changed. A query the run cannot answer exactly (it
/// would need an extent beyond the run's ends, unless the run reaches the
/// tree's end on that side) is a bug in the run's sizing and panics.
struct Window {
    items: Vec<(u64, Extent)>,
    /// What was copied: every extent of the tree starting between its first
    /// and last start.
    orig: Vec<(u64, Extent)>,
    /// No extent of the tree starts before `orig`'s first (after its last).
    lo_edge: bool,
    hi_edge: bool,
}

/// Extents copied at or before a conversion's first block: the one holding
/// it and the four before, since the merges after the split reach three
/// extents back and each looks at its predecessor (the window test fails
/// with four).
const WINDOW_BEFORE: usize = 5;
/// Extents copied after the range: a merge looks at most one past it.
const WINDOW_AFTER: usize = 1;

impl Window {
    fn around(m: &ExtentMap, lblk: u64, n: u64) -> Window {
        let mut items: Vec<(u64, Extent)> = m.before(lblk, true).rev().take(WINDOW_BEFORE).collect();
        let lo_edge = items.len() < WINDOW_BEFORE;
        items.reverse();
        let mut hi_edge = true;
        if let Ok(first) = u32::try_from(lblk) {
            let mut after = 0;
            for (&k, p) in m.map.range((Bound::Excluded(first), Bound::Unbounded)) {
                if k as u64 > lblk + n {
                    if after == WINDOW_AFTER {
                        hi_edge = false;
                        break;
                    }
                    after += 1;
                }
                items.push((k as u64, p.unpack()));
            }
        }
        Window { orig: items.clone(), items, lo_edge, hi_edge }
    }

    fn pos(&self, lblk: u64) -> Result<usize, usize> {
        self.items.binary_search_by_key(&lblk, |i| i.0)
    }

    /// Panics unless every extent of the tree starting in [a, b] is in the window.
    fn covers(&self, a: u64, b: u64) {
        let (lo, hi) = (self.orig.first().map(|i| i.0), self.orig.last().map(|i| i.0));
        assert!(
            (self.lo_edge || lo.is_some_and(|lo| a >= lo)) && (self.hi_edge || hi.is_some_and(|hi| b <= hi)),
            "extent window {lo:?}..={hi:?} (edges {}, {}) asked for [{a}, {b}]",
            self.lo_edge,
            self.hi_edge
        );
    }

    /// Write what changed back into `m`.
    fn write_back(self, m: &mut ExtentMap) {
        for &(k, _) in &self.orig {
            if self.items.binary_search_by_key(&k, |i| i.0).is_err() {
                m.remove(k);
            }
        }
        for &(k, e) in &self.items {
            if self.orig.binary_search_by_key(&k, |i| i.0).map(|i| self.orig[i].1) != Ok(e) {
                m.put(k, e);
            }
        }
    }
}

impl Extents for Window {
    fn last_before(&self, lblk: u64, inclusive: bool) -> Option<(u64, Extent)> {
        let i = match self.pos(lblk) {
            Ok(i) if inclusive => i + 1,
            Ok(i) | Err(i) => i,
        };
        let found = i.checked_sub(1).map(|j| self.items[j]);
        self.covers(found.map_or(0, |f| f.0), lblk);
        found
    }

    fn get(&self, lblk: u64) -> Option<Extent> {
        self.covers(lblk, lblk);
        self.pos(lblk).ok().map(|i| self.items[i].1)
    }

    fn put(&mut self, lblk: u64, e: Extent) {
        match self.pos(lblk) {
            Ok(i) => self.items[i].1 = e,
            Err(i) => self.items.insert(i, (lblk, e)),
        }
    }

    fn remove(&mut self, lblk: u64) {
        if let Ok(i) = self.pos(lblk) {
            self.items.remove(i);
        }
    }

    fn starting_in(&self, lo: u64, hi: u64) -> Vec<(u64, Extent)> {
        self.covers(lo, hi.saturating_sub(1));
        self.items.iter().copied().filter(|&(k, _)| k >= lo && k < hi).collect()
    }

    fn last_starts(&self, lblk: u64, n: usize) -> Vec<u64> {
        let v: Vec<u64> = self.items.iter().rev().map(|i| i.0).filter(|&k| k <= lblk).take(n).collect();
        self.covers(if v.len() == n { v[n - 1] } else { 0 }, lblk);
        v
    }
}

/// Make `lblk` the start of an extent if it falls inside one.
fn split_at(m: &mut impl Extents, lblk: u64) {
    if let Some((s, e)) = m.last_before(lblk, false) {
        if lblk < s + e.len {
            let head = lblk - s;
            m.put(s, Extent { len: head, ..e });
            m.put(lblk, Extent { pblk: e.pblk + head, len: e.len - head, unwritten: e.unwritten });
        }
    }
}

/// ext4_ext_try_to_merge: the extent at `lblk` with its predecessor, then
/// the result with its successor, when they continue each other.
fn try_merge(m: &mut impl Extents, lblk: u64) {
    let Some(e) = m.get(lblk) else { return };
    let mut start = lblk;
    let mut cur = e;
    if let Some((ps, p)) = m.last_before(lblk, false) {
        if ps + p.len == lblk && p.pblk + p.len == e.pblk && p.unwritten == e.unwritten && p.len + e.len <= e.max_len() {
            m.remove(lblk);
            cur = Extent { len: p.len + e.len, ..p };
            m.put(ps, cur);
            start = ps;
        }
    }
    let next = start + cur.len;
    if let Some(n) = m.get(next) {
        if cur.pblk + cur.len == n.pblk && n.unwritten == cur.unwritten && cur.len + n.len <= cur.max_len() {
            m.remove(next);
            m.put(start, Extent { len: cur.len + n.len, ..cur });
        }
    }
}

/// `ExtentMap::mark_written` on any `Extents`.
fn mark_written(m: &mut impl Extents, lblk: u64, n: u64) -> bool {
    split_at(m, lblk);
    split_at(m, lblk + n);
    let keys: Vec<u64> = m.starting_in(lblk, lblk + n).into_iter().filter(|(_, e)| e.unwritten).map(|(k, _)| k).collect();
    for &k in &keys {
        let e = m.get(k).expect("listed");
        m.put(k, Extent { unwritten: false, ..e });
    }
    // Merge what the splits and conversions left side by side.
    for k in m.last_starts(lblk + n, keys.len() + 3).into_iter().rev() {
        try_merge(m, k);
    }
    !keys.is_empty()
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

    /// The conversion through a `Window` leaves the tree exactly as the
    /// same rules run on the tree itself: random fallocated runs, written
    /// runs, conversions of one block or a few (over holes, written and
    /// unwritten extents, at either end of the file) and truncations,
    /// with extents short enough that merges stop at the length limits.
    #[test]
    fn conversion_in_a_window_matches_the_rules_on_the_tree() {
        let mut rng = crate::sim::SimRng::new(3);
        let (mut windowed, mut direct) = (ExtentMap::default(), ExtentMap::default());
        let span = 40_000u64;
        let mut next_pblk = 1u64;
        for step in 0..60_000 {
            let lblk = rng.below(span);
            match rng.below(100) {
                0..=4 => {
                    // fallocate or an allocating write over a hole.
                    let unwritten = rng.below(2) == 0;
                    let len = 1 + rng.below(if unwritten { 40_000 } else { 50 });
                    let end = (lblk..lblk + len).find(|&b| windowed.lookup(b).is_some()).unwrap_or(lblk + len);
                    if end > lblk {
                        // Sometimes physically after the run before, so it merges.
                        let pblk = match (rng.below(2), windowed.goal_for(lblk)) {
                            (0, Some(g)) if g >= next_pblk => g,
                            _ => next_pblk,
                        };
                        next_pblk = pblk + (end - lblk) + rng.below(3);
                        windowed.insert(lblk, pblk, end - lblk, unwritten);
                        direct.insert(lblk, pblk, end - lblk, unwritten);
                    }
                }
                5 => {
                    let cut = span - rng.below(200);
                    assert_eq!(windowed.remove_from(cut), direct.remove_from(cut));
                }
                _ => {
                    let n = if rng.below(4) == 0 { 1 + rng.below(6) } else { 1 };
                    let a = windowed.mark_written(lblk, n);
                    let b = mark_written(&mut direct, lblk, n);
                    assert_eq!(a, b, "step {step}: mark_written({lblk}, {n})");
                }
            }
            if step % 97 == 0 || windowed.count() < 50 {
                assert_eq!(windowed.iter().collect::<Vec<_>>(), direct.iter().collect::<Vec<_>>(), "step {step}");
            }
        }
        assert!(direct.count() > 1000, "the maps stayed small ({} extents)", direct.count());
        assert_eq!(windowed.iter().collect::<Vec<_>>(), direct.iter().collect::<Vec<_>>());
    }

    #[test]
    fn packed_extents_keep_their_length_and_state() {
        for (len, unwritten) in [(1, false), (INIT_MAX_LEN, false), (1, true), (UNWRITTEN_MAX_LEN, true)] {
            let e = Extent { pblk: (1 << 47) + 5, len, unwritten };
            assert_eq!(Packed::pack(e).unpack(), e);
        }
        // Saved as the map of `Extent`s it stands for.
        let mut m = ExtentMap::default();
        m.insert(7, 900, 3, true);
        let back: ExtentMap = BTreeMap::<u64, Extent>::from(m.clone()).into();
        assert_eq!(back.iter().collect::<Vec<_>>(), vec![(7, Extent { pblk: 900, len: 3, unwritten: true })]);
    }
}
