//! Simulated locks as timelines. An operation runs at its start instant but
//! holds resources into the future; a lock therefore records when it is
//! next free, and a waiter learns when it gets it. Waiting time is summed,
//! so contention (F2FS's GC lock, checkpoint rwsem, curseg mutex) emerges
//! from simulated time rather than being assumed.

use crate::sim::{SimDuration, SimTime};
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LockStats {
    pub acquisitions: u64,
    pub contended: u64,
    pub wait_ns: u64,
    /// Time held, summed over holders (readers of a rwsem overlap).
    #[serde(default)]
    pub hold_ns: u64,
}

impl LockStats {
    /// Count one acquisition requested at `at`, held from `got` for `hold`.
    pub fn note(&mut self, at: SimTime, got: SimTime, hold: SimDuration) {
        self.acquisitions += 1;
        if got > at {
            self.contended += 1;
            self.wait_ns += (got - at).ns();
        }
        self.hold_ns += hold.0;
    }

    pub fn merge(&mut self, o: &LockStats) {
        self.acquisitions += o.acquisitions;
        self.contended += o.contended;
        self.wait_ns += o.wait_ns;
        self.hold_ns += o.hold_ns;
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SimMutex {
    free_at: SimTime,
    /// When the current holder got it.
    #[serde(default)]
    held_from: SimTime,
    pub stats: LockStats,
}

impl SimMutex {
    /// Acquire at `at`; returns the instant the lock is held.
    pub fn acquire(&mut self, at: SimTime) -> SimTime {
        let got = at.max(self.free_at);
        self.stats.note(at, got, SimDuration(0));
        // Held until release; until then nobody else may take it.
        self.free_at = SimTime::MAX;
        self.held_from = got;
        got
    }

    pub fn release(&mut self, at: SimTime) {
        assert!(self.free_at == SimTime::MAX, "releasing a mutex that is not held");
        self.free_at = at;
        self.stats.hold_ns += at.ns().saturating_sub(self.held_from.ns());
    }

    /// Hold for `d` starting no earlier than `at`; returns (start, end).
    pub fn hold(&mut self, at: SimTime, d: SimDuration) -> (SimTime, SimTime) {
        let s = self.acquire(at);
        let e = s + d;
        self.release(e);
        (s, e)
    }
}

/// Reader-writer semaphore (F2FS `cp_rwsem`: operations read, checkpoint writes).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SimRwLock {
    /// Latest end of any read hold.
    readers_until: SimTime,
    /// End of the last write hold.
    writer_until: SimTime,
    writer_held: bool,
    /// Start of the latest read hold not yet ended by `read_until`, and of
    /// the write hold.
    #[serde(default)]
    read_open: Option<SimTime>,
    #[serde(default)]
    write_from: SimTime,
    pub read_stats: LockStats,
    pub write_stats: LockStats,
}

impl SimRwLock {
    /// A read hold from `at` lasting until `end(start)`; returns the start.
    pub fn read_from(&mut self, at: SimTime) -> SimTime {
        assert!(!self.writer_held, "read acquire while a write hold is open");
        let got = at.max(self.writer_until);
        self.read_stats.note(at, got, SimDuration(0));
        self.read_open = Some(got);
        got
    }

    /// End the read hold `read_from` began (a second call only extends).
    pub fn read_until(&mut self, end: SimTime) {
        self.readers_until = self.readers_until.max(end);
        if let Some(from) = self.read_open.take() {
            self.read_stats.hold_ns += end.ns().saturating_sub(from.ns());
        }
    }

    /// Take the write side at `at`: waits for earlier readers and writers.
    pub fn write_acquire(&mut self, at: SimTime) -> SimTime {
        assert!(!self.writer_held, "nested write acquire");
        let got = at.max(self.readers_until).max(self.writer_until);
        self.write_stats.note(at, got, SimDuration(0));
        self.writer_held = true;
        self.write_from = got;
        got
    }

    pub fn write_release(&mut self, at: SimTime) {
        assert!(self.writer_held, "write release without acquire");
        self.writer_held = false;
        self.writer_until = self.writer_until.max(at);
        self.write_stats.hold_ns += at.ns().saturating_sub(self.write_from.ns());
    }

    pub fn is_write_held(&self) -> bool {
        self.writer_held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutex_serialises_and_counts_waits() {
        let mut m = SimMutex::default();
        let (s, e) = m.hold(SimTime(10), SimDuration(100));
        assert_eq!((s, e), (SimTime(10), SimTime(110)));
        let (s2, _) = m.hold(SimTime(50), SimDuration(10));
        assert_eq!(s2, SimTime(110));
        assert_eq!(m.stats.contended, 1);
        assert_eq!(m.stats.wait_ns, 60);
        assert_eq!(m.stats.hold_ns, 110);
    }

    #[test]
    fn rwlock_writer_waits_for_readers_and_blocks_later_readers() {
        let mut l = SimRwLock::default();
        let r = l.read_from(SimTime(0));
        l.read_until(r + SimDuration(100));
        let w = l.write_acquire(SimTime(20));
        assert_eq!(w, SimTime(100));
        l.write_release(SimTime(300));
        assert_eq!(l.read_from(SimTime(150)), SimTime(300));
        assert_eq!(l.read_stats.wait_ns, 150);
        assert_eq!((l.read_stats.hold_ns, l.write_stats.hold_ns), (100, 200));
    }
}
