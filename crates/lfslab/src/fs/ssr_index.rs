//! The SSR victim search a word at a time. `get_victim_by_default` in SSR
//! mode (fs/f2fs/gc.c) visits up to `max_victim_search` (4096) dirty
//! segments of a type from `last_victim` (hot data and node types from
//! segment 0, under noheap), wrapping once, and takes the first one of
//! least `ckpt_valid_blocks`. At high utilisation an SSR
//! segment has few free blocks, so a log needs a new one every few blocks
//! and that visit, one segment entry per candidate, becomes most of the
//! cost of a write. This index keeps, for every 64-segment word of each
//! type's dirty map, the least cost among its segments and where it is,
//! and the same for every group of 64 words with the group's dirty count,
//! so the same search reads one entry per group it passes whole and one
//! per word at its ends: the same victim, the same stopping point, the
//! same `last_victim`.

use super::dirty_segmap::{word_span, DirtySegmap};

/// No dirty segment in the word.
const EMPTY: u16 = u16::MAX;
/// Words per group (4,096 segments).
const GROUP_WORDS: usize = 64;
/// No dirty segment in the group.
const EMPTY_GROUP: u32 = u32::MAX;

/// Built on the first SSR search (only SSR uses it) and kept in step by
/// every change to a dirty map or to a dirty segment's cost.
#[derive(Clone, Debug)]
pub struct SsrIndex {
    /// Per segment: its cost (`ckpt_valid_blocks`), current while it is dirty.
    costs: Vec<u16>,
    /// Per log type, per word of its dirty map: the least `cost << 6 | bit`
    /// over the word's dirty segments (the first of least cost), or EMPTY.
    word_min: [Vec<u16>; 6],
    /// Per log type, per group of GROUP_WORDS words: the least
    /// `cost << 12 | offset` over the group's dirty segments, or EMPTY_GROUP.
    group_min: [Vec<u32>; 6],
    /// Per log type, per group: its dirty segments.
    group_count: [Vec<u16>; 6],
    /// Per log type, per word: its dirty segments as last summarised.
    word_count: [Vec<u8>; 6],
}

/// Whether a segment of `cost` would be the best so far: under `limit`
/// and strictly cheaper (the first of least cost wins).
fn improves(best: Option<(u16, u32)>, cost: u16, limit: u16) -> bool {
    cost < limit && best.is_none_or(|(c, _)| cost < c)
}

/// What one search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsrSearch {
    /// The first visited segment of least cost that `usable` accepts.
    pub victim: Option<u32>,
    /// The segment at which the visit count reached `max_search`.
    pub last: u32,
    /// Whether the search had wrapped to the start of the volume then.
    pub wrapped: bool,
}

impl SsrIndex {
    pub fn build(dirty: &[DirtySegmap; 6], cost: impl Fn(u32) -> u16) -> Self {
        let len = dirty[0].segments();
        let costs: Vec<u16> = (0..len).map(&cost).collect();
        let words = (len as usize).div_ceil(64);
        let groups = words.div_ceil(GROUP_WORDS);
        let mut ix = SsrIndex {
            costs,
            word_min: std::array::from_fn(|_| vec![EMPTY; words]),
            group_min: std::array::from_fn(|_| vec![EMPTY_GROUP; groups]),
            group_count: std::array::from_fn(|_| vec![0; groups]),
            word_count: std::array::from_fn(|_| vec![0; words]),
        };
        for (t, d) in dirty.iter().enumerate() {
            for wi in 0..words {
                ix.word_min[t][wi] = ix.least_in(wi, d.word(wi));
                ix.word_count[t][wi] = d.word(wi).count_ones() as u8;
            }
            for gi in 0..groups {
                ix.summarise_group(t, gi, d);
            }
        }
        ix
    }

    /// A word's entry as its group ranks it: `cost << 12 | offset`.
    fn in_group(wi: usize, m: u16) -> u32 {
        if m == EMPTY {
            return EMPTY_GROUP;
        }
        ((m >> 6) as u32) << 12 | ((wi % GROUP_WORDS) as u32) << 6 | (m & 63) as u32
    }

    fn summarise_group(&mut self, t: usize, gi: usize, dirty: &DirtySegmap) {
        let words = gi * GROUP_WORDS..((gi + 1) * GROUP_WORDS).min(self.word_min[t].len());
        let (mut least, mut n) = (EMPTY_GROUP, 0);
        for wi in words {
            least = least.min(Self::in_group(wi, self.word_min[t][wi]));
            n += dirty.word(wi).count_ones();
        }
        self.group_min[t][gi] = least;
        self.group_count[t][gi] = n as u16;
    }

    pub fn cost(&self, segno: u32) -> u16 {
        self.costs[segno as usize]
    }

