//! Discrete-event scheduler: a min-heap of typed events ordered by
//! (time, insertion sequence). Ties break by insertion order, so a run is
//! deterministic. Every pop counts against the run's limits.
//!
//! A popped event stays at the top of the heap until the next call: a
//! `schedule` then overwrites it and sifts once, where a pop and a push
//! would sift twice (a simulation nearly always schedules after a pop).
//! The order is the keys' alone, so this changes no result.

use super::limits::{LimitExceeded, Limits};
use super::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap, we want the earliest first.
        other.at.cmp(&self.at).then_with(|| other.seq.cmp(&self.seq))
    }
}

pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    /// The heap's top was popped already (see the module doc).
    top_taken: bool,
    now: SimTime,
    seq: u64,
    events_popped_count: u64,
    limits: Limits,
}

impl<E: Copy> Scheduler<E> {
    pub fn new(limits: Limits) -> Self {
        Scheduler { heap: BinaryHeap::new(), top_taken: false, now: SimTime::ZERO, seq: 0, events_popped_count: 0, limits }
    }

    /// Start the clock at `t` (e.g. after preconditioning).
    pub fn with_start(limits: Limits, t: SimTime) -> Self {
        let mut s = Self::new(limits);
        s.now = t;
        s
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn events_popped_count(&self) -> u64 {
        self.events_popped_count
    }

    pub fn pending_count(&self) -> usize {
        self.heap.len() - self.top_taken as usize
    }

    /// Schedule `event` at `at`; scheduling in the past is a causality bug.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        assert!(at >= self.now, "event scheduled in the past: {at} < now {}", self.now);
        self.seq += 1;
        let entry = Entry { at, seq: self.seq, event };
        if std::mem::take(&mut self.top_taken) {
            *self.heap.peek_mut().expect("the taken top is still in the heap") = entry;
        } else {
            self.heap.push(entry);
        }
    }

    /// Pop the earliest event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Result<Option<(SimTime, E)>, LimitExceeded> {
        if std::mem::take(&mut self.top_taken) {
            self.heap.pop();
        }
        let Some(&Entry { at, event, .. }) = self.heap.peek() else { return Ok(None) };
        self.top_taken = true;
        self.events_popped_count += 1;
        self.limits.check(at, self.events_popped_count)?;
        debug_assert!(at >= self.now);
        self.now = at;
        Ok(Some((at, event)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut s = Scheduler::new(Limits::default());
        s.schedule(SimTime(30), "c");
        s.schedule(SimTime(10), "a");
        s.schedule(SimTime(10), "b");
        let order: Vec<_> = std::iter::from_fn(|| s.pop().unwrap()).map(|(_, e)| e).collect();
        assert_eq!(order, vec!["a", "b", "c"]);
        assert_eq!(s.now(), SimTime(30));
    }

    /// Random schedules and pops, interleaved as a simulation does (never
    /// before the clock), against the order (time, insertion) by sorting.
    #[test]
    fn pops_match_a_sorted_reference_under_random_interleaving() {
        let mut rng = crate::sim::SimRng::new(11);
        for case in 0..200 {
            let mut s = Scheduler::new(Limits::default());
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut seq = 0;
            for _ in 0..rng.below(2000) {
                if rng.below(3) > 0 || reference.is_empty() {
                    // Many ties at small spreads, distinct times at large ones.
                    let at = s.now().0 + rng.below([4, 1000, 1 << 40][case % 3]);
                    seq += 1;
                    s.schedule(SimTime(at), seq);
                    reference.push((at, seq));
                } else {
                    reference.sort_unstable();
                    let want = reference.remove(0);
                    let (at, got) = s.pop().unwrap().expect("pending");
                    assert_eq!((at.0, got), want, "case {case}");
                }
                assert_eq!(s.pending_count(), reference.len());
            }
            reference.sort_unstable();
            let rest: Vec<(u64, u64)> = std::iter::from_fn(|| s.pop().unwrap()).map(|(t, e)| (t.0, e)).collect();
            assert_eq!(rest, reference, "case {case}");
        }
    }

    #[test]
    fn event_limit_is_reported() {
        let limits = Limits { max_sim_time: SimDuration::from_secs(1), max_events: 2 };
        let mut s = Scheduler::new(limits);
        for i in 0..3 {
            s.schedule(SimTime(i), ());
        }
        assert!(s.pop().is_ok());
        assert!(s.pop().is_ok());
        let err = s.pop().unwrap_err();
        assert!(err.to_string().contains("event limit"), "{err}");
    }
}
