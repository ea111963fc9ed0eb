//! Pending discards (F2FS `discard_cmd_control`): block ranges waiting for
//! the discard thread, merged with their neighbours on insert as
//! `__update_discard_tree_range` does, issued in address order
//! (`__issue_discard_cmd_orderly`, DPOLICY_BG is ordered), only runs of at
//! least the policy's granularity. A block written again before its
//! discard goes out is cut from it (`f2fs_wait_discard_bio` punches the
//! command); the caller says which blocks are still safe to discard.
//!
//! Queued ranges are disjoint and never adjacent (insert merges them), so
//! the queue is exactly a set of blocks and each range is a maximal run of
//! it. It is kept as a bitmap over block addresses with a count of set bits
//! per chunk: queueing a block is a word update where the kernel's rb-tree
//! (and a `BTreeMap` here before) searches a tree per range, and a
//! checkpoint after random overwrites queues one range per released block.

use super::dirty_segmap::word_span;

/// Words per chunk of the bitmap's set-bit summary (32,768 blocks).
const CHUNK_WORDS: usize = 512;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(from = "Ranges", into = "Ranges")]
pub struct DiscardQueue {
    /// Bit `b` set: block `b` is queued. Grows to the highest block queued.
    words: Vec<u64>,
    /// Set bits per `CHUNK_WORDS` words, so a search skips empty chunks.
    chunk_bits: Vec<u32>,
    /// Maximal runs of set bits: the ranges the queue holds.
    runs: usize,
    /// Where the next ordered round starts (`dcc->next_pos`).
    next_pos: u64,
    /// `take`'s working memory, kept between rounds: an immediate round at
    /// paper size visits hundreds of thousands of ranges, and fresh vectors
    /// that size fault in new pages every time.
    scratch: Scratch,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    visit: Vec<(u64, u64)>,
    pieces: Vec<(u64, u32)>,
    order: Vec<usize>,
    chosen: Vec<bool>,
}

/// The saved form: start block -> length, as the queue was kept before the
/// bitmap (an aged state's bytes do not change).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Ranges {
    ranges: std::collections::BTreeMap<u64, u32>,
    next_pos: u64,
}

impl From<Ranges> for DiscardQueue {
    fn from(r: Ranges) -> Self {
        let mut q = DiscardQueue { next_pos: r.next_pos, ..Default::default() };
        for (s, l) in r.ranges {
            q.insert(s, l);
        }
        q
    }
}

impl From<DiscardQueue> for Ranges {
    fn from(q: DiscardQueue) -> Self {
        let mut ranges = std::collections::BTreeMap::new();
        let mut p = 0;
        while let Some(s) = q.next_set(p) {
            let e = q.next_clear(s);
            ranges.insert(s, (e - s) as u32);
            p = e;
        }
        Ranges { ranges, next_pos: q.next_pos }
    }
}

/// Ranges a bounded round visits at least, so small runs that never reach
/// the granularity cannot make each round cost the whole queue (an
/// unbounded `max` visits everything).
const MAX_VISIT: usize = 4096;
/// DEFAULT_DISCARD_GRANULARITY: runs this long or longer are issued largest first.
const DEFAULT_GRANULARITY: u32 = 16;

impl DiscardQueue {
    /// Queued ranges (`dcc->nr_discards` counts blocks; this counts runs).
    pub fn len(&self) -> usize {
        self.runs
    }

    pub fn is_empty(&self) -> bool {
        self.runs == 0
    }

    /// Drop everything queued, touching only the chunks that hold some.
    pub fn clear(&mut self) {
        for (ci, c) in self.chunk_bits.iter_mut().enumerate() {
            if *c != 0 {
                let end = ((ci + 1) * CHUNK_WORDS).min(self.words.len());
                self.words[ci * CHUNK_WORDS..end].fill(0);
                *c = 0;
            }
        }
        self.runs = 0;
    }

    fn word(&self, i: usize) -> u64 {
        self.words.get(i).copied().unwrap_or(0)
    }

    fn bit(&self, b: u64) -> bool {
        self.word((b / 64) as usize) >> (b % 64) & 1 == 1
    }

