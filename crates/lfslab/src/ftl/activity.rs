//! NAND activity over simulated time, bucketed by when the work completes
//! (not when it was issued: GC issues a whole victim's programs at once,
//! but they finish over the following milliseconds).

use crate::sim::{SimDuration, SimTime};

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ActivityLog {
    start: SimTime,
    interval: SimDuration,
    /// Slots programmed (host, GC and padding) per bucket.
    pub program_slots: Vec<u64>,
    /// GC victims whose erase completed per bucket.
    pub gc_victims: Vec<u64>,
    /// The bucket of the last instant looked up: [from, to) in ns since
    /// `start`, and its index. Programs finish close together, and this
    /// spares a 64-bit division on each.
    #[serde(skip)]
    last: (u64, u64, usize),
}

impl ActivityLog {
    pub fn new(start: SimTime, interval: SimDuration) -> Self {
        assert!(interval.ns() > 0, "activity interval must be positive");
        ActivityLog { start, interval, program_slots: Vec::new(), gc_victims: Vec::new(), last: (0, 0, 0) }
    }

    fn index(&mut self, t: SimTime) -> usize {
        let ns = t.saturating_since(self.start).ns();
        let (from, to, i) = self.last;
        if (from..to).contains(&ns) {
            return i;
        }
        let i = ns / self.interval.ns();
        let from = i * self.interval.ns();
        self.last = (from, from.saturating_add(self.interval.ns()), i as usize);
        i as usize
    }

    fn grow(v: &mut Vec<u64>, i: usize) -> &mut u64 {
        if v.len() <= i {
            v.resize(i + 1, 0);
        }
        &mut v[i]
    }

    pub fn record_program(&mut self, done: SimTime, slots: u64) {
        let i = self.index(done);
        *Self::grow(&mut self.program_slots, i) += slots;
    }

    pub fn record_gc(&mut self, done: SimTime) {
        let i = self.index(done);
        *Self::grow(&mut self.gc_victims, i) += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_by_completion() {
        let mut a = ActivityLog::new(SimTime(100), SimDuration(10));
        a.record_program(SimTime(105), 4);
        a.record_program(SimTime(131), 2);
        a.record_gc(SimTime(50));
        assert_eq!(a.program_slots, vec![4, 0, 0, 2]);
        assert_eq!(a.gc_victims, vec![1]);
    }
}