    /// Segment `segno` of type `t` changed its cost or its place in `dirty`.
    pub fn update(&mut self, t: usize, segno: u32, cost: u16, dirty: &DirtySegmap) {
        self.costs[segno as usize] = cost;
        let wi = (segno / 64) as usize;
        let gi = wi / GROUP_WORDS;
        let (old, new) = (self.word_min[t][wi], self.least_in(wi, dirty.word(wi)));
        self.word_min[t][wi] = new;
        let n = dirty.word(wi).count_ones() as u8;
        let count = &mut self.group_count[t][gi];
        *count = *count + n as u16 - self.word_count[t][wi] as u16;
        self.word_count[t][wi] = n;
        // The group's least moves with this word's only if it got below it,
        // or if this word held it and it rose (entries are unique by offset).
        let (old, new) = (Self::in_group(wi, old), Self::in_group(wi, new));
        let least = &mut self.group_min[t][gi];
        if new < *least {
            *least = new;
        } else if old == *least && new > old {
            self.summarise_group(t, gi, dirty);
        }
    }

    fn least_in(&self, wi: usize, mut bits: u64) -> u16 {
        let mut least = EMPTY;
        while bits != 0 {
            let b = bits.trailing_zeros();
            // A cost is at most BLOCKS_PER_SEG (512): 10 bits, then the 6-bit offset.
            least = least.min(self.costs[wi * 64 + b as usize] << 6 | b as u16);
            bits &= bits - 1;
        }
        least
    }

    /// Visit `max_search` dirty segments of type `t` from `last_victim` to
    /// the end, then from 0, and keep the first of least cost below
    /// `limit` that `usable` accepts (`usable` is asked only of a segment
    /// that would be the best so far, as the kernel's `sec_usage_check`).
    /// `max_search` must not exceed the dirty count.
    pub fn search(
        &self,
        t: usize,
        dirty: &DirtySegmap,
        last_victim: u32,
        max_search: u32,
        limit: u16,
        usable: impl Fn(u32) -> bool,
    ) -> SsrSearch {
        assert!(max_search > 0 && max_search <= dirty.count(), "SSR search of {max_search} among {} dirty segments", dirty.count());
        let mut left = max_search;
        let mut best: Option<(u16, u32)> = None;
        let group_segs = GROUP_WORDS as u32 * 64;
        for (wrapped, from, to) in [(false, last_victim, dirty.segments()), (true, 0, last_victim)] {
            let mut wi = (from / 64) as usize;
            while (wi as u32) * 64 < to {
                // A group inside the range whose segments are all visited
                // (the stop is beyond it): its entry answers for it.
                let gbase = wi as u32 * 64;
                if wi.is_multiple_of(GROUP_WORDS) && gbase >= from && gbase + group_segs <= to {
                    let gi = wi / GROUP_WORDS;
                    let n = self.group_count[t][gi] as u32;
                    if n < left {
                        let least = self.group_min[t][gi];
                        let cost = (least >> 12) as u16;
                        if n > 0 && improves(best, cost, limit) {
                            let segno = gbase + (least & 4095);
                            if usable(segno) {
                                best = Some((cost, segno));
                            } else {
                                // Its best cannot be used: the group's words one by one.
                                for w in wi..wi + GROUP_WORDS {
                                    self.visit_word(t, w, dirty.word(w), limit, &mut best, &usable);
                                }
                            }
                        }
                        left -= n;
                        wi += GROUP_WORDS;
                        continue;
                    }
                }
                let whole = dirty.word(wi);
                let base = wi as u32 * 64;
                let mut bits = whole & word_span(base as u64, from as u64, to as u64);
                let n = bits.count_ones();
                if n > left {
                    // Only the first `left` of them are visited.
                    let mut above = bits;
                    for _ in 0..left {
                        above &= above - 1;
                    }
                    bits &= !above;
                }
                if bits != 0 {
                    if bits != whole {
                        self.visit_each(bits, base, limit, &mut best, &usable);
                    } else {
                        self.visit_word(t, wi, bits, limit, &mut best, &usable);
                    }
                    left -= bits.count_ones();
                    if left == 0 {
                        let last = base + 63 - bits.leading_zeros();
                        return SsrSearch { victim: best.map(|(_, s)| s), last, wrapped };
                    }
                }
                wi += 1;
            }
        }
        unreachable!("an SSR search visits every dirty segment before it runs out")
    }

    /// All of word `wi`'s dirty segments (`bits`), answered by its entry.
    fn visit_word(&self, t: usize, wi: usize, bits: u64, limit: u16, best: &mut Option<(u16, u32)>, usable: &impl Fn(u32) -> bool) {
        let least = self.word_min[t][wi];
        let cost = least >> 6;
        if bits != 0 && improves(*best, cost, limit) {
            // The word's first least segment; if it cannot be used, the
            // next best of the word may.
            let segno = wi as u32 * 64 + (least & 63) as u32;
            if usable(segno) {
                *best = Some((cost, segno));
            } else {
                self.visit_each(bits, wi as u32 * 64, limit, best, usable);
            }
        }
    }