    /// Run starts (a set bit whose predecessor is clear) in `lo..hi`.
    fn starts_in(&self, lo: u64, hi: u64) -> usize {
        let mut n = 0;
        let mut wi = (lo / 64) as usize;
        while (wi as u64) * 64 < hi {
            let w = self.word(wi);
            let carry = if wi == 0 { 0 } else { self.word(wi - 1) >> 63 };
            let starts = w & !((w << 1) | carry) & word_span(wi as u64 * 64, lo, hi);
            n += starts.count_ones() as usize;
            wi += 1;
        }
        n
    }

    /// Set (`on`) or clear the bits `s..e`, keeping the run count: only
    /// starts in `s..=e` can change.
    fn assign(&mut self, s: u64, e: u64, on: bool) {
        if s >= e {
            return;
        }
        let need = e.div_ceil(64) as usize;
        if on && self.words.len() < need {
            self.words.resize(need, 0);
            self.chunk_bits.resize(need.div_ceil(CHUNK_WORDS), 0);
        }
        let window = (s, (e + 1).min(self.words.len() as u64 * 64));
        let before = self.starts_in(window.0, window.1);
        let (mut wi, last) = ((s / 64) as usize, ((e - 1) / 64) as usize);
        while wi <= last && wi < self.words.len() {
            let mask = word_span(wi as u64 * 64, s, e);
            let old = self.words[wi];
            let new = if on { old | mask } else { old & !mask };
            let c = &mut self.chunk_bits[wi / CHUNK_WORDS];
            *c = *c + new.count_ones() - old.count_ones();
            self.words[wi] = new;
            wi += 1;
        }
        self.runs = self.runs + self.starts_in(window.0, window.1) - before;
    }

    /// The first queued block at or after `p`.
    fn next_set(&self, p: u64) -> Option<u64> {
        let mut wi = (p / 64) as usize;
        if wi >= self.words.len() {
            return None;
        }
        let mut w = self.words[wi] & (!0u64 << (p % 64));
        loop {
            if w != 0 {
                return Some(wi as u64 * 64 + w.trailing_zeros() as u64);
            }
            wi += 1;
            // Skip chunks with nothing queued.
            while wi < self.words.len() && wi.is_multiple_of(CHUNK_WORDS) && self.chunk_bits[wi / CHUNK_WORDS] == 0 {
                wi += CHUNK_WORDS;
            }
            if wi >= self.words.len() {
                return None;
            }
            w = self.words[wi];
        }
    }

    /// The first block at or after `p` not queued.
    fn next_clear(&self, p: u64) -> u64 {
        let mut wi = (p / 64) as usize;
        let mut w = !self.word(wi) & (!0u64 << (p % 64));
        while w == 0 {
            wi += 1;
            w = !self.word(wi);
        }
        wi as u64 * 64 + w.trailing_zeros() as u64
    }

    /// Queue `len` blocks at `start`, merging with adjacent or overlapping ranges.
    pub fn insert(&mut self, start: u64, len: u32) {
        self.assign(start, start + len as u64, true);
    }

    /// Up to `max` runs to discard now. Each queued range visited (in
    /// address order from where the last round stopped) is cut to the
    /// blocks `safe` still allows; of the pieces of at least `granularity`
    /// blocks, those of DEFAULT_DISCARD_GRANULARITY (16) or more go first,
    /// largest first, then the smaller ones in address order, as
    /// `__issue_discard_cmd` walks its pending lists. The rest stay queued.
    /// `issue` gets each, in that order.
    pub fn take(&mut self, max: usize, granularity: u32, mut safe: impl FnMut(u64) -> bool, mut issue: impl FnMut(u64, u32)) {
        let limit = MAX_VISIT.max(max);
        let mut scratch = std::mem::take(&mut self.scratch);
        let Scratch { visit, pieces, order, chosen } = &mut scratch;
        visit.clear();
        // Ranges starting at or after next_pos, then those before it (a
        // range holding next_pos starts before it).
        let mut p = self.next_pos;
        if p > 0 && self.bit(p - 1) {
            p = self.next_clear(p);
        }
        for wrapped in [false, true] {
            while visit.len() < limit {
                let Some(s) = self.next_set(p) else { break };
                if wrapped && s >= self.next_pos {
                    break;
                }
                let e = self.next_clear(s);
                visit.push((s, e));
                p = e;
            }
            p = 0;
        }
        pieces.clear();
        for &(s, e) in visit.iter() {
            self.assign(s, e, false);
            cut(s, e, &mut safe, pieces);
            self.next_pos = e;
        }
        choose(pieces, max, granularity, order, chosen);
        for (&(rs, rl), _) in pieces.iter().zip(chosen.iter()).filter(|&(_, &c)| !c) {
            self.insert(rs, rl);
        }
        for &i in order.iter() {
            issue(pieces[i].0, pieces[i].1);
        }
        self.scratch = scratch;
    }

