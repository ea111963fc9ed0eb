//! Named locks of the filesystem's GC paths and their use, reported as a
//! table (ScaleLFS Table 3 reports time spent on `i_gc_rwsem`,
//! `curseg_mutex`, `sentry_lock` and `seglist_lock`; round2 spec §1.5 G3).
//!
//! A `TimedLock` is held for a duration known when it is taken (a step of
//! a GC worker); it books the earliest gap at or after the request on a
//! calendar, because workers' steps reach it slightly out of time order.
//! A request that finds the lock taken sleeps and pays `wake_ns` (the
//! context switch of a sleeping lock, mutex or rw_semaphore) before it
//! holds it, so more waiters waste more time (ScaleLFS Fig. 2b).

use super::LockStats;
use crate::sim::{Calendar, SimDuration, SimTime};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TimedLock {
    cal: Calendar,
    pub stats: LockStats,
}

impl TimedLock {
    /// Hold for `d` from the earliest instant at or after `at` it is free
    /// (plus `wake` if the requester had to sleep); returns (start, end).
    pub fn hold(&mut self, at: SimTime, d: SimDuration, wake: SimDuration) -> (SimTime, SimTime) {
        let s = self.fit(at, d, wake);
        self.hold_at(at, s, d);
        (s, s + d)
    }

    /// When a hold of `d` requested at `at` would start (not reserved).
    pub fn fit(&self, at: SimTime, d: SimDuration, wake: SimDuration) -> SimTime {
        let s = self.cal.fit(at, d);
        if s > at {
            self.cal.fit(s + wake, d)
        } else {
            s
        }
    }

    /// Hold from `start` (found by `fit` for a request at `at`) for `d`,
    /// which may outgrow the fitted length when the holder waited on a
    /// lock nested inside this one.
    pub fn hold_at(&mut self, at: SimTime, start: SimTime, d: SimDuration) {
        if d.0 > 0 {
            self.cal.reserve(start, d);
        }
        self.stats.note(at, start, d);
    }
}

/// Locks by key (F2FS's per-inode `i_gc_rwsem`), each a `TimedLock`; the
/// table's row sums them.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct KeyedLock {
    locks: BTreeMap<u64, TimedLock>,
}

impl KeyedLock {
    pub fn hold(&mut self, key: u64, at: SimTime, d: SimDuration, wake: SimDuration) -> (SimTime, SimTime) {
        self.locks.entry(key).or_default().hold(at, d, wake)
    }

    pub fn stats(&self) -> LockStats {
        let mut u = LockStats::default();
        for l in self.locks.values() {
            u.merge(&l.stats);
        }
        u
    }
}

/// The report's lock table: each named lock's use, in a fixed order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LockTable(pub Vec<(String, LockStats)>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleeping_waiter_pays_the_wake_up_and_the_table_counts_it() {
        let mut l = TimedLock::default();
        let us = |n: u64| SimTime(n * 1000);
        let (d, wake) = (SimDuration(10_000), SimDuration(5_000));
        assert_eq!(l.hold(us(0), d, wake), (us(0), us(10)));
        // Taken until 10 us: sleeps, wakes 5 us after it is free.
        assert_eq!(l.hold(us(4), d, wake), (us(15), us(25)));
        // An earlier request than the last fits the gap between them.
        assert_eq!(l.hold(us(10), SimDuration(5_000), wake), (us(10), us(15)));
        assert_eq!(l.stats, LockStats { acquisitions: 3, contended: 1, wait_ns: 11_000, hold_ns: 25_000 });
    }

    #[test]
    fn keyed_locks_only_contend_on_the_same_key() {
        let mut k = KeyedLock::default();
        let d = SimDuration(1_000);
        assert_eq!(k.hold(1, SimTime(0), d, SimDuration(0)).0, SimTime(0));
        assert_eq!(k.hold(2, SimTime(0), d, SimDuration(0)).0, SimTime(0));
        assert_eq!(k.hold(1, SimTime(0), d, SimDuration(0)).0, SimTime(1_000));
        assert_eq!(k.stats().contended, 1);
    }
}
