//! IPLFS's blocks waiting for a discard: a 512-bit bitmap per segment that
//! holds one, found by segment number through a `SlotIndex`. At paper size
//! a checkpoint gathers 5% of the flash (3.2 M blocks) spread over the
//! segments that hold live data, of the volume's 128 K, and the `BTreeMap`
//! this replaces spent the invalidation's time in its search
//! (docs/performance.md, thirty-seventh session). A checkpoint takes the
//! bitmaps in segment order, as the map gave them.

use crate::fs::layout::BLOCKS_PER_SEG;
use crate::slot_index::SlotIndex;

const WORDS: usize = BLOCKS_PER_SEG as usize / 64;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct SegBitmaps {
    /// (segment, bitmap) in the order segments were first marked.
    segs: Vec<(u32, [u64; WORDS])>,
    /// Segment number -> its place in `segs`.
    index: SlotIndex,
}

/// The index's key of a slot: its segment number.
fn segno_of(segs: &[(u32, [u64; WORDS])]) -> impl Fn(u32) -> u64 + '_ {
    move |s| segs[s as usize].0 as u64
}

impl SegBitmaps {
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// Mark block `off` of segment `segno`.
    pub fn mark(&mut self, segno: u32, off: usize) {
        let slot = match self.index.get(segno as u64, segno_of(&self.segs)) {
            Some(s) => s as usize,
            None => {
                let s = self.segs.len();
                self.segs.push((segno, [0; WORDS]));
                self.index.insert(segno as u64, s as u32, segno_of(&self.segs));
                s
            }
        };
        self.segs[slot].1[off / 64] |= 1 << (off % 64);
    }

    /// Every marked segment's bitmap, in segment order, to `f`; the set is
    /// left empty, its memory kept for the next checkpoint.
    pub fn drain_sorted(&mut self, mut f: impl FnMut(u32, &[u64; WORDS])) {
        self.index.clear();
        self.segs.sort_unstable_by_key(|&(segno, _)| segno);
        for (segno, map) in &self.segs {
            f(*segno, map);
        }
        self.segs.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn marks_match_a_map_in_segment_order() {
        let (mut s, mut model) = (SegBitmaps::default(), BTreeMap::<u32, [u64; WORDS]>::new());
        let mut x = 1u64;
        for round in 0..3 {
            for _ in 0..5_000 {
                x = crate::sim::mix64(x);
                let (segno, off) = ((x % 700) as u32 * 37, (x >> 20) as usize % BLOCKS_PER_SEG as usize);
                s.mark(segno, off);
                model.entry(segno).or_insert([0; WORDS])[off / 64] |= 1 << (off % 64);
            }
            assert!(!s.is_empty());
            let want: Vec<_> = std::mem::take(&mut model).into_iter().collect();
            let mut got = Vec::new();
            s.drain_sorted(|segno, map| got.push((segno, *map)));
            assert_eq!(got, want, "round {round}");
            assert!(s.is_empty());
        }
    }
}