    /// `take`, collected.
    #[cfg(test)]
    fn take_all(&mut self, max: usize, granularity: u32, safe: impl FnMut(u64) -> bool) -> Vec<(u64, u32)> {
        let mut out = Vec::new();
        self.take(max, granularity, safe, |s, l| out.push((s, l)));
        out
    }
}

/// The pieces of blocks `s..e` that `safe` allows, in address order.
fn cut(s: u64, e: u64, safe: &mut impl FnMut(u64) -> bool, pieces: &mut Vec<(u64, u32)>) {
    let mut run: Option<(u64, u32)> = None;
    for b in s..e {
        if safe(b) {
            run = Some(match run {
                Some((rs, rl)) => (rs, rl + 1),
                None => (b, 1),
            });
        } else if let Some(r) = run.take() {
            pieces.push(r);
        }
    }
    pieces.extend(run);
}

/// Of `pieces` (in address order), the up to `max` to issue, as indices in
/// `order`: those of at least `granularity` blocks,
/// DEFAULT_DISCARD_GRANULARITY or more first, largest first, then the
/// smaller in address order. `chosen[i]` says whether piece `i` is one;
/// the rest stay queued.
fn choose(pieces: &[(u64, u32)], max: usize, granularity: u32, order: &mut Vec<usize>, chosen: &mut Vec<bool>) {
    order.clear();
    order.extend((0..pieces.len()).filter(|&i| pieces[i].1 >= granularity));
    // Equal lengths keep address order: the index is the last key, so an
    // unstable sort (which allocates nothing) gives the stable order.
    order.sort_unstable_by_key(|&i| if pieces[i].1 >= DEFAULT_GRANULARITY { (0, u32::MAX - pieces[i].1, i) } else { (1, 0, i) });
    order.truncate(max);
    chosen.clear();
    chosen.resize(pieces.len(), false);
    for &i in order.iter() {
        chosen[i] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The queue as a map of start -> length, kept the way the kernel's
    /// rb-tree keeps it (`__update_discard_tree_range`): the reference the
    /// bitmap must match range for range.
    #[derive(Default)]
    struct Model {
        ranges: BTreeMap<u64, u32>,
        next_pos: u64,
    }

    impl Model {
        fn insert(&mut self, start: u64, len: u32) {
            if len == 0 {
                return;
            }
            let (mut s, mut e) = (start, start + len as u64);
            if let Some((&ps, &pl)) = self.ranges.range(..=s).next_back() {
                if ps + pl as u64 >= s {
                    s = ps;
                    e = e.max(ps + pl as u64);
                    self.ranges.remove(&ps);
                }
            }
            while let Some((&ns, &nl)) = self.ranges.range(s..).next() {
                if ns > e {
                    break;
                }
                e = e.max(ns + nl as u64);
                self.ranges.remove(&ns);
            }
            self.ranges.insert(s, (e - s) as u32);
        }

        fn take(&mut self, max: usize, granularity: u32, mut safe: impl FnMut(u64) -> bool) -> Vec<(u64, u32)> {
            let starts: Vec<u64> = self
                .ranges
                .range(self.next_pos..)
                .chain(self.ranges.range(..self.next_pos))
                .map(|(&s, _)| s)
                .take(MAX_VISIT.max(max))
                .collect();
            let mut pieces = Vec::new();
            for s in starts {
                let len = self.ranges.remove(&s).expect("listed");
                cut(s, s + len as u64, &mut safe, &mut pieces);
                self.next_pos = s + len as u64;
            }
            // Cutting and choosing are shared; what differs is the container.
            let (mut order, mut chosen) = (Vec::new(), Vec::new());
            choose(&pieces, max, granularity, &mut order, &mut chosen);
            for (&(rs, rl), _) in pieces.iter().zip(&chosen).filter(|&(_, &c)| !c) {
                self.ranges.insert(rs, rl);
            }
            order.into_iter().map(|i| pieces[i]).collect()
        }
    }

    fn ranges_of(q: &DiscardQueue) -> BTreeMap<u64, u32> {
        Ranges::from(q.clone()).ranges
    }

    #[test]
    fn matches_the_range_tree_under_random_rounds() {
        let mut rng = crate::sim::SimRng::new(11);
        for case in 0..40 {
            let span = [300, 5000, 70_000][case % 3];
            let (mut q, mut m) = (DiscardQueue::default(), Model::default());
            for step in 0..300 {
                match rng.below(10) {
                    0..=4 => {
                        let runs: Vec<(u64, u32)> = (0..rng.below(40))
                            .map(|_| {
                                let longest = 1 + rng.below(600);
                                (rng.below(span), rng.below(longest) as u32)
                            })
                            .collect();
                        for &(s, l) in &runs {
                            q.insert(s, l);
                            m.insert(s, l);
                        }
                    }
                    5..=8 => {
                        let max = [1, 3, 8, 64, usize::MAX][rng.below(5) as usize];
                        let gran = [1, 4, 16, 512][rng.below(4) as usize];
                        let (hole, every) = (rng.below(span), 2 + rng.below(30));
                        let safe = |b: u64| b != hole && !b.is_multiple_of(every);
                        assert_eq!(q.take_all(max, gran, safe), m.take(max, gran, safe), "case {case} step {step}");
                    }
                    _ => {
                        if rng.below(4) == 0 {
                            q.clear();
                            m.ranges.clear();
                        }
                    }
                }
                assert_eq!(q.len(), m.ranges.len(), "case {case} step {step}");
                assert_eq!(q.next_pos, m.next_pos, "case {case} step {step}");
            }
            assert_eq!(ranges_of(&q), m.ranges, "case {case}");
            // The saved form is the range map, and loads back to the same queue.
            let back: DiscardQueue = bincode::deserialize(&bincode::serialize(&q).unwrap()).unwrap();
            assert_eq!((ranges_of(&back), back.len(), back.next_pos), (m.ranges.clone(), q.len(), q.next_pos));
            let old = bincode::serialize(&Ranges { ranges: m.ranges.clone(), next_pos: m.next_pos }).unwrap();
            assert_eq!(bincode::serialize(&q).unwrap(), old, "case {case}: aged-state bytes");
        }
    }

    #[test]
    fn merges_neighbours_and_issues_in_order() {
        let mut q = DiscardQueue::default();
        q.insert(100, 10);
        q.insert(110, 5);
        q.insert(90, 10);
        q.insert(200, 2);
        assert_eq!(q.len(), 2);
        // Block 105 was written again: the range splits around it.
        let got = q.take_all(8, 4, |b| b != 105);
        assert_eq!(got, vec![(90, 15), (106, 9)]);
        // Runs of 16 or more go largest first.
        let mut r = DiscardQueue::default();
        r.insert(0, 20);
        r.insert(100, 40);
        r.insert(200, 3);
        assert_eq!(r.take_all(8, 1, |_| true), vec![(100, 40), (0, 20), (200, 3)]);
        // The 2-block run is below the granularity and stays queued.
        assert_eq!(q.len(), 1);
        assert_eq!(q.take_all(8, 1, |_| true), vec![(200, 2)]);
        assert!(q.is_empty());
    }

    #[test]
    fn max_limits_a_round_and_the_next_goes_on() {
        let mut q = DiscardQueue::default();
        for i in 0..5 {
            q.insert(i * 100, 20);
        }
        assert_eq!(q.take_all(2, 16, |_| true), vec![(0, 20), (100, 20)]);
        assert_eq!(q.take_all(2, 16, |_| true), vec![(200, 20), (300, 20)]);
        assert_eq!(q.len(), 1);
    }
}
