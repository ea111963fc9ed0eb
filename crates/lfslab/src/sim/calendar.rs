//! A single server's reservations as busy intervals, so a request can take
//! the earliest free gap at or after its arrival. lfslab runs a call whole
//! at its start instant, so one thread's later commands may be reserved
//! before another thread's earlier ones; a "next free instant" alone would
//! queue the earlier request behind the later one. Intervals that ended
//! more than `HORIZON` before the latest arrival are forgotten (an arrival
//! that far back is treated as finding the server free).

use super::{SimDuration, SimTime};
use std::collections::BTreeMap;

const HORIZON: SimDuration = SimDuration(1_000_000_000);

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Calendar {
    /// start -> end of busy intervals, disjoint, adjacent ones merged.
    busy: BTreeMap<SimTime, SimTime>,
    latest: SimTime,
}

impl Calendar {
    /// The start of the earliest gap of `len` at or after `at` (not reserved).
    pub fn fit(&self, at: SimTime, len: SimDuration) -> SimTime {
        let mut start = at;
        // The interval that may cover `at`, then the ones after it.
        if let Some((_, &e)) = self.busy.range(..=at).next_back() {
            start = start.max(e);
        }
        for (&s, &e) in self.busy.range(at..) {
            if s >= start + len {
                break;
            }
            start = start.max(e);
        }
        start
    }

    /// Reserve `len` at the earliest gap at or after `at`; returns when the
    /// reservation ends.
    pub fn reserve(&mut self, at: SimTime, len: SimDuration) -> SimTime {
        let start = self.fit(at, len);
        let end = start + len;
        // Merge with neighbours that touch.
        let (mut s, mut e) = (start, end);
        if let Some((&ps, &pe)) = self.busy.range(..=start).next_back() {
            if pe == start {
                self.busy.remove(&ps);
                s = ps;
            }
        }
        if let Some(ne) = self.busy.remove(&end) {
            e = ne;
        }
        self.busy.insert(s, e);
        if at > self.latest {
            self.latest = at;
            let cut = SimTime(self.latest.0.saturating_sub(HORIZON.0));
            while let Some((&fs, &fe)) = self.busy.first_key_value() {
                if fe >= cut {
                    break;
                }
                self.busy.remove(&fs);
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
}
