//! Pending discards (F2FS `discard_cmd_control`): block ranges waiting for
//! the discard thread, merged with their neighbours on insert as
//! `__update_discard_tree_range` does, issued in address order
//! (`__issue_discard_cmd_orderly`, DPOLICY_BG is ordered), only runs of at
//! least the policy's granularity. A block written again before its
//! discard goes out is cut from it (`f2fs_wait_discard_bio` punches the
//! command); the caller says which blocks are still safe to discard.

use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DiscardQueue {
    /// start block -> length, disjoint and not adjacent.
    ranges: BTreeMap<u64, u32>,
    /// Where the next ordered round starts (`dcc->next_pos`).
    next_pos: u64,
}

/// Ranges a bounded round visits at least, so small runs that never reach
/// the granularity cannot make each round cost the whole queue (an
/// unbounded `max` visits everything).
const MAX_VISIT: usize = 4096;
/// DEFAULT_DISCARD_GRANULARITY: runs this long or longer are issued largest first.
const DEFAULT_GRANULARITY: u32 = 16;

impl DiscardQueue {
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    /// Queue `len` blocks at `start`, merging with adjacent or overlapping ranges.
    pub fn insert(&mut self, start: u64, len: u32) {
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
        // Ranges are at most u32 long; split the rare longer merge.
        while e - s > u32::MAX as u64 {
            self.ranges.insert(s, u32::MAX);
            s += u32::MAX as u64;
        }
        self.ranges.insert(s, (e - s) as u32);
    }

    /// Queue many ranges at once: the same queue as inserting them one by
    /// one. Into an empty queue (immediate discard drains it at every
    /// checkpoint) they are merged in one sorted pass and the tree is built
    /// in bulk, instead of a search per range: a checkpoint after random
    /// overwrites queues one range per released block.
    pub fn extend(&mut self, runs: &[(u64, u32)]) {
        if !self.ranges.is_empty() || runs.iter().any(|&(_, l)| l == 0) {
            for &(s, l) in runs {
                self.insert(s, l);
            }
            return;
        }
        let mut sorted = runs.to_vec();
        sorted.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(sorted.len());
        for (s, l) in sorted {
            let e = s + l as u64;
            match merged.last_mut() {
                Some((_, pe)) if *pe >= s => *pe = (*pe).max(e),
                _ => merged.push((s, e)),
            }
        }
        if merged.iter().any(|&(s, e)| e - s > u32::MAX as u64) {
            // A merge longer than a range holds: the one-by-one path splits it.
            for &(s, l) in runs {
                self.insert(s, l);
            }
            return;
        }
        self.ranges = merged.into_iter().map(|(s, e)| (s, (e - s) as u32)).collect();
    }

    /// Up to `max` runs to discard now. Each queued range visited (in
    /// address order from where the last round stopped) is cut to the
    /// blocks `safe` still allows; of the pieces of at least `granularity`
    /// blocks, those of DEFAULT_DISCARD_GRANULARITY (16) or more go first,
    /// largest first, then the smaller ones in address order, as
    /// `__issue_discard_cmd` walks its pending lists. The rest stay queued.
    pub fn take(&mut self, max: usize, granularity: u32, mut safe: impl FnMut(u64) -> bool) -> Vec<(u64, u32)> {
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
            let mut run: Option<(u64, u32)> = None;
            for b in s..s + len as u64 {
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
            self.next_pos = s + len as u64;
        }
        let mut order: Vec<usize> = (0..pieces.len()).filter(|&i| pieces[i].1 >= granularity).collect();
        // Stable: equal lengths keep address order.
        order.sort_by_key(|&i| if pieces[i].1 >= DEFAULT_GRANULARITY { (0, u32::MAX - pieces[i].1) } else { (1, 0) });
        order.truncate(max);
        let mut chosen = vec![false; pieces.len()];
        for &i in &order {
            chosen[i] = true;
        }
        for (i, &(rs, rl)) in pieces.iter().enumerate() {
            if !chosen[i] {
                self.ranges.insert(rs, rl);
            }
        }
        order.into_iter().map(|i| pieces[i]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_extend_equals_one_by_one() {
        let mut rng = crate::sim::SimRng::new(9);
        for round in 0..50 {
            let runs: Vec<(u64, u32)> = (0..rng.below(300)).map(|_| (rng.below(5000), 1 + rng.below(40) as u32)).collect();
            let mut one = DiscardQueue::default();
            let mut bulk = DiscardQueue::default();
            if round % 3 == 0 {
                // A queue already holding ranges takes the one-by-one path.
                one.insert(2500, 7);
                bulk.insert(2500, 7);
            }
            for &(s, l) in &runs {
                one.insert(s, l);
            }
            bulk.extend(&runs);
            assert_eq!(one.ranges, bulk.ranges, "round {round}");
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
        let got = q.take(8, 4, |b| b != 105);
        assert_eq!(got, vec![(90, 15), (106, 9)]);
        // Runs of 16 or more go largest first.
        let mut r = DiscardQueue::default();
        r.insert(0, 20);
        r.insert(100, 40);
        r.insert(200, 3);
        assert_eq!(r.take(8, 1, |_| true), vec![(100, 40), (0, 20), (200, 3)]);
        // The 2-block run is below the granularity and stays queued.
        assert_eq!(q.len(), 1);
        assert_eq!(q.take(8, 1, |_| true), vec![(200, 2)]);
        assert!(q.is_empty());
    }

    #[test]
    fn max_limits_a_round_and_the_next_goes_on() {
        let mut q = DiscardQueue::default();
        for i in 0..5 {
            q.insert(i * 100, 20);
        }
        assert_eq!(q.take(2, 16, |_| true), vec![(0, 20), (100, 20)]);
        assert_eq!(q.take(2, 16, |_| true), vec![(200, 20), (300, 20)]);
        assert_eq!(q.len(), 1);
    }
}