    /// The segments of `bits` one by one, in order.
    fn visit_each(&self, mut bits: u64, base: u32, limit: u16, best: &mut Option<(u16, u32)>, usable: &impl Fn(u32) -> bool) {
        while bits != 0 {
            let segno = base + bits.trailing_zeros();
            let cost = self.costs[segno as usize];
            if improves(*best, cost, limit) && usable(segno) {
                *best = Some((cost, segno));
            }
            bits &= bits - 1;
        }
    }

    /// The index against the maps and costs it summarises.
    pub fn check(&self, dirty: &[DirtySegmap; 6], cost: impl Fn(u32) -> u16) -> Result<(), String> {
        let fresh = SsrIndex::build(dirty, &cost);
        for (t, (have, want)) in self.word_min.iter().zip(&fresh.word_min).enumerate() {
            if let Some(wi) = (0..have.len()).find(|&i| have[i] != want[i]) {
                return Err(format!("SSR index of type {t}, segments {}..{}: {:#x}, the maps give {:#x}", wi * 64, wi * 64 + 64, have[wi], want[wi]));
            }
        }
        for t in 0..6 {
            let (have, want) = ((&self.group_min[t], &self.group_count[t]), (&fresh.group_min[t], &fresh.group_count[t]));
            if let Some(gi) = (0..have.0.len()).find(|&i| (have.0[i], have.1[i]) != (want.0[i], want.1[i])) {
                return Err(format!(
                    "SSR index of type {t}, group {gi}: ({:#x}, {}), the maps give ({:#x}, {})",
                    have.0[gi], have.1[gi], want.0[gi], want.1[gi]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search against the kernel's loop, segment by segment, on random
    /// maps, costs, unusable segments and starting points.
    #[test]
    fn search_matches_the_segment_by_segment_scan() {
        let mut rng = crate::sim::SimRng::new(5);
        for case in 0..300 {
            // Small maps, and maps of several 4,096-segment groups.
            let len = 1 + rng.below([700, 20_000][case % 2]) as u32;
            let mut dirty: [DirtySegmap; 6] = std::array::from_fn(|_| DirtySegmap::new(len));
            let mut costs: Vec<u16> = (0..len).map(|_| rng.below(40) as u16 * [1, 13][case / 2 % 2]).collect();
            let density = 1 + rng.below(10);
            for s in 0..len {
                if rng.below(10) < density {
                    dirty[rng.below(6) as usize].insert(s);
                }
            }
            let mut ix = SsrIndex::build(&dirty, |s| costs[s as usize]);
            // Move a few segments between maps through `update`.
            for _ in 0..rng.below(20) {
                let (s, t) = (rng.below(len as u64) as u32, rng.below(6) as usize);
                for (u, d) in dirty.iter_mut().enumerate() {
                    if d.contains(s) {
                        d.remove(s);
                        ix.update(u, s, costs[s as usize], d);
                    }
                }
                dirty[t].insert(s);
                ix.update(t, s, costs[s as usize], &dirty[t]);
            }
            // Change dirty segments' costs through `update`: down (as a
            // checkpoint lowers them), to 0, or up.
            for _ in 0..rng.below(60) {
                let s = rng.below(len as u64) as u32;
                if let Some(u) = (0..6).find(|&u| dirty[u].contains(s)) {
                    let c = costs[s as usize];
                    costs[s as usize] = match rng.below(3) {
                        0 => c + rng.below(5) as u16,
                        1 => 0,
                        _ => c - rng.below(c as u64 + 1) as u16,
                    };
                    ix.update(u, s, costs[s as usize], &dirty[u]);
                }
            }
            ix.check(&dirty, |s| costs[s as usize]).unwrap();
            let banned = rng.below(len as u64) as u32;
            // One open section, or many segments a word's or a group's best may fall on.
            let every = [u32::MAX, 5][case / 4 % 2];
            let usable = |s: u32| s / 3 != banned / 3 && !s.is_multiple_of(every);
            let limit = [20u16, 400, 512][case % 3];
            for (t, d) in dirty.iter().enumerate() {
                if d.count() == 0 {
                    continue;
                }
                let max = 1 + rng.below(d.count() as u64) as u32;
                let lv = rng.below(len as u64) as u32;
                // The loop `get_victim_by_default` runs.
                let (mut offset, mut end, mut n, mut wrapped) = (lv, len, 0, false);
                let mut best: Option<(u16, u32)> = None;
                let want = loop {
                    let Some(s) = d.find_next(offset, end) else {
                        assert!(!wrapped && lv != 0);
                        (offset, end, wrapped) = (0, lv, true);
                        continue;
                    };
                    offset = s + 1;
                    n += 1;
                    let c = costs[s as usize];
                    if c < limit && best.is_none_or(|(b, _)| c < b) && usable(s) {
                        best = Some((c, s));
                    }
                    if n == max {
                        break SsrSearch { victim: best.map(|(_, s)| s), last: s, wrapped };
                    }
                };
                assert_eq!(ix.search(t, d, lv, max, limit, usable), want, "case {case} type {t} from {lv} for {max}");
            }
        }
    }
}
