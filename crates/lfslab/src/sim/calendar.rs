//! A single server's reservations as busy intervals, so a request can take
//! the earliest free gap at or after its arrival. lfslab runs a call whole
//! at its start instant, so one thread's later commands may be reserved
//! before another thread's earlier ones; a "next free instant" alone would
//! queue the earlier request behind the later one. Intervals that ended
//! more than `HORIZON` before the latest arrival are forgotten (an arrival
//! that far back is treated as finding the server free).

use super::{SimDuration, SimTime};
use std::collections::VecDeque;

const HORIZON: SimDuration = SimDuration(1_000_000_000);

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Calendar {
    /// (start, end) of busy intervals in time order, disjoint, adjacent
    /// ones merged. A sorted deque, not a tree: requests land near the
    /// latest reservations and old ones leave from the front, so a binary
    /// search and a short shift beat a tree's two-sided range search.
    busy: VecDeque<(SimTime, SimTime)>,
    latest: SimTime,
}

impl Calendar {
    /// The start of the earliest gap of `len` at or after `at` (not reserved).
    pub fn fit(&self, at: SimTime, len: SimDuration) -> SimTime {
        // Free from `at` on: everything reserved has ended (the usual case
        // of a core asked about the present).
        if self.busy.back().is_none_or(|&(_, e)| e <= at) {
            return at;
        }
        // The interval that may cover `at`, then the ones after it.
        let i = self.after(at);
        let mut start = at;
        if i > 0 {
            start = start.max(self.busy[i - 1].1);
        }
        for &(s, e) in self.busy.range(i..) {
            if s >= start + len {
                break;
            }
            start = start.max(e);
        }
        start
    }

    /// The index of the first interval starting after `t`. Requests land
    /// near the latest reservations, so the search gallops back from the
    /// end before it bisects.
    fn after(&self, t: SimTime) -> usize {
        let le = |i: usize| self.busy[i].0 <= t;
        // The answer is in [lo, hi]: busy[hi..] all start after `t`.
        let (mut lo, mut hi, mut step) = (0, self.busy.len(), 1);
        while hi > 0 {
            let Some(p) = hi.checked_sub(step) else { break };
            if le(p) {
                lo = p + 1;
                break;
            }
            hi = p;
            step *= 2;
        }
        while lo < hi {
            let mid = (lo + hi) / 2;
            if le(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Reserve `len` at the earliest gap at or after `at`; returns when the
    /// reservation ends.
    pub fn reserve(&mut self, at: SimTime, len: SimDuration) -> SimTime {
        let start = self.fit(at, len);
        let end = start + len;
        // Where it goes, merged with neighbours that touch (an empty
        // reservation holds nothing).
        if len.0 > 0 {
            let mut i = self.after(start);
            let (mut s, mut e) = (start, end);
            if i > 0 && self.busy[i - 1].1 == start {
                i -= 1;
                s = self.busy.remove(i).expect("in range").0;
            }
            if i < self.busy.len() && self.busy[i].0 == end {
                e = self.busy.remove(i).expect("in range").1;
            }
            self.busy.insert(i, (s, e));
        }
        if at > self.latest {
            self.latest = at;
            let cut = SimTime(self.latest.0.saturating_sub(HORIZON.0));
            while self.busy.front().is_some_and(|&(_, fe)| fe < cut) {
                self.busy.pop_front();
            }
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_earlier_request_fills_a_gap_before_a_later_reservation() {
        let mut c = Calendar::default();
        let us = |n: u64| SimTime(n * 1000);
        let d = SimDuration(10_000);
        assert_eq!(c.reserve(us(1000), d), us(1010));
        // Arrives earlier, finds the server free.
        assert_eq!(c.reserve(us(100), d), us(110));
        // Arrives inside the first reservation: after it.
        assert_eq!(c.reserve(us(1005), d), us(1020));
        // A gap of 5 us is too short for 10: goes after.
        assert_eq!(c.reserve(us(95), d), us(120));
        assert_eq!(c.reserve(us(0), SimDuration(5_000)), us(5));
    }

    /// Random reservations, out of time order, agree with a plain list of
    /// reserved intervals searched for the first gap (no horizon reached).
    #[test]
    fn reservations_agree_with_a_brute_force_search() {
        let mut rng = crate::sim::SimRng::new(5);
        let mut c = Calendar::default();
        let mut taken: Vec<(u64, u64)> = Vec::new();
        for step in 0..3000 {
            let at = rng.below(200_000);
            let len = rng.below(300);
            let mut start = at;
            while let Some(&(_, e)) = taken.iter().find(|&&(s, e)| if len == 0 { s <= start && start < e } else { s < start + len && e > start }) {
                start = e;
            }
            assert_eq!(c.reserve(SimTime(at), SimDuration(len)), SimTime(start + len), "step {step}");
            if len > 0 {
                taken.push((start, start + len));
            }
        }
    }
}
